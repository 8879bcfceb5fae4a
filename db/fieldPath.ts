// Lowest of the layers that name JSON paths: the push's validation (commands), the diffs (queries) and request bodies (src).
/** A path into a JSON value as messages name it: `items[3].value`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += (out === "" ? "" : ".") + String(seg);
  }
  return out;
}
