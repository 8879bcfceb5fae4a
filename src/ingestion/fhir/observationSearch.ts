import type { Bundle, Observation } from "fhir/r4.js";
import { CommandError } from "../../../commands/kit/commandError.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import type { ObservationSearch } from "../../../queries/ingestion/fhirObservations.ts";
import { isCalendarDate } from "../../../db/localDateTime.ts";
import { textOfFhirId } from "./fhirIds.ts";
import { ITEM_SYSTEM } from "./fhirResources.ts";

/*
 * GET /fhir/r4/Observation?patient=&code=&date=&_count= (contract D.6) read into a search of the
 * result rows, and the searchset Bundle of a page with its `next` link.
 */

export const DEFAULT_COUNT = 50;
export const MAX_COUNT = 500;
const LOINC_SYSTEM = "http://loinc.org";

type Query = Record<string, string | string[] | undefined>;

const all = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function one(query: Query, name: string): string | undefined {
  const values = all(query[name]);
  if (values.length > 1) throw new CommandError("invalid", `Send ${name} at most once.`);
  return values[0];
}

export function observationSearch(query: Query, dictionary: Dictionary): ObservationSearch {
  const unknown = Object.keys(query).filter((name) => !["patient", "code", "date", "_count", "_cursor"].includes(name));
  if (unknown.length > 0)
    throw new CommandError(
      "invalid",
      `Unknown search parameter ${unknown.join(", ")}: Observation is searched by patient, code, date, _count.`,
    );
  const patient = one(query, "patient");
  const patientRef = patient === undefined ? null : textOfFhirId(patient.replace(/^Patient\//, ""));
  if (!patientRef)
    throw new CommandError(
      "invalid",
      "Send patient=<Patient id> (or Patient/<id>): the patient whose results to search.",
    );

  const tokens = all(query.code).flatMap((value) => value.split(","));
  const stdCodes = tokens.length === 0 ? null : tokens.flatMap((token) => itemCodesOf(token, dictionary));

  let fromDay: string | null = null;
  let toDay: string | null = null;
  for (const value of all(query.date)) {
    const match = /^(ge|le|eq)?(\d{4}-\d{2}-\d{2})$/.exec(value);
    if (!match || !isCalendarDate(match[2]!))
      throw new CommandError(
        "invalid",
        `date=${value}: send a day (yyyy-MM-dd), with ge or le before it for a range, e.g. date=ge2026-01-01&date=le2026-12-31.`,
      );
    if (match[1] !== "le") fromDay = match[2]!;
    if (match[1] !== "ge") toDay = match[2]!;
  }

  const countText = one(query, "_count");
  const count = countText === undefined ? DEFAULT_COUNT : Number(countText);
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    throw new CommandError("invalid", `_count must be a whole number from 1 to ${MAX_COUNT}.`);

  const cursor = one(query, "_cursor");
  return { patientRef, stdCodes, fromDay, toDay, count, after: cursor === undefined ? null : readCursor(cursor) };
}

/** `http://loinc.org|718-7`, `urn:dialysis-hub:item|HGB`, `HGB` or `|HGB`: the dictionary items it names (none when it names none). */
function itemCodesOf(token: string, dictionary: Dictionary): string[] {
  const bar = token.indexOf("|");
  const [system, code] = bar < 0 ? [null, token] : [token.slice(0, bar), token.slice(bar + 1)];
  if (system === LOINC_SYSTEM) return dictionary.items.filter((item) => item.loinc === code).map((item) => item.code);
  if (system === null || system === "" || system === ITEM_SYSTEM) return [code];
  throw new CommandError(
    "invalid",
    `code=${token}: search by LOINC (${LOINC_SYSTEM}|<code>) or by our item code (${ITEM_SYSTEM}|<code>, or the code alone).`,
  );
}

function readCursor(cursor: string): [string, string, number] {
  try {
    const [at, externalId, index] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [
      unknown,
      unknown,
      unknown,
    ];
    if (typeof at === "string" && typeof externalId === "string" && Number.isInteger(index))
      return [at, externalId, index as number];
  } catch {
    // answered below
  }
  throw new CommandError(
    "invalid",
    "_cursor is not one this server wrote: follow the next link of the page before as it is.",
  );
}

/** A page of a search as a searchset Bundle; `pageUrl(cursor)` writes the link of a page. */
export function searchsetBundle(
  observations: Observation[],
  rows: ReadonlyArray<{ effective_at: string; external_id: string; item_index: number }>,
  search: ObservationSearch,
  baseUrl: string,
  pageUrl: (cursor: string | null) => string,
): Bundle {
  const last = rows.at(-1);
  const next =
    rows.length === search.count && last
      ? Buffer.from(JSON.stringify([last.effective_at, last.external_id, last.item_index])).toString("base64url")
      : null;
  return {
    resourceType: "Bundle",
    type: "searchset",
    link: [
      {
        relation: "self",
        url: pageUrl(search.after ? Buffer.from(JSON.stringify(search.after)).toString("base64url") : null),
      },
      ...(next ? [{ relation: "next", url: pageUrl(next) }] : []),
    ],
    entry: observations.map((resource) => ({
      fullUrl: `${baseUrl}/Observation/${resource.id}`,
      resource,
      search: { mode: "match" as const },
    })),
  };
}
