/**
 * PostgreSQL keeps text as UTF-8 without NUL: a string holding U+0000, or half of a UTF-16
 * surrogate pair (which JSON allows as "\ud800"), cannot be stored in a text or jsonb column —
 * jsonb refuses the "\u0000" and lone "\ud800" escapes JSON.stringify writes for them, and the
 * whole append fails. Such text is refused where it enters, naming where it was.
 */

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_RULE =
  "must not contain a NUL character (\\u0000) or half of a UTF-16 surrogate pair (\\ud800–\\udfff alone), which cannot be stored: remove it";

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * False when JSON text written by JSON.stringify certainly holds no unstorable text: it writes
 * NUL and lone surrogates only as \u0000 and \ud800–\udfff escapes. One scan of the text is
 * several times cheaper than walking the value; a true answer (rare) is settled by the walk.
 */
export function mayHoldUnstorableText(json: string): boolean {
  return /\\u(?:0000|d[89a-f])/i.test(json);
}

interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The path of the first string (value or object key) of a JSON value that cannot be stored, or
 * null when every string can. Walks without recursion and keeps parent links rather than paths,
 * so any depth of nesting costs time in proportion to its size.
 */
export function unstorableTextPath(value: unknown): Array<string | number> | null {
  const stack: Visit[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === "string") {
      if (!isStorableText(current)) return pathOf(visit);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: visit });
    } else if (typeof current === "object" && current !== null) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        if (!isStorableText(key)) return [...pathOf(visit), key];
        stack.push({ value: member, key, parent: visit });
      }
    }
  }
  return null;
}
