import { expect } from "chai";
import fc from "fast-check";
import type { RawAnswer, RawRequest } from "../support/rawHttp.ts";
import { examReport, labReport } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { fuzz, type FuzzTarget } from "./support/fuzzing.ts";
import { brokenBody, headerValue, jsonText, mutated, queryString, urlPiece } from "./support/hostileValues.ts";
import { startHostileService, type HostileService } from "./support/hostileService.ts";

/** Contract B: every /open/v1 call, fuzzed in its body, query string and headers. */

const CONCURRENCY = 6;

const LAB_FIELDS = [
  "externalId",
  "reportNo",
  "patient",
  "patient.idCard",
  "patient.name",
  "patient.hisPatientId",
  "panelName",
  "specimen",
  "collectedAt",
  "reportedAt",
  "status",
  "labName",
  "items",
  "items.0",
  "items.0.itemCode",
  "items.0.itemName",
  "items.0.value",
  "items.0.unit",
  "items.0.refLow",
  "items.0.refHigh",
  "items.0.abnormalFlag",
  "items.0.resultType",
  "items.1.value",
  "items.2",
  "unknownField",
];
const EXAM_FIELDS = [
  "externalId",
  "reportNo",
  "patient",
  "patient.idCard",
  "patient.hisPatientId",
  "examType",
  "examName",
  "examinedAt",
  "reportedAt",
  "status",
  "department",
  "reporter",
  "reviewer",
  "findings",
  "conclusion",
  "items",
  "items.0",
  "items.0.itemCode",
  "items.0.value",
  "items.0.unit",
  "unknownField",
];

/** The key most of the time (to reach validation), else a wrong, malformed or missing one. */
function openHeaders(key: string): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { weight: 14, arbitrary: fc.constant(`Bearer ${key}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `bearer ${key}`,
        `Bearer   ${key}  `,
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, -1)}`,
        `Token ${key}`,
        key,
        "Bearer dhk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      ),
    },
    { weight: 1, arbitrary: headerValue },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const tenant = fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constant("h1") },
    { weight: 2, arbitrary: headerValue },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        "text/plain",
        "application/json; charset=latin1",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
      ),
    },
    { weight: 1, arbitrary: headerValue },
  );
  return fc
    .record({
      authorization,
      "x-service-tenant": tenant,
      "content-type": contentType,
      "x-request-id": fc.option(headerValue, { nil: undefined }),
      "if-none-match": fc.option(headerValue, { nil: undefined, freq: 8 }),
    })
    .map(
      (headers) =>
        Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<
          string,
          string
        >,
    );
}

function pushBodies(kind: "lab" | "exam"): fc.Arbitrary<string | Buffer> {
  // A few ids shared by all runs: valid pushes create, update, leave unchanged and race one another.
  const base = fc
    .integer({ min: 0, max: 20 })
    .map((n) => (kind === "lab" ? labReport(`FZ-L${n}`) : examReport(`FZ-E${n}`)));
  const report = base.chain((r) =>
    fc.oneof(
      { weight: 4, arbitrary: mutated(r, kind === "lab" ? LAB_FIELDS : EXAM_FIELDS) },
      { weight: 1, arbitrary: fc.constant(JSON.stringify(r)) },
    ),
  );
  const valid = JSON.stringify({ reports: [kind === "lab" ? labReport("FZ-CUT") : examReport("FZ-CUT")] });
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(report, { minLength: 1, maxLength: 3 })
        .map((reports) => `{"reports":[${reports.join(",")}]}`),
    },
    { weight: 1, arbitrary: jsonText.map((reports) => `{"reports":${reports}}`) },
    { weight: 2, arbitrary: jsonText },
    { weight: 2, arbitrary: brokenBody(valid) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"reports":[]}',
        '{"reports":null}',
        "{}",
        "[]",
        '""',
        "null",
        '{"reports":[{}]}',
        '{"reports":{"0":{}}}',
        `{"reports":[${Array(101).fill("{}").join(",")}]}`,
      ),
    },
  );
}

/** A push answered 200 accounts for every report it was sent. */
function pushAccountsForEveryReport(_request: RawRequest, answer: RawAnswer): string | null {
  if (answer.status !== 200) return null;
  const { data } = JSON.parse(answer.text) as {
    data: { total: number; accepted: number; rejected: number; results: Array<{ status: string }> };
  };
  if (data.total !== data.accepted + data.rejected || data.results.length !== data.total)
    return `push counts do not add up: ${JSON.stringify(data).slice(0, 200)}`;
  if (data.results.filter((r) => r.status === "REJECTED").length !== data.rejected)
    return "rejected count differs from REJECTED entries";
  return null;
}

