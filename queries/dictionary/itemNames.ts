import { z } from "zod";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";

/*
 * How every answer names a dictionary item beside its code (issue #34, item 5): the Chinese name it
 * always had, and since then the English name and the short clinical label (spKt/V, Hb, K …), so
 * that a page shows the item in its own language and staff find it by the label they know. Taken
 * from the dictionary in force when the answer is made, never from a read model, so a new name
 * or label shows at once, with no replay.
 */

export const itemNamesShape = {
  name: z.string().meta({ description: "The item's Chinese name" }),
  nameEn: z.string().meta({ description: "The item's English name", example: "Single-pool Kt/V" }),
  label: z.string().meta({ description: "The short clinical label staff know the item by", example: "spKt/V" }),
};

export interface ItemNames {
  name: string;
  nameEn: string;
  label: string;
}

const byDictionary = new WeakMap<Dictionary, Map<string, ItemNames>>();

/** The names of the item with standard code `code`; undefined when the dictionary has no such item. */
export function itemNamesOf(dictionary: Dictionary, code: string): ItemNames | undefined {
  let names = byDictionary.get(dictionary);
  if (!names) {
    names = new Map(
      dictionary.items.map((item) => [item.code, { name: item.name, nameEn: item.nameEn, label: item.label }]),
    );
    byDictionary.set(dictionary, names);
  }
  return names.get(code);
}
