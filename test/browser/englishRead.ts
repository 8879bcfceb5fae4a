import { readFileSync } from "node:fs";
import type { Frame, Page } from "playwright-core";
import { projectFile } from "../../db/projectFiles.ts";
import { labelIsSymbol } from "../../web/staff/itemLabel.ts";
import {
  CHART_KINDS,
  COLUMN_ALIGNS,
  HIGHLIGHT_TONES,
  NODE_TYPES,
  PARAM_TYPES,
} from "../../commands/reports/spec/specVocabulary.ts";

/*
 * What a person reads on a page that is not in Chinese (issue #54): the text of every element a
 * browser shows or a screen reader says (visually hidden text included), the accessible names
 * (aria-label, title, alt, placeholder), option labels and the document's title. An English word
 * is a run of two or more lower-case letters, capitalised or not (`Period`, `anonymous`);
 * product names, units, codes and numbers are not words by that rule (`spKt/V`, `HBsAg`, `URR`,
 * `P001`, `v1`), and what the page itself marks as English (`lang="en"`, as the guides that stay
 * English are) or as code (`<code>`, `<pre>`, the SQL editor) is not read as prose.
 */

/** Names of products and of the clinical labels and units staff know the items by (the dictionary's). */
function allowedTerms(): string[] {
  const dictionary = JSON.parse(readFileSync(projectFile("db/seed/default-dictionary.json"), "utf8")) as {
    items: Array<{ label?: string; unit?: string }>;
  };
  // A label of English words (`Urea (pre)`) is not a symbol: a Chinese page leaves it out (web/staff/itemLabel.ts).
  const labels = dictionary.items.map((item) => item.label ?? "").filter(labelIsSymbol);
  const clinical = [...labels, ...dictionary.items.map((item) => item.unit ?? "")].filter(Boolean);
  return [...new Set([...clinical, ...PRODUCTS, ...FORMAT_CODES])];
}

/** Products and file formats, named as they are in every language. */
const PRODUCTS = ["Excel", "Word", "Markdown", "JSON", "JavaScript", "SQL", "xlsx", "docx", "zip", "csv", "ndjson"];
/**
 * The report format's own codes (its types, kinds, formats, tones, data sources), which an author
 * types as they are, and the SQL keyword a query starts with.
 */
const FORMAT_CODES = [
  ...PARAM_TYPES,
  ...NODE_TYPES,
  ...CHART_KINDS,
  ...HIGHLIGHT_TONES,
  ...COLUMN_ALIGNS,
  "datetime",
  "month",
  "percent",
  "clinical",
  "research",
  "select",
];

export interface EnglishFound {
  /** Where: the element's tag, id and classes, or the attribute. */
  where: string;
  text: string;
}

/**
 * The texts of `target` that hold English words beyond `allowed` (the terms above, and names a
 * test's own data gives, such as a laboratory's name): each with where it is read.
 */
export async function englishRead(target: Page | Frame, allowed: readonly string[] = []): Promise<EnglishFound[]> {
  // Longest first, each only as a whole token: a unit "s" must not cut the s out of a word.
  const terms = [...allowedTerms(), ...allowed]
    .sort((a, b) => b.length - a.length)
    .map((term) => `(?<![A-Za-z0-9_])${term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9_])`);
  // Written as text: the test runner's transpiler would name the functions with a helper the page lacks.
  return target.evaluate(`(${IN_PAGE})(${JSON.stringify(terms)})`) as Promise<EnglishFound[]>;
}

/** The walk of the page, run in it. */
const IN_PAGE = `function (terms) {
  // A word stands alone: one joined to others by - _ : / or a leading . is a code, a path or a file
  // (zh-walk, number:1, /api, x.md), one in braces a placeholder ({id}).
  var WORD = /(?<![A-Za-z0-9_:.\\/{-])[A-Z]?[a-z]{2,}(?![A-Za-z0-9_:\\/}-])/;
  var TERMS = terms.map(function (pattern) { return new RegExp(pattern, "g"); });
  var PROSE_EXEMPT = 'code, pre, script, style, noscript, .cm-editor, textarea, [lang|="en"], [aria-hidden="true"]';
  function english(text) {
    var rest = " " + text + " ";
    for (var i = 0; i < TERMS.length; i++) rest = rest.replace(TERMS[i], " ");
    return WORD.test(rest);
  }
  function describe(element) {
    return element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") +
      Array.prototype.map.call(element.classList, function (c) { return "." + c; }).join("");
  }
  function shown(element) {
    // Options of a closed list are read when it opens; everything else as the browser shows it.
    return element.closest("select") !== null || element.checkVisibility({ visibilityProperty: true });
  }
  var found = [];
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    var text = (node.textContent || "").trim();
    var parent = node.parentElement;
    if (text && parent && !parent.closest(PROSE_EXEMPT) && shown(parent) && english(text))
      found.push({ where: describe(parent), text: text });
  }
  var named = document.body.querySelectorAll("[aria-label], [title], [alt], [placeholder]");
  for (var k = 0; k < named.length; k++) {
    var element = named[k];
    if (element.closest('[aria-hidden="true"], [lang|="en"]') || !shown(element)) continue;
    ["aria-label", "title", "alt", "placeholder"].forEach(function (name) {
      var said = (element.getAttribute(name) || "").trim();
      if (said && english(said)) found.push({ where: describe(element) + "[" + name + "]", text: said });
    });
  }
  if (english(document.title)) found.push({ where: "title", text: document.title });
  return found;
}`;
