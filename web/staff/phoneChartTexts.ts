/**
 * The words of issue #54's phone and chart fixes on the staff pages: the cue that the tab strip
 * goes on past the screen's edge, and what a patient chart says to a keyboard or screen reader
 * beside its name (where its values are in words).
 */
export interface PhoneChartTexts {
  /** The arrows at the ends of the tab strip (for a pointer; a keyboard reaches every tab with Tab). */
  tabsBefore: string;
  tabsAfter: string;
  /** Said after a patient chart's name: its bands, and the table view that lists its values. */
  chartTableHint: string;
}

export const phoneChartZh: PhoneChartTexts = {
  tabsBefore: "前面的页面",
  tabsAfter: "更多页面",
  chartTableHint: "每个数值都列在“表格”视图中（页面上方的“表格”按钮）。",
};

export const phoneChartEn: PhoneChartTexts = {
  tabsBefore: "Earlier pages",
  tabsAfter: "More pages",
  chartTableHint: "Every value is listed in the table view (the Table button above).",
};
