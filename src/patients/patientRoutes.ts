import { commandContextOf, principalOf } from "../http/requestState.ts";
import Router from "@koa/router";
import type { Context } from "koa";
import { withWardScope } from "../../db/wardScope.ts";
import { z } from "zod";
import { savePatient, type IdCardRegister } from "../../commands/patients/managePatients.ts";
import { PATIENT_REF_PATTERN, registerPatientInput } from "../../commands/patients/registerPatient.ts";
import type { EventStore } from "../../db/eventStore.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { isCalendarDate, localDate, parseLocalDateTime } from "../../db/localDateTime.ts";
import { defaultChartItems, patientResultItems, patientResults } from "../../queries/patients/patientResults.ts";
import { listPatients, patientByRef, patientVisible } from "../../queries/patients/patients.ts";
import { requireRole } from "../http/authorAuth.ts";
import { listTurn } from "../http/listTurns.ts";
import { HttpError } from "../http/httpError.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { parseBody } from "../http/validate.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";

/** `GET /api/patients?q=`: the search text of the staff pages' patient picker (see listPatients). */
export const listQuery = z.strictObject(
  {
    q: z.string({ error: "q is a search text, sent once" }).max(100, "q has at most 100 characters").optional(),
    ...pageQuery,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The query parameters are q, a search text (name, patientRef, hisPatientId or the id card as shown masked), limit and cursor"
        : undefined,
  },
);

const DAY_PROBLEM = "must be a day written yyyy-MM-dd, e.g. 2026-03-01";
const AS_OF_PROBLEM =
  "asOf must be a real local moment written yyyy-MM-dd HH:mm:ss, e.g. asOf=2026-03-01%2018:00:00, or be left out for now";
const MAX_CHART_ITEMS = 20;
const MAX_CHART_YEARS = 10;

/** `GET /api/patients/{patientRef}/results` (contract D.7): which items, over which days. */
export const resultsQuery = z.strictObject(
  {
    from: z
      .string({ error: `from ${DAY_PROBLEM}` })
      .refine(isCalendarDate, `from ${DAY_PROBLEM}`)
      .optional()
      .meta({ description: "First day (yyyy-MM-dd); a year before `to` when left out", example: "2025-03-01" }),
    to: z
      .string({ error: `to ${DAY_PROBLEM}` })
      .refine(isCalendarDate, `to ${DAY_PROBLEM}`)
      .optional()
      .meta({ description: "Last day (yyyy-MM-dd), included; today when left out", example: "2026-02-28" }),
    codes: z
      .string({ error: "codes is one comma-separated list of standard item codes, e.g. codes=KTV,HGB" })
      .optional()
      .meta({
        description:
          "Standard item codes, comma-separated, in the order the series are answered; the core numeric items when left out",
        example: "KTV,HGB,P",
      }),
    asOf: z
      .string({ error: AS_OF_PROBLEM })
      .refine((value) => parseLocalDateTime(value) !== null, AS_OF_PROBLEM)
      .optional()
      .meta({
        description:
          "Contract F.2: derived values as the formula versions in force at the end of this local second derived them (yyyy-MM-dd HH:mm:ss); now when left out",
        example: "2026-03-01 18:00:00",
      }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The query parameters are from, to (days, yyyy-MM-dd), codes (comma-separated standard item codes) and asOf (yyyy-MM-dd HH:mm:ss)"
        : undefined,
  },
);

function chartItems(dictionary: Dictionary, codes: string | undefined): DictionaryItem[] {
  if (codes === undefined || codes.trim() === "") return defaultChartItems(dictionary);
  const wanted = [
    ...new Set(
      codes
        .split(",")
        .map((code) => code.trim().toUpperCase())
        .filter((code) => code !== ""),
    ),
  ];
  if (wanted.length > MAX_CHART_ITEMS)
    throw new HttpError(400, `Ask for at most ${MAX_CHART_ITEMS} codes at a time; ${wanted.length} were sent.`);
  const numeric = new Map(
    dictionary.items.filter((item) => item.valueType === "numeric").map((item) => [item.code, item]),
  );
  const unknown = wanted.filter((code) => !numeric.has(code));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      `codes: ${unknown.join(", ")} ` +
        `${unknown.length === 1 ? "is not a numeric item" : "are not numeric items"} of the dictionary; use ` +
        `codes such as ${[...numeric.keys()].slice(0, 12).join(", ")} (GET /open/v1/dictionary lists them all).`,
    );
  }
  return wanted.map((code) => numeric.get(code)!);
}

function chartDays(from: string | undefined, to: string | undefined): { fromDay: string; toDay: string } {
  const toDay = to ?? localDate(new Date());
  const fromDay =
    from ?? `${String(Number(toDay.slice(0, 4)) - 1).padStart(4, "0")}${toDay.slice(4)}`.replace(/-02-29$/, "-02-28");
  if (fromDay > toDay)
    throw new HttpError(
      400,
      `from (${fromDay}) is after to (${toDay}); send from on or before to.`,
      {},
      "chart-range-invalid",
    );
  if (Number(toDay.slice(0, 4)) - Number(fromDay.slice(0, 4)) > MAX_CHART_YEARS)
    throw new HttpError(400, `Ask for at most ${MAX_CHART_YEARS} years at a time.`, {}, "chart-range-invalid");
  return { fromDay, toDay };
}

