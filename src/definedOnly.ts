/** The object without its undefined fields, as JSON would carry it (a report mapped from HL7 or FHIR as a JSON push sends it). */
export function definedOnly(object: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}
