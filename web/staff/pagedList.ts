import { alertBox, el, whileSubmitting } from "./dom.ts";
import type { PageContext } from "./page.ts";

/** A page of a list as `StaffApi.page` reads it. */
export interface ListPage<T> {
  items: T[];
  next: string | null;
}

/**
 * A long list read a page at a time (contract E.6: the unmatched queue, the patients): the first
 * page, and under it, while more remain, a "Show more" button that reads the next page and shows
 * it after the rows already there. The page never reads more than a person asks to see.
 */
export function pagedList<T>(
  ctx: PageContext,
  first: ListPage<T>,
  render: (items: T[]) => Node,
  counted: (shown: number, more: boolean) => void,
): HTMLElement {
  const { texts } = ctx;
  const items = [...first.items];
  let next = first.next;
  const box = el("div", { class: "paged-list" });
  const problem = alertBox();
  const more = el("button", { type: "button", class: "show-more" }, texts.showMore);
  more.addEventListener(
    "click",
    () =>
      void whileSubmitting(more, texts.loading, problem, async () => {
        try {
          const page = await ctx.api.page<T>(next!);
          items.push(...page.items);
          next = page.next;
          show();
          // The person asked for the rows after the ones they read: they go on from there.
          (next ? more : box).focus();
        } catch (error) {
          problem.show(error instanceof Error ? error.message : String(error));
        }
      }),
  );
  box.tabIndex = -1;
  const show = () => {
    counted(items.length, next !== null);
    box.replaceChildren(render(items), problem.element, next ? el("p", { class: "page-actions" }, more) : "");
  };
  show();
  return box;
}
