import fc from "fast-check";
import type { RawRequest } from "../../support/rawHttp.ts";
import { ZHANG_SAN } from "../../support/ingestion.ts";
import { everyParamSpec } from "../../support/seededTenant.ts";
import {
  brokenBody,
  fieldValue,
  headerValue,
  jsonText,
  mutated,
  objectText,
  queryString,
  stringToken,
  urlPiece,
} from "./hostileValues.ts";

/** Generators of hostile /api requests against the seeded tenant h1 (test/support/seededTenant.ts). */

export interface Credentials {
  authorToken: string;
  adminToken: string;
}

/** Headers as the proxy and a caller would send them, now and then wrong in every way. */
export function apiHeaders(
  token: string | undefined,
  others: readonly string[] = [],
): fc.Arbitrary<Record<string, string>> {
  const authorization = token
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constant(`Bearer ${token}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            `bearer ${token}`,
            `Bearer ${token}x`,
            `Bearer ${token.slice(0, -1)}`,
            token,
            ...others.map((other) => `Bearer ${other}`),
          ),
        },
        { weight: 1, arbitrary: headerValue },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: headerValue },
        { weight: 1, arbitrary: fc.constantFrom(...others.map((other) => `Bearer ${other}`), "Bearer x") },
      );
  const tenant = fc.oneof(
    { weight: 12, arbitrary: fc.constant("h1") },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "default", "h2", "H1") },
    { weight: 1, arbitrary: headerValue },
  );
  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "text/plain", "application/json; charset=utf-16") },
    { weight: 1, arbitrary: headerValue },
  );
  // The embed page's calls come from an opaque origin with an embed token (src/reports/http/embedAccess.ts).
  const origin = fc.option(fc.constantFrom("null", "https://evil.example"), { nil: undefined, freq: 6 });
  return fc
    .record({
      authorization,
      "x-service-tenant": tenant,
      "content-type": contentType,
      origin,
      "x-embed-token": fc.option(headerValue, { nil: undefined, freq: 8 }),
      "x-request-id": fc.option(headerValue, { nil: undefined, freq: 8 }),
    })
    .map(
      (headers) =>
        Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<
          string,
          string
        >,
    );
}

const reportId = fc.oneof(
  { weight: 10, arbitrary: fc.constant("every-param") },
  { weight: 1, arbitrary: fc.constantFrom("hb-monthly", "nope", "EVERY-PARAM", "every-param.", "every-param%00") },
  { weight: 1, arbitrary: urlPiece },
);
const versionText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"v1"', '"v2"', '"draft"', "null", '"v3"', '"V1"', '"v01"', '"v1 "', "1") },
  { weight: 1, arbitrary: stringToken },
  { weight: 1, arbitrary: jsonText },
);

const PARAM_VALUES = {
  day: "2026-01-10",
  period: ["2026-01-01", "2026-12-31"],
  minValue: 1,
  valueRange: [0, 200],
  itemName: "血红蛋白",
  code: "HGB",
  wards: ["A"],
  withFlag: true,
};
const PARAM_PATHS = [
  "day",
  "period",
  "period.0",
  "period.1",
  "minValue",
  "valueRange",
  "valueRange.0",
  "valueRange.1",
  "itemName",
  "code",
  "wards",
  "wards.0",
  "withFlag",
  "unknownParam",
  "__proto__",
];
/** Sent params: near-valid mostly, else any JSON. */
const paramsText = fc.oneof(
  { weight: 5, arbitrary: mutated(PARAM_VALUES, PARAM_PATHS) },
  { weight: 1, arbitrary: fc.constantFrom("{}", "null", JSON.stringify(PARAM_VALUES)) },
  { weight: 1, arbitrary: jsonText },
);

const ARG_VALUES = { onDay: "2026-01-10", value: 100, stdCode: "HGB", flagged: false };
const argsText = fc.oneof(
  { weight: 5, arbitrary: mutated(ARG_VALUES, ["onDay", "value", "stdCode", "flagged", "unknownArg"]) },
  { weight: 1, arbitrary: jsonText },
);
const drillText = fc.oneof(
  { weight: 5, arbitrary: fc.constant('"detail"') },
  { weight: 1, arbitrary: stringToken },
  { weight: 1, arbitrary: jsonText },
);

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 3 });

function viewingBody(withDrill: "never" | "always" | "sometimes"): fc.Arbitrary<string | Buffer> {
  const drill =
    withDrill === "always"
      ? drillText.map((d): string | undefined => d)
      : withDrill === "sometimes"
        ? fc.option(drillText, { nil: undefined, freq: 2 })
        : fc.constant(undefined);
  const members = fc
    .record({
      version: optional(versionText),
      params: optional(paramsText),
      drill,
      args: withDrill === "never" ? fc.constant(undefined) : optional(argsText),
    })
    .map(objectText);
  return fc.oneof(
    { weight: 8, arbitrary: members },
    { weight: 1, arbitrary: jsonText },
    { weight: 1, arbitrary: brokenBody(JSON.stringify({ version: "v1", params: PARAM_VALUES })) },
  );
}

function post(
  path: fc.Arbitrary<string>,
  headers: fc.Arbitrary<Record<string, string>>,
  body: fc.Arbitrary<string | Buffer>,
): fc.Arbitrary<RawRequest> {
  return fc.record({ method: fc.constant("POST"), path, headers, body });
}

/** Viewing calls: no credential is needed, the tenant header decides. */
export const viewing = {
  data: post(
    reportId.map((id) => `/api/reports/${id}/data`),
    apiHeaders(undefined),
    viewingBody("never"),
  ),
  drill: post(
    reportId.map((id) => `/api/reports/${id}/drill`),
    apiHeaders(undefined),
    viewingBody("always"),
  ),
  export: (format: "xlsx" | "docx") =>
    post(
      reportId.map((id) => `/api/reports/${id}/export/${format}`),
      apiHeaders(undefined),
      viewingBody("sometimes"),
    ),
  reads: fc.record({
    method: fc.constantFrom("GET", "GET", "GET", "HEAD", "OPTIONS", "DELETE"),
    path: fc.oneof(
      fc.tuple(reportId, queryString(["version"])).map(([id, q]) => `/api/reports/${id}/view${q}`),
      reportId.map((id) => `/api/reports/${id}/versions`),
      fc
        .tuple(reportId, fc.oneof(fc.constantFrom("v1", "v2", "v0", "v3", "draft", "v99999999999"), urlPiece))
        .map(([id, no]) => `/api/reports/${id}/versions/${no}/audit`),
      queryString(["version", "tenant"]).map((q) => `/api/reports${q}`),
      fc.array(urlPiece, { minLength: 1, maxLength: 3 }).map((segments) => `/api/${segments.join("/")}`),
    ),
    headers: apiHeaders(undefined),
  }),
};

const SQL_VALUES = fc
  .constantFrom(
    "delete from patients",
    "select 1; select 2",
    "copy lab_results to '/tmp/x'",
    "set role postgres",
    "select set_config('role', 'postgres', true)",
    "select * from events",
    "select * from pg_authid",
    "with x as (delete from patients returning *) select * from x",
    "select 1 into t",
    "select * from lab_results for update",
    "select {{day}}",
    "select '{{day}}'",
    "select 1 where [[ {{day}} ]]",
    "select 1 -- [[",
    "select $1",
    "select 'x",
    "select {{nope}}",
    "select pg_sleep(0.01)",
    "",
    "explain select 1",
    "select 1 [[and",
  )
  .map((sql) => JSON.stringify(sql));

const SPEC_PATHS = [
  "version",
  "title",
  "description",
  "params",
  "params.0",
  "params.0.name",
  "params.0.type",
  "params.0.default",
  "params.1.default",
  "params.2.required",
  "params.5.options",
  "params.6.options",
  "params.6.options.query",
  "queries",
  "queries.results",
  "queries.results.sql",
  "queries.wardList.sql",
  "nodes",
  "nodes.0",
  "nodes.0.query",
  "nodes.1.chart",
  "nodes.1.width",
  "nodes.1.drill",
  "nodes.1.drill.args",
  "drills",
  "drills.detail.args",
  "drills.detail.args.0.type",
  "drills.detail.queries.rows.sql",
  "drills.detail.title",
  "export",
  "export.xlsx",
  "unknownField",
];
const specText = fc.oneof(
  {
    weight: 6,
    arbitrary: mutated(everyParamSpec, SPEC_PATHS, {
      valuesAt: {
        "queries.results.sql": SQL_VALUES,
        "queries.wardList.sql": SQL_VALUES,
        "drills.detail.queries.rows.sql": SQL_VALUES,
      },
    }),
  },
  { weight: 1, arbitrary: jsonText },
);
const authoredId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("fz-a", "fz-b") },
  { weight: 1, arbitrary: urlPiece },
);

/** Authoring calls: an author token of h1 most of the time. */
export function authoring(credentials: Credentials): fc.Arbitrary<RawRequest> {
  const headers = apiHeaders(credentials.authorToken, [credentials.adminToken]);
  const draftBody = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          title: optional(fc.oneof(stringToken, fc.constant('"Fuzzed"'))),
          datasource: optional(
            fc.oneof(
              fc.constantFrom('"clinical"', '"elsewhere"'),
              fieldValue.map((v) => v ?? "null"),
            ),
          ),
          spec: specText,
        })
        .map(objectText),
    },
    { weight: 1, arbitrary: jsonText },
  );
  const publishBody = fc.oneof(
    {
      weight: 5,
      arbitrary: mutated({ mode: "dynamic", note: "fuzzed", params: PARAM_VALUES }, [
        "mode",
        "note",
        "params",
        "params.day",
        "params.period",
        "params.wards",
        "unknownField",
      ]),
    },
    { weight: 1, arbitrary: mutated({ mode: "snapshot", note: "fuzzed" }, ["mode", "note", "params"]) },
    { weight: 1, arbitrary: jsonText },
  );
  const restoreBody = fc.oneof(
    { weight: 4, arbitrary: mutated({ version: "v1", note: "back" }, ["version", "note", "unknownField"]) },
    { weight: 1, arbitrary: jsonText },
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        method: fc.constant("PUT"),
        path: authoredId.map((id) => `/api/reports/${id}/draft`),
        headers,
        body: draftBody,
      }),
    },
    {
      weight: 2,
      arbitrary: post(
        authoredId.map((id) => `/api/reports/${id}/publish`),
        headers,
        publishBody,
      ),
    },
    {
      weight: 1,
      arbitrary: post(
        authoredId.map((id) => `/api/reports/${id}/restore`),
        headers,
        restoreBody,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constant("DELETE"),
        path: authoredId.map((id) => `/api/reports/${id}/draft`),
        headers,
      }),
    },
  );
}

/** Patients and the unmatched queue: an author token of h1 most of the time. */
export function records(credentials: Credentials): fc.Arbitrary<RawRequest> {
  const headers = apiHeaders(credentials.authorToken, [credentials.adminToken]);
  const patientRef = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 30 }).map((n) => `P-FZ-${n}`) },
    { weight: 1, arbitrary: fc.constantFrom("P001", "p001", ".P", "-P", "P".repeat(65)) },
    { weight: 1, arbitrary: urlPiece },
  );
  const patient = mutated({ name: "王五", idCard: ZHANG_SAN.idCard, hisPatientId: "H-7", ward: "B", active: true }, [
    "name",
    "idCard",
    "hisPatientId",
    "ward",
    "active",
    "unknownField",
  ]);
  const kind = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("lab", "exam") }, { weight: 1, arbitrary: urlPiece });
  const externalId = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("H1-UNMATCHED", "H1-ECG-UNMATCHED", "H1-M1", "H1-ECHO", "nope") },
    { weight: 1, arbitrary: urlPiece },
  );
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        method: fc.constant("PUT"),
        path: patientRef.map((ref) => `/api/patients/${ref}`),
        headers,
        body: fc.oneof({ weight: 5, arbitrary: patient }, { weight: 1, arbitrary: jsonText }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constant("GET"),
        path: fc.constantFrom("/api/patients", "/api/unmatched", "/api/patients/", "/api/unmatched?kind=lab"),
        headers,
      }),
    },
    {
      weight: 3,
      arbitrary: post(
        fc
          .tuple(kind, externalId, fc.constantFrom("claim", "dismiss"))
          .map(([k, id, action]) => `/api/unmatched/${k}/${id}/${action}`),
        headers,
        fc.oneof(
          {
            weight: 5,
            arbitrary: mutated({ patientRef: "P001", reason: "not ours" }, ["patientRef", "reason", "unknownField"]),
          },
          { weight: 1, arbitrary: jsonText },
        ),
      ),
    },
  );
}

/** The operator's calls: the ADMIN_TOKEN most of the time. `clientId` is a client made for the fuzzing. */
export function administration(credentials: Credentials, clientId: string): fc.Arbitrary<RawRequest> {
  const headers = apiHeaders(credentials.adminToken, [credentials.authorToken]);
  const someClient = fc.oneof({ weight: 2, arbitrary: fc.constant(clientId) }, { weight: 1, arbitrary: urlPiece });
  const named = mutated({ name: "Fuzzed LIS", tenant: "fz" }, ["name", "tenant", "unknownField"]);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: post(
        fc.constantFrom("/api/admin/clients", "/api/admin/authors"),
        headers,
        fc.oneof({ weight: 5, arbitrary: named }, { weight: 1, arbitrary: jsonText }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        method: fc.constant("PUT"),
        path: someClient.map((id) => `/api/admin/clients/${id}/code-map`),
        headers,
        body: fc.oneof(
          mutated({ codeMap: { "LOCAL-1": "HGB", 本地钾: "K" } }, ["codeMap", "codeMap.LOCAL-1", "unknownField"]),
          jsonText,
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constant("DELETE"),
        path: urlPiece.map((id) => `/api/admin/clients/${id}`),
        headers,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constant("GET"),
        path: queryString(["x"]).map((q) => `/api/admin/projections${q}`),
        headers,
      }),
    },
  );
}
