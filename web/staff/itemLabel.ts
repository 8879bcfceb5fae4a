/**
 * Whether a dictionary item's short label reads as a symbol staff know in any language (`K`, `Hb`,
 * `spKt/V`, `NT-proBNP`, `Anti-HCV`) or as English words (`Urea (pre)`, `Ferritin`, `TSAT calc`).
 * A Chinese page shows the first beside the item's Chinese name and leaves the second out, so it
 * reads one language (issue #54: "透析前尿素 (Urea (pre))"). A word is three or more lower-case
 * letters standing alone (a capital may lead): `pro` in `NT-proBNP` or `Anti` before a hyphen are
 * parts of a symbol.
 */
const WORD = /(?<![A-Za-z0-9-])[A-Z]?[a-z]{3,}(?![A-Za-z0-9-])/;

export function labelIsSymbol(label: string): boolean {
  return !WORD.test(label);
}

/** The label a page in `lang` shows beside an item's name: on a Chinese page only a symbol; null for none. */
export function shownLabel(label: string | null | undefined, lang: "zh" | "en"): string | null {
  if (!label) return null;
  return lang === "en" || labelIsSymbol(label) ? label : null;
}
