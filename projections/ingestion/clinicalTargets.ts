import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";

/**
 * The clinical targets the monthly summaries count results against (below, within, above): the
 * dictionary's, with the guideline each comes from. A bound left out is open. Changing one
 * changes the meaning of `monthly_results`: bump the lab_results projection's version so that it
 * is rebuilt by replay.
 */
export interface ClinicalTarget {
  code: string;
  low: number | null;
  high: number | null;
  source: string;
}

export const CLINICAL_TARGETS: readonly ClinicalTarget[] = loadDefaultDictionary().items.flatMap((item) =>
  item.target ? [{ code: item.code, ...item.target }] : [],
);
