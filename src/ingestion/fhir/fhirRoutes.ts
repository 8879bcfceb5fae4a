import { clientOf } from "../../http/requestState.ts";
import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { CommandError } from "../../../commands/kit/commandError.ts";
import { pushingClient } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";
import {
  patientsByIdCard,
  reportWithResults,
  searchObservations,
} from "../../../queries/ingestion/fhirObservations.ts";
import { bundleSchema } from "./bundleSchema.ts";
import { capabilityStatement } from "./capabilityStatement.ts";
import { operationOutcome, type Issue } from "./operationOutcome.ts";
import { NATIONAL_ID_SYSTEM } from "./bundleToLabReports.ts";
import { textOfFhirId } from "./fhirIds.ts";
import { derivedCodes, diagnosticReportResource, observationResource, patientResource } from "./fhirResources.ts";
import { observationSearch, searchsetBundle } from "./observationSearch.ts";
import { pushBundle } from "./pushBundle.ts";
import type { PushTally } from "../../metrics/serviceMetrics.ts";
import { requireRole } from "../../http/authorAuth.ts";
import { interfaceErrors } from "../../http/failureOf.ts";
import { HttpError } from "../../http/httpError.ts";
import { jsonBody } from "../../http/jsonBody.ts";
import { requireClient } from "../openV1/clientAuth.ts";
import type { OpenApiDeps } from "../openV1/openApiRoutes.ts";
import { rateLimitPerClient } from "../openV1/rateLimit.ts";
import type { AccessRecording } from "../../access/accessRecording.ts";
import { showing } from "../../access/shownSubjects.ts";
import { principalOf } from "../../http/requestState.ts";
import { monthAnswer } from "../../../queries/quality/monthAnswer.ts";
import { measureReportBundle, measureReportPeriod, measureReports } from "./measureReports.ts";

/*
 * FHIR R4 (contract D.6) under /fhir/r4: what the service can do (metadata) and lab reports posted
 * as Bundles of DiagnosticReports, with the open API's client keys and rate limit. Every answer is
 * a FHIR resource, errors OperationOutcomes with the HTTP status.
 */

export const FHIR_JSON = "application/fhir+json; charset=utf-8";
/** A Bundle of a thousand DiagnosticReports of twenty Observations is about 16 MB of JSON. */
const FHIR_BODY_LIMIT = 16 * 1024 * 1024;

function answer(ctx: Context, status: number, resource: unknown): void {
  ctx.status = status;
  ctx.type = FHIR_JSON;
  ctx.body = resource;
}

/** The OperationOutcome issue type of each status a failure is answered with. */
const ISSUE_OF_STATUS: Record<number, Issue["code"]> = {
  400: "invalid",
  401: "login",
  403: "forbidden",
  404: "not-found",
  409: "conflict",
  413: "too-costly",
  415: "not-supported",
  429: "throttled",
  500: "exception",
  503: "transient",
};
const SENTENCES = {
  unavailable: "The service cannot reach its database right now; post again in a few seconds, nothing was lost.",
  fault: "The service failed to handle this call; post again, and report the X-Request-Id if it persists.",
};

/** The one place /fhir/r4 failures are shaped: an OperationOutcome saying how to fix the call. Faults of ours are logged whole and answered generically. */
export function fhirErrors(log: Logger): Middleware {
  return interfaceErrors(log, SENTENCES, {
    write: (ctx, status, message) =>
      answer(ctx, status, operationOutcome([{ code: ISSUE_OF_STATUS[status] ?? "invalid", diagnostics: message }])),
    unmatched: (ctx) =>
      answer(
        ctx,
        404,
        operationOutcome([
          {
            code: "not-supported",
            diagnostics: `There is no ${ctx.method} ${ctx.path}; GET /fhir/r4/metadata lists what this server does.`,
          },
        ]),
      ),
  });
}

