import { createHash } from "node:crypto";
import { z } from "zod";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";

/** Contract B.4: a dictionary item as senders see it (`loinc` is ours, beside the contract's fields). */
export const servedItemSchema = z.object({
  code: z.string(),
  name: z.string(),
  nameEn: z.string().meta({ description: "The English name", example: "Single-pool Kt/V" }),
  label: z.string().meta({ description: "The short clinical label staff know the item by", example: "spKt/V" }),
  category: z.string(),
  valueType: z.string().meta({ description: "numeric, qualitative or text" }),
  unit: z.string().meta({ description: '"" when unit-less' }),
  decimals: z
    .int()
    .optional()
    .meta({ description: "A numeric item's: how many decimals its values are shown with in the standard unit" }),
  aliases: z.array(z.string()),
  core: z.boolean(),
  timing: z.boolean().meta({
    description: "True when the meaning depends on when it is drawn relative to a dialysis session (pre/post)",
  }),
  loinc: z.string().nullable(),
  formula: z
    .object({
      name: z.string().meta({ example: "Payne" }),
      version: z.int(),
      expression: z
        .string()
        .meta({ description: "Over other items' codes, in their standard units", example: "CA + 0.02 * (40 - ALB)" }),
      decimals: z.int(),
      sentAs: z.array(z.string()).meta({
        description: "Items which, sent by the laboratory for that collection, stand instead of the derived value",
      }),
      source: z.string(),
    })
    .optional()
    .meta({
      description: "Contract F.2: present on an item the service derives where the laboratory does not send it",
    }),
});
export type ServedItem = z.infer<typeof servedItemSchema>;

export const servedExamTypeSchema = z.object({
  code: z.string(),
  name: z.string(),
  nameEn: z.string().meta({ description: "The English name" }),
});

/** Contract B.4: the `data` of `GET /open/v1/dict/lab-items`. */
export const dictionaryAnswerSchema = z.object({
  version: z.string().meta({ description: "Changes exactly when the dictionary content changes" }),
  items: z.array(servedItemSchema),
  examTypes: z.array(servedExamTypeSchema),
});

export type DictionaryAnswer = z.infer<typeof dictionaryAnswerSchema>;

export interface ServedDictionary extends DictionaryAnswer {
  categories: string[];
}

/**
 * The dictionary as senders see it (contract B.4, with the English names and labels beside the
 * contract's fields). Its version is derived from the whole content, so it changes exactly when
 * the content does and is the same in every process: the unit conversions, limits and quality
 * indicators (G.2) are content too, though not served here (a changed conversion factor changes
 * the values stored from then on).
 */
export function serveDictionary(dictionary: Dictionary): ServedDictionary {
  const items = dictionary.items.map((item) => ({
    code: item.code,
    name: item.name,
    nameEn: item.nameEn,
    label: item.label,
    category: item.category,
    valueType: item.valueType,
    unit: item.unit,
    ...(item.decimals === undefined ? {} : { decimals: item.decimals }),
    aliases: [...item.aliases],
    core: item.core,
    timing: item.timing,
    loinc: item.loinc ?? null,
    ...(item.formula ? { formula: { ...item.formula, sentAs: [...item.formula.sentAs] } } : {}),
  }));
  const examTypes = dictionary.examTypes.map(({ code, name, nameEn }) => ({ code, name, nameEn }));
  const version = createHash("sha256")
    .update(
      JSON.stringify({ items: dictionary.items, examTypes: dictionary.examTypes, indicators: dictionary.indicators }),
    )
    .digest("hex")
    .slice(0, 12);
  return { version, items, examTypes, categories: [...new Set(items.map((item) => item.category))] };
}
