import { createHash } from "node:crypto";
import type { Dictionary } from "../db/seed/defaultDictionary.ts";

export interface ServedItem {
  code: string;
  name: string;
  category: string;
  valueType: string;
  unit: string;
  aliases: string[];
  core: boolean;
  timing: boolean;
  loinc: string | null;
}

export interface ServedDictionary {
  version: string;
  items: ServedItem[];
  examTypes: Array<{ code: string; name: string }>;
  categories: string[];
}

/**
 * The dictionary as senders see it (contract B.4). Its version is derived from that content, so
 * it changes exactly when the content does and is the same in every process.
 */
export function serveDictionary(dictionary: Dictionary): ServedDictionary {
  const items = dictionary.items.map((item) => ({
    code: item.code,
    name: item.name,
    category: item.category,
    valueType: item.valueType,
    unit: item.unit,
    aliases: [...item.aliases],
    core: item.core,
    timing: item.timing,
    loinc: item.loinc ?? null,
  }));
  const examTypes = dictionary.examTypes.map(({ code, name }) => ({ code, name }));
  const version = createHash("sha256").update(JSON.stringify({ items, examTypes })).digest("hex").slice(0, 12);
  return { version, items, examTypes, categories: [...new Set(items.map((item) => item.category))] };
}
