import { fieldPath } from "../../db/fieldPath.ts";

export interface JsonChange {
  /** Where, as a field path: `items[3].value`, `queries.monthly.sql`. */
  path: string;
  /** null when the member was added. */
  before: unknown;
  /** null when the member was removed. */
  after: unknown;
}

/**
 * How the members of an array at `path` are paired between two versions: by the key this gives
 * each member, or by position when it gives none (null). Pairing by a key keeps a re-ordering from
 * showing as changes; a member's path carries its index in the newer version (in the older one
 * when it was removed).
 */
export type PairBy = (path: readonly (string | number)[]) => ((member: unknown) => string) | null;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every changed leaf between two JSON documents, oldest-to-newest. */
export function jsonChanges(before: unknown, after: unknown, pairBy: PairBy = () => null): JsonChange[] {
  const changes: JsonChange[] = [];
  const walk = (a: unknown, b: unknown, path: (string | number)[]) => {
    if (isObject(a) && isObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(a[key] ?? null, b[key] ?? null, [...path, key]);
    } else if (Array.isArray(a) && Array.isArray(b)) {
      const keyOf = pairBy(path);
      if (keyOf) pair(a, b, path, keyOf);
      else
        for (let i = 0; i < Math.max(a.length, b.length); i++)
          walk(i < a.length ? a[i] : null, i < b.length ? b[i] : null, [...path, i]);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      changes.push({ path: fieldPath(path), before: a, after: b });
    }
  };
  const pair = (older: unknown[], newer: unknown[], path: (string | number)[], keyOf: (member: unknown) => string) => {
    const unpaired = new Map<string, number[]>();
    older.forEach((member, i) => unpaired.set(keyOf(member), [...(unpaired.get(keyOf(member)) ?? []), i]));
    newer.forEach((member, i) => {
      const j = unpaired.get(keyOf(member))?.shift();
      if (j === undefined) changes.push({ path: fieldPath([...path, i]), before: null, after: member });
      else walk(older[j], member, [...path, i]);
    });
    for (const left of unpaired.values())
      for (const j of left) changes.push({ path: fieldPath([...path, j]), before: older[j], after: null });
  };
  walk(before, after, []);
  return changes;
}
