/*
 * FHIR ids are 1 to 64 of [A-Za-z0-9-.]; our externalIds and patientRefs may hold other characters.
 * Each byte of a character outside [A-Za-z0-9-] becomes "." and the byte in hex ("_" is ".5F", "."
 * itself ".2E", "报" ".E6.8A.A5"), so an id reads back to exactly one text.
 */

export function fhirId(text: string): string {
  return text.replace(/[^A-Za-z0-9-]/gu, (character) =>
    Buffer.from(character, "utf8").toString("hex").toUpperCase().replace(/(..)/g, ".$1"),
  );
}

/** The text of an id fhirId wrote; null when it is not one. */
export function textOfFhirId(id: string): string | null {
  if (!/^(?:[A-Za-z0-9-]|\.[0-9A-F]{2})+$/.test(id)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < id.length;) {
    if (id[i] === ".") {
      bytes.push(Number.parseInt(id.slice(i + 1, i + 3), 16));
      i += 3;
    } else bytes.push(id.charCodeAt(i++));
  }
  return Buffer.from(bytes).toString("utf8");
}
