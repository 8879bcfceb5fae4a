import { expect } from "chai";
import type { Page } from "playwright-core";
import { expectNoSidewaysScroll } from "./accessibility.ts";

/**
 * The page's own view (its `main` and any open dialog) fits the window: nothing in it reaches past
 * the right edge. Then the whole page, by expectNoSidewaysScroll, whenever the navigation fits
 * too: at 390 px the English tabs were wider than a phone (#34 item 8, fixed apart from the views
 * tested here), and a view is not held responsible for the bar above it.
 */
export async function expectViewFits(page: Page, what: string): Promise<void> {
  const { width, past } = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const past = [...document.querySelectorAll("main, main *, dialog[open], dialog[open] *")]
      .filter(
        (element) => element.getBoundingClientRect().right > width + 0.5 && !element.closest(".table-wrap *, pre"),
      )
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${[...element.classList].join(".")} (right edge ${Math.round(element.getBoundingClientRect().right)} px)`,
      );
    return { width, past };
  });
  expect(past, `${what}: wider than the ${width} px window`).to.deep.equal([]);
  const navigationFits = await page.evaluate(() =>
    [...document.querySelectorAll("nav")].every((nav) => nav.scrollWidth <= document.documentElement.clientWidth),
  );
  if (navigationFits) await expectNoSidewaysScroll(page, what);
}
