/**
 * The service's default hemodialysis dictionary (contract B.2–B.4): laboratory items with
 * standard codes, units, LOINC codes, aliases and unit conversions, plus examination types.
 * The content lives in `default-dictionary.json`; this module validates and types it.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { projectFile } from "../projectFiles.ts";
import { formulaInputs, parseFormula } from "./formulaExpression.ts";
import { indicatorIssues, qualityIndicatorSchema } from "./qualityIndicators.ts";

const DICTIONARY_FILE = projectFile("db", "seed", "default-dictionary.json");

/** Upper-case token, as used for item and exam-type codes: `[A-Z][A-Z0-9_]*`. */
const codeSchema = z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must match [A-Z][A-Z0-9_]*");

/**
 * Comparison key for item codes, names, aliases (contract B.2): full-width folded to half-width
 * (NFKC; note NFKC also turns the micro sign "µ" into Greek "μ", harmless for keys), all
 * whitespace removed, lower-cased.
 */
export function normaliseItemKey(s: string): string {
  return s.normalize("NFKC").replace(/\s+/gu, "").toLowerCase();
}

/** True when `code` is a LOINC code (`digits-checkdigit`) whose mod-10 check digit is right. */
export function isValidLoinc(code: string): boolean {
  const m = /^(\d{1,7})-(\d)$/.exec(code);
  if (!m) return false;
  const body = m[1]!;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    // Digits in odd positions counted from the right are doubled (Luhn / LOINC mod 10).
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === Number(m[2]);
}

/** Converts a value sent in `unit` into the item's standard unit: std = value × factor + offset. */
export const conversionSchema = z.strictObject({
  unit: z.string().min(1),
  toStandard: z.strictObject({
    factor: z.number().positive(),
    offset: z.number().optional(),
  }),
});

/** A band of standard values: a clinical target, or the limits beyond which a result is critical. An open side is null. */
export const valueBandSchema = z
  .strictObject({
    low: z.number().nullable(),
    high: z.number().nullable(),
    /** The guideline or practice the band comes from, cited so a clinician can check it. */
    source: z.string().min(1),
    /** The same citation in Chinese, for the pages' Chinese readers (issue #54). */
    sourceZh: z.string().min(1).optional(),
  })
  .refine((band) => band.low !== null || band.high !== null, "give low, high or both")
  .refine((band) => band.low === null || band.high === null || band.low < band.high, "low must be below high");

/**
 * How the service derives an item from other results of one collection (contract F.2). Its
 * `version` changes only with a release of the dictionary that changes `expression`: every derived
 * value is then worked out by it, and those of the earlier version stay answerable as of before it.
 */
export const formulaSchema = z.strictObject({
  /** The formula's name as clinicians know it: "URR", "Payne", "TSAT", "Ca × P". */
  name: z.string().min(1),
  version: z.int().positive(),
  /** Arithmetic over numeric items' codes in their standard units (formulaExpression.ts). */
  expression: z.string().min(1),
  /** Decimals the derived value is rounded to. */
  decimals: z.int().min(0).max(4),
  /** Items which, sent by the laboratory for that collection, stand instead of the derived value (its value wins). */
  sentAs: z.array(codeSchema).min(1),
  /** Where the formula comes from, cited so a clinician can check it. */
  source: z.string().min(1),
});

/**
 * Contract F.3: how far a result may move from the patient's previous one of the item (collected
 * at most `days` before it) before it is flagged and raises a DELTA alert: by more than `limit` in
 * the standard unit, or, with `percent`, by more than `limit` % of the previous value.
 */
export const deltaLimitSchema = z.strictObject({
  limit: z.number().positive(),
  percent: z.boolean(),
  days: z.int().positive(),
  /** The practice the limit comes from, cited so a clinician can check it. */
  source: z.string().min(1),
  /** The same citation in Chinese (issue #54). */
  sourceZh: z.string().min(1).optional(),
});

export const dictionaryItemSchema = z
  .strictObject({
    code: codeSchema,
    name: z.string().min(1),
    nameEn: z.string().min(1),
    /**
     * The short clinical label staff know the item by (spKt/V, Hb, K, iPTH …), shown beside the
     * name in every language so that an item is found by it (issue #34, item 5).
     */
    label: z
      .string()
      .min(1)
      .max(16)
      .refine((label) => label === label.trim(), "no space at either end"),
    category: z.string().regex(/^[a-z][a-z_]*$/, "must be a lower-case snake_case token"),
    valueType: z.enum(["numeric", "qualitative", "text"]),
    /** Standard unit; `""` when unit-less. */
    unit: z.string(),
    /**
     * How many decimals a numeric item's value is shown with in the standard unit (issue #54: a
     * converted urea read "31.4173 mmol/L"): the chart, its table, a report's history. Display
     * only: stored values keep the converter's six significant digits.
     */
    decimals: z.int().min(0).max(4).optional(),
    loinc: z.string().refine(isValidLoinc, "must be a LOINC code with a valid check digit").nullable(),
    aliases: z.array(z.string().min(1)).min(1),
    core: z.boolean(),
    /** True when the item's meaning depends on when it is drawn relative to a session. */
    timing: z.boolean(),
    conversions: z.array(conversionSchema),
    note: z.string().min(1).optional(),
    /**
     * The clinical target (KDIGO / KDOQI) in the standard unit: charts draw it, monthly summaries
     * count results below, within and above it. Changing one changes `monthly_results`: bump the
     * lab_results projection's version so that it is rebuilt by replay.
     */
    target: valueBandSchema.optional(),
    /** Beyond these a result raises a critical-result alert (as a laboratory's LL or HH flag does). */
    critical: valueBandSchema.optional(),
    formula: formulaSchema.optional(),
    /**
     * Contract F.3: the change from the previous result beyond which a result is flagged and
     * alerted. The delta_checks reactor keeps only the results of items that have one: adding one
     * wants its version bumped, so that it is rebuilt by replay (which raises no alert).
     */
    delta: deltaLimitSchema.optional(),
  })
  .superRefine((item, ctx) => {
    if (item.valueType !== "numeric" && (item.unit !== "" || item.conversions.length > 0)) {
      ctx.addIssue({
        code: "custom",
        path: ["unit"],
        message: `${item.valueType} items carry no unit and no conversions`,
      });
    }
    if (item.decimals !== undefined && item.valueType !== "numeric")
      ctx.addIssue({ code: "custom", path: ["decimals"], message: "only numeric items have decimals" });
    for (const band of ["target", "critical", "delta"] as const) {
      if (item[band] && item.valueType !== "numeric")
        ctx.addIssue({ code: "custom", path: [band], message: `only numeric items have a ${band}` });
    }
    if (item.unit === "" && item.conversions.length > 0) {
      ctx.addIssue({ code: "custom", path: ["conversions"], message: "a unit-less item cannot convert units" });
    }
    const units = new Set<string>([item.unit.toLowerCase()]);
    item.conversions.forEach((conv, i) => {
      const key = conv.unit.toLowerCase();
      if (units.has(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["conversions", i, "unit"],
          message: `unit "${conv.unit}" repeats the standard unit or another conversion`,
        });
      }
      units.add(key);
    });
  });

