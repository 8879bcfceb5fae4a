/**
 * A display string of the spec given per language (`{ "zh": "病区", "en": "Ward" }`, issue #54) as
 * the form edits it: a field shows and writes the page's language, and says what the other holds.
 * A plain string stays a plain string (one text for every language). The JSON view edits both.
 */
import type { Lang } from "../../types.ts";

export type PerLanguage = { zh?: string; en?: string };

const WORDS: Record<Lang, { inLanguage: string; other: string; otherEmpty: string }> = {
  zh: { inLanguage: "（中文）", other: "英文：", otherEmpty: "英文未填写，英文页面显示此中文。" },
  en: {
    inLanguage: " (English)",
    other: "Chinese: ",
    otherEmpty: "No Chinese given: Chinese pages show this English.",
  },
};

/** The page's language, as the server wrote it into the page. */
export function pageLang(): Lang {
  return document.body.dataset.lang === "en" ? "en" : "zh";
}

/** The value's words per language, when it is given per language; else null. */
export function perLanguage(value: unknown): PerLanguage | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key === "zh" || key === "en") ? (value as PerLanguage) : null;
}

/** The text a value reads as in `lang` (the other language's when that one is missing). */
export function textOf(value: unknown, lang: Lang = pageLang()): string {
  const words = perLanguage(value);
  if (!words) return value === undefined || value === null ? "" : String(value);
  return words[lang] ?? words[lang === "zh" ? "en" : "zh"] ?? "";
}

/** The words with `lang`'s text set (or taken out when empty); undefined when no language is left. */
export function withText(words: PerLanguage, lang: Lang, text: string): PerLanguage | undefined {
  const next: PerLanguage = { ...words };
  if (text === "") delete next[lang];
  else next[lang] = text;
  return next.zh === undefined && next.en === undefined ? undefined : next;
}

/**
 * What a per-language field adds to its label, and the hint naming the other language's text:
 * that text marked as the other language's (`lang`), so it is read, and checked, as such.
 */
export function languageNotes(
  words: PerLanguage,
  lang: Lang,
): { label: string; hint: string; other: { lang: string; text: string } | null } {
  const otherLang = lang === "zh" ? "en" : "zh";
  const other = words[otherLang];
  const said = WORDS[lang];
  return other === undefined
    ? { label: said.inLanguage, hint: said.otherEmpty, other: null }
    : { label: said.inLanguage, hint: said.other, other: { lang: otherLang === "zh" ? "zh-CN" : "en", text: other } };
}