describe("hostile input: the open API (/open/v1), fuzzed", function () {
  this.timeout(120_000);
  let hostile: HostileService;
  const sentBy: Record<string, number> = {};

  before(async () => {
    hostile = await startHostileService();
  });
  after(async () => {
    const total = Object.values(sentBy).reduce((a, b) => a + b, 0);
    console.log(
      `      fuzzed /open/v1 inputs: ${total} (${Object.entries(sentBy)
        .map(([name, n]) => `${name} ${n}`)
        .join(", ")})`,
    );
    await hostile?.stop();
  });

  const run = async (target: FuzzTarget) => {
    sentBy[target.name] = await fuzz(target, {
      client: hostile.client,
      concurrency: CONCURRENCY,
      faults: hostile.faults,
    });
  };
  const key = () => hostile.tenant.client.key;

  for (const kind of ["lab", "exam"] as const) {
    it(`POST /open/v1/${kind}/reports: any body and headers get a 2xx/4xx envelope, never a fault`, async () => {
      await run({
        name: `${kind} push`,
        iface: "open",
        count: kind === "lab" ? 1200 : 600,
        requests: fc.record({
          method: fc.constant("POST"),
          path: fc.constant(`/open/v1/${kind}/reports`),
          headers: openHeaders(key()),
          body: pushBodies(kind),
        }),
        check: pushAccountsForEveryReport,
      });
    });
  }

  it("GET /open/v1/dict/lab-items: any query string and If-None-Match", async () => {
    await run({
      name: "dictionary",
      iface: "open",
      count: 900,
      requests: fc.record({
        method: fc.constant("GET"),
        path: queryString(["category"]).map((q) => `/open/v1/dict/lab-items${q}`),
        headers: openHeaders(key()),
      }),
    });
  });

  it("GET /open/v1/reconcile/{lab,exam}: any query string", async () => {
    const dates = fc.oneof(
      queryString(["date"]),
      fc.constantFrom(
        "?date=2026-03-01",
        "?date=2026-02-29",
        "?date=2024-02-29",
        "?date=2026-03-01&date=2026-03-02",
        "?date=20260301",
        "?date=+2026-03-01",
      ),
    );
    await run({
      name: "reconcile",
      iface: "open",
      count: 900,
      requests: fc.record({
        method: fc.constant("GET"),
        path: fc.tuple(fc.constantFrom("lab", "exam"), dates).map(([kind, q]) => `/open/v1/reconcile/${kind}${q}`),
        headers: openHeaders(key()),
      }),
    });
  });

  it("GET /open/v1/ping: any headers", async () => {
    await run({
      name: "ping",
      iface: "open",
      count: 600,
      requests: fc.record({
        method: fc.constant("GET"),
        path: queryString(["x"]).map((q) => `/open/v1/ping${q}`),
        headers: openHeaders(key()),
      }),
    });
  });

  it("any other method or path below /open/v1 answers in the envelope", async () => {
    const paths = fc.oneof(
      fc.array(urlPiece, { minLength: 1, maxLength: 3 }).map((segments) => `/open/v1/${segments.join("/")}`),
      fc.constantFrom(
        "/open/v1",
        "/open/v1/",
        "/open/v1/lab/reports/",
        "/open/v1//ping",
        "/open/v1/lab/reports/..",
        "/open/v1/reconcile",
        "/open/v1/dict",
        "/open/v1/%2e%2e/api/admin/projections",
      ),
    );
    await run({
      name: "other paths",
      iface: "open",
      count: 600,
      requests: fc.record({
        method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
        path: paths,
        headers: openHeaders(key()),
        body: fc.option(jsonText, { nil: undefined }),
      }),
    });
  });

  it("still answers /healthz and a valid push afterwards, and every read model took every report accepted", async () => {
    expect((await hostile.client.send({ method: "GET", path: "/healthz" })).status).to.equal(200);
    const push = await hostile.tenant.push("lab", [labReport("AFTER-FUZZ")]);
    expect(push.body.data.results[0].status).to.equal("CREATED");
    // An accepted value the read tables cannot take (a date in year 0000 was one) stops them for every tenant.
    await projectionsCaughtUp(hostile.service.url!);
  });
});
