/**
 * Where a chart's reference lines are named (issue #34 item 11). Named inside the plot, at the
 * line's end, a name sat on the last bar (or the last points of a line) and could not be read.
 * So the name goes outside the plot, just right of where the line ends, in room the plot leaves
 * for it; on a white ground, so a gridline or a second axis' line behind it does not cross the
 * letters. Like chartOptions.ts, types only: this bundles into the embed page as it is.
 */

/** Widest a name gets before it wraps onto a second line, in pixels. */
const MAX_NAME_WIDTH = 96;
const FONT_SIZE = 12;
/** Between the line's end and its name, and around the name's letters. */
const GAP = 6;
const PADDING = [1, 3] as const;

/** About how wide `text` is at `FONT_SIZE`: a CJK character is a square, other letters a little over half one. */
export function textWidth(text: string): number {
  let width = 0;
  for (const character of text)
    width += /[\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(
      character,
    )
      ? FONT_SIZE
      : FONT_SIZE * 0.62;
  return Math.ceil(width);
}

export interface RefLine {
  value: number;
  label?: string;
}

/** The name a line is shown with: its label, else its value. */
const lineName = (line: RefLine) => line.label ?? String(line.value);

/**
 * The markLine of the first series, and the room (pixels right of the plot) its names need:
 * the widest name (wrapped at MAX_NAME_WIDTH), its padding and the gap to the line.
 */
export function refLineMarks(
  lines: readonly RefLine[],
  fontFamily: string,
): { markLine: Record<string, unknown>; room: number } {
  const widest = Math.min(MAX_NAME_WIDTH, Math.max(0, ...lines.map((line) => textWidth(lineName(line)))));
  const room = GAP + PADDING[1] * 2 + widest + 2;
  return {
    room,
    markLine: {
      silent: true,
      symbol: "none",
      lineStyle: { type: "dashed", color: "#555555" },
      label: {
        formatter: "{b}",
        position: "end",
        distance: GAP,
        fontFamily,
        fontSize: FONT_SIZE,
        color: "#333333",
        backgroundColor: "#ffffff",
        padding: [...PADDING],
        width: widest,
        overflow: "break",
      },
      data: lines.map((line) => ({ yAxis: line.value, name: lineName(line) })),
    },
  };
}