export function patientRoutes(
  store: EventStore,
  adminToken: string | undefined,
  dictionary: Dictionary,
  idCards: IdCardRegister,
  access: AccessRecording,
): Router {
  const router = new Router({ prefix: "/api/patients" });
  router.use(requireRole(adminToken, "clinician"));

  router.get("/", access.recorded, listTurn, async (ctx) => {
    const query = parseBody(listQuery, ctx.query);
    const page = pageOf(query, z.string());
    const rows = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      listPatients(reader, query.q, rowsFor(page)),
    );
    const answered = answerPage(ctx, page, rows, (row) => row.patientRef);
    if (answered.length > 0) showing(ctx, { patientRefs: answered.map((patient) => patient.patientRef) });
    ctx.body = answered;
  });

  router.get("/:patientRef/results", access.recorded, async (ctx) => {
    const patientRef = ctx.params.patientRef!;
    // About this patient from here on, shown or not: an attempt on a patient is part of its log.
    showing(ctx, { patientRefs: [patientRef] });
    const query = parseBody(resultsQuery, ctx.query);
    const items = chartItems(dictionary, query.codes);
    const days = chartDays(query.from, query.to);
    // The end of the second asked for, as reconciliation's asOf (contract D.3).
    const asOf = query.asOf === undefined ? undefined : new Date(parseLocalDateTime(query.asOf)!.getTime() + 999);
    const answer = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      patientResults(reader, { patientRef, items, ...days, asOf }),
    );
    if (!answer) throw noSuchPatient(patientRef);
    ctx.body = answer;
  });

  // The items the chart offers to draw: staff pick any the patient has (the chart opened from an alert shows its item).
  router.get("/:patientRef/result-items", access.recorded, async (ctx) => {
    const patientRef = patientRefOf(ctx);
    showing(ctx, { patientRefs: [patientRef] });
    const items = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      patientResultItems(reader, dictionary, patientRef),
    );
    if (!items) throw noSuchPatient(patientRef);
    ctx.body = items;
  });

  router.get("/:patientRef", access.recorded, async (ctx) => {
    const patientRef = patientRefOf(ctx);
    // An attempt on a patient is part of its log, found or not (as the chart's results).
    showing(ctx, { patientRefs: [patientRef] });
    // read.patients under the caller's ward scope: another ward's patient is not found, as an unknown one.
    const patient = await readAsTenant(store.db, ctx.state.tenant, (reader) => patientByRef(reader, patientRef));
    if (!patient) throw noSuchPatient(patientRef);
    ctx.body = patient;
  });

  router.put("/:patientRef", access.recorded, async (ctx) => {
    const patientRef = patientRefOf(ctx);
    const input = parseBody(registerPatientInput, ctx.request.body);
    await refuseOutsideWards(ctx, store, patientRef, input.ward ?? null);
    await savePatient(commandContextOf(ctx, store), idCards, ctx.state.tenant, patientRef, input);
    const saved = await readAsTenant(store.db, ctx.state.tenant, (reader) => patientByRef(reader, patientRef));
    // The answer shows the patient as registered, which may hold more than the call sent (E.4).
    if (saved) showing(ctx, { patientRefs: [patientRef] });
    ctx.body = saved;
  });
  return router;
}

/** The path's patientRef, or 400 when it cannot be one. */
function patientRefOf(ctx: { params: Record<string, string | undefined> }): string {
  const patientRef = ctx.params.patientRef!;
  if (!PATIENT_REF_PATTERN.test(patientRef)) {
    throw new HttpError(
      400,
      "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
    );
  }
  return patientRef;
}

/** An unknown patient, or one of a ward outside the caller's: the same answer, as if it did not exist (contract E.2). */
function noSuchPatient(patientRef: string): HttpError {
  return new HttpError(
    404,
    `No patient ${patientRef} in this tenant; GET /api/patients lists them.`,
    {},
    "patient-not-found",
  );
}

/**
 * A caller with wards acts on the patients of its wards only (contract E.2): another ward's
 * patient answers 404 as if there were none, and a patient is registered or moved into one of
 * the caller's wards only.
 */
async function refuseOutsideWards(
  ctx: Context,
  store: EventStore,
  patientRef: string,
  ward: string | null,
): Promise<void> {
  const wards = principalOf(ctx).wards;
  if (wards === null) return;
  const tenant: string = ctx.state.tenant;
  const seen = await readAsTenant(store.db, tenant, (reader) => patientVisible(reader, patientRef));
  const exists =
    seen ||
    (await withWardScope(null, () => readAsTenant(store.db, tenant, (reader) => patientVisible(reader, patientRef))));
  if (exists && !seen) throw noSuchPatient(patientRef);
  if (ward === null || !wards.includes(ward)) {
    throw new HttpError(
      403,
      `You act on the patients of your wards only: give ward as one of ${wards.map((name) => JSON.stringify(name)).join(", ")}.`,
      {},
      "patient-outside-wards",
    );
  }
}