export function fhirRoutes(
  deps: OpenApiDeps,
  adminToken: string | undefined,
  startedAt: Date,
  access: AccessRecording,
  /** PUBLIC_URL: the base of the Measures' canonical URLs; unset, the base the call came to. */
  publicUrl?: string,
): Router {
  const router = new Router({ prefix: "/fhir/r4" });
  const statement = capabilityStatement(startedAt);
  router.get("/metadata", (ctx) => answer(ctx, 200, statement));

  router.post("/", requireClient(), rateLimitPerClient(deps.rateLimit), jsonBody(FHIR_BODY_LIMIT), async (ctx) => {
    if (!ctx.is(["application/fhir+json", "application/json"])) {
      throw new HttpError(415, "Send the Bundle as Content-Type: application/fhir+json.");
    }
    const parsed = bundleSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CommandError("invalid", `${["Bundle", ...issue.path].join(".")}: ${issue.message}`);
    }
    const client = clientOf(ctx);
    const tally: PushTally = {
      kind: reportKinds.lab.name,
      tenant: client.tenant,
      client: client.clientId,
      outcomes: [],
    };
    ctx.state.push = tally;
    const answered = await pushBundle(deps, pushingClient(client), parsed.data, ctx.state.requestId);
    tally.outcomes = answered.outcomes;
    answer(ctx, answered.status, answered.body);
  });

  const author = requireRole(adminToken, "clinician");
  const baseOf = (ctx: Context) => `${ctx.protocol}://${ctx.host}/fhir/r4`;

  router.get("/Patient", author, access.recorded, async (ctx) => {
    const identifier = ctx.query.identifier;
    const [system, idCard] =
      typeof identifier === "string" && identifier.includes("|")
        ? [identifier.slice(0, identifier.indexOf("|")), identifier.slice(identifier.indexOf("|") + 1)]
        : [null, null];
    if (system !== NATIONAL_ID_SYSTEM || !idCard || Object.keys(ctx.query).length !== 1) {
      throw new CommandError("invalid", `Search patients by identifier=${NATIONAL_ID_SYSTEM}|<national id>, once.`);
    }
    const patients = await readAsTenant(deps.store.db, ctx.state.tenant, (reader) => patientsByIdCard(reader, idCard));
    if (patients.length > 0) showing(ctx, { patientRefs: patients.map((patient) => patient.patient_ref) });
    const base = baseOf(ctx);
    answer(ctx, 200, {
      resourceType: "Bundle",
      type: "searchset",
      link: [
        { relation: "self", url: `${base}/Patient?${new URLSearchParams({ identifier: `${system}|${idCard}` })}` },
      ],
      entry: patients.map((patient) => {
        const resource = patientResource(patient);
        return { fullUrl: `${base}/Patient/${resource.id}`, resource, search: { mode: "match" } };
      }),
    });
  });

  router.get("/DiagnosticReport/:id", author, access.recorded, async (ctx) => {
    const externalId = textOfFhirId(ctx.params.id!);
    const report =
      externalId === null
        ? null
        : await readAsTenant(deps.store.db, ctx.state.tenant, (reader) => reportWithResults(reader, externalId));
    if (!report)
      throw new CommandError(
        "not-found",
        `There is no DiagnosticReport ${ctx.params.id}; its id is the report's externalId, each character ` +
          "other than letters, digits and - written . and its bytes in hex.",
      );
    showing(ctx, {
      patientRefs: [report.patient_ref],
      reports: [{ kind: reportKinds.lab.name, externalId: report.external_id }],
    });
    answer(ctx, 200, diagnosticReportResource(report, deps.dictionary));
  });

  router.get("/Observation", author, access.recorded, async (ctx) => {
    const search = observationSearch(ctx.query, deps.dictionary);
    // A search names its patient: recorded whether or not it finds results.
    showing(ctx, { patientRefs: [search.patientRef] });
    const rows = await readAsTenant(deps.store.db, ctx.state.tenant, (reader) =>
      searchObservations(reader, search, derivedCodes(deps.dictionary)),
    );
    const base = baseOf(ctx);
    const pageUrl = (cursor: string | null) => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(ctx.query))
        if (name !== "_cursor") for (const one of [value ?? []].flat()) params.append(name, one);
      if (cursor) params.set("_cursor", cursor);
      return `${base}/Observation?${params}`;
    };
    answer(
      ctx,
      200,
      searchsetBundle(
        rows.map((row) => observationResource(row, deps.dictionary)),
        rows,
        search,
        base,
        pageUrl,
      ),
    );
  });

  /*
   * A month's quality figures (contract G.2), as the Observations are read: a clinician or above;
   * a caller without wards gets the whole tenant's, one with wards each of its wards' (decision 0081).
   * Counts name no patient, so the answer is no access record.
   */
  router.get("/MeasureReport", author, async (ctx) => {
    const month = measureReportPeriod(ctx.query);
    const tenant: string = ctx.state.tenant;
    const wards = principalOf(ctx).wards;
    const answers = [];
    for (const ward of wards ?? [null]) {
      const answer = await monthAnswer(deps.store.db, tenant, month, ward);
      if (answer) answers.push(answer);
    }
    const measureBase = `${publicUrl?.replace(/\/+$/, "") ?? `${ctx.protocol}://${ctx.host}`}/fhir/r4/Measure`;
    const now = new Date();
    answer(
      ctx,
      200,
      measureReportBundle(
        answers.flatMap((one) => measureReports(one, measureBase, now)),
        `${baseOf(ctx)}/MeasureReport?${new URLSearchParams({ period: month })}`,
      ),
    );
  });
  return router;
}