export const examTypeSchema = z.strictObject({
  code: codeSchema,
  name: z.string().min(1),
  nameEn: z.string().min(1),
});

export const dictionarySchema = z
  .strictObject({
    items: z.array(dictionaryItemSchema).min(50),
    examTypes: z.array(examTypeSchema).min(10),
    /** Contract G.2: the month's quality indicators (qualityIndicators.ts). */
    indicators: z.array(qualityIndicatorSchema),
  })
  .superRefine((dict, ctx) => {
    const codes = new Map<string, number>();
    dict.items.forEach((item, i) => {
      if (codes.has(item.code)) {
        ctx.addIssue({ code: "custom", path: ["items", i, "code"], message: `duplicate item code ${item.code}` });
      }
      codes.set(item.code, i);
    });
    // Mapping is "first hit wins" by alias, so a normalised alias may belong to one item only.
    const aliasOwner = new Map<string, string>();
    dict.items.forEach((item, i) => {
      item.aliases.forEach((alias, j) => {
        const key = normaliseItemKey(alias);
        const owner = aliasOwner.get(key);
        if (owner !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["items", i, "aliases", j],
            message: `alias "${alias}" of ${item.code} collides with an alias of ${owner}`,
          });
        } else {
          aliasOwner.set(key, item.code);
        }
      });
    });
    // A label tells an item from every other in a chart's title, an alert and the editor's completions.
    const labels = new Map<string, string>();
    dict.items.forEach((item, i) => {
      const owner = labels.get(item.label.toLowerCase());
      if (owner !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["items", i, "label"],
          message: `label "${item.label}" of ${item.code} is the label of ${owner}`,
        });
      else labels.set(item.label.toLowerCase(), item.code);
    });
    dict.items.forEach((item, i) => {
      if (!item.formula) return;
      const issue = formulaIssue(item, dict.items);
      if (issue) ctx.addIssue({ code: "custom", path: ["items", i, "formula", "expression"], message: issue });
    });
    for (const issue of indicatorIssues(dict.indicators, dict.items)) ctx.addIssue({ code: "custom", ...issue });
    const examCodes = new Set<string>();
    dict.examTypes.forEach((exam, i) => {
      if (examCodes.has(exam.code)) {
        ctx.addIssue({ code: "custom", path: ["examTypes", i, "code"], message: `duplicate exam type ${exam.code}` });
      }
      examCodes.add(exam.code);
    });
  });

/** What is wrong with a derived item's formula, if anything: it must parse and read other numeric items, none of them derived. */
function formulaIssue(
  item: z.infer<typeof dictionaryItemSchema>,
  items: ReadonlyArray<z.infer<typeof dictionaryItemSchema>>,
): string | null {
  if (item.valueType !== "numeric") return "only numeric items are derived";
  let inputs: string[];
  try {
    inputs = formulaInputs(parseFormula(item.formula!.expression));
  } catch (error) {
    return (error as Error).message;
  }
  for (const code of inputs) {
    const input = items.find((candidate) => candidate.code === code);
    if (!input || input.valueType !== "numeric") return `${code} is not a numeric item of the dictionary`;
    if (input.formula) return `${code} is derived itself: a formula reads results as sent`;
  }
  return inputs.length === 0 ? "a formula reads at least one item" : null;
}

export type UnitConversion = z.infer<typeof conversionSchema>;
export type ValueBand = z.infer<typeof valueBandSchema>;
export type DeltaLimit = z.infer<typeof deltaLimitSchema>;
export type DictionaryItem = z.infer<typeof dictionaryItemSchema>;
export type ExamType = z.infer<typeof examTypeSchema>;
export type Formula = z.infer<typeof formulaSchema>;
export type Dictionary = z.infer<typeof dictionarySchema>;

/** Reads and validates the shipped default dictionary; throws when the file is invalid. */
export function loadDefaultDictionary(): Dictionary {
  const raw: unknown = JSON.parse(readFileSync(DICTIONARY_FILE, "utf8"));
  return dictionarySchema.parse(raw);
}
