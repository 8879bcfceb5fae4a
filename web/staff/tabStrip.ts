import { el } from "./dom.ts";
import type { PhoneChartTexts } from "./phoneChartTexts.ts";

/**
 * The page tabs in a strip that says when it goes on past the screen's edge (issue #54: on a phone
 * the English tabs hid Patients and Credentials off-screen, with nothing to say the strip scrolls).
 * Each end that has tabs beyond it fades out under an arrow; a click on the arrow scrolls the
 * strip by most of its width. The arrows are for a pointer: keyboard users reach every tab with
 * Tab (the browser scrolls the focused tab into view), and screen readers hear every tab, so the
 * arrows are hidden from both. The ends are kept on the strip (`data-more-before`,
 * `data-more-after`) as it scrolls and as the window or the tabs' names change its width.
 */
export function tabStrip(nav: HTMLElement, texts: PhoneChartTexts): HTMLElement {
  const arrow = (side: "before" | "after", title: string, glyph: string, by: number) =>
    el(
      "button",
      {
        type: "button",
        class: `tabs-more tabs-more-${side}`,
        "aria-hidden": "true",
        tabindex: "-1",
        title,
        onclick: () => nav.scrollBy({ left: by * Math.max(80, nav.clientWidth * 0.7), behavior: "smooth" }),
      },
      glyph,
    );
  const strip = el(
    "div",
    { class: "tabs-strip" },
    nav,
    arrow("before", texts.tabsBefore, "‹", -1),
    arrow("after", texts.tabsAfter, "›", 1),
  );
  const ends = () => {
    // Scroll positions are whole pixels and widths are not: a pixel's slack either way is the end.
    const beyond = nav.scrollWidth - nav.clientWidth - nav.scrollLeft;
    strip.dataset.moreBefore = String(nav.scrollLeft > 1);
    strip.dataset.moreAfter = String(beyond > 1);
  };
  nav.addEventListener("scroll", ends, { passive: true });
  const observer = new ResizeObserver(ends);
  observer.observe(nav);
  for (const tab of nav.children) observer.observe(tab);
  ends();
  return strip;
}
