import { expect } from "chai";
import pg from "pg";
import { NATIONAL_ID_SYSTEM } from "../../src/ingestion/fhir/bundleToLabReports.ts";
import { fhirId } from "../../src/ingestion/fhir/fhirIds.ts";
import { localDateTime, localIsoDateTime } from "../../db/localDateTime.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { ADMIN, httpClient, type Answer } from "../support/http.ts";
import { ingestionTenant, labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { sample, scrape } from "../support/metrics.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, until } from "../support/service.ts";
import { zipText } from "../support/zipText.ts";

/*
 * The access log (contract E.4): every answer that shows a patient to a person or system leaves one
 * record — who, with which credential and roles, by which route, which patients, in which request,
 * and how it ended — written off the answer's path, readable by the operator per patient and per
 * tenant within 2 s, and never at the cost of the answer when the database refuses the write.
 */

const METRICS_TOKEN = "metrics-token-0123456789";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));

/** A report of the drill-through's kind: one row per patient, with its patient_ref. */
const patientsSpec = {
  version: 1,
  title: "Patients by ward",
  params: [],
  queries: {
    patients: { sql: "select patient_ref, name, ward from patients order by patient_ref" },
    wards: { sql: "select distinct ward from patients where ward is not null order by 1" },
  },
  nodes: [
    { id: "tbl", type: "table", title: "Patients", query: "patients" },
    { id: "wards", type: "table", title: "Wards", query: "wards" },
  ],
};

/** A record as the access-log routes answer it. */
type AccessRecord = AccessRecordAnswer;

describe("the access log: who was shown which patient (contract E.4)", function () {
  this.timeout(60_000);
  let service: RunningService;
  let h1: SeededTenant;
  let authorId: string;

  before(async () => {
    service = await startTestService({
      projections: allProjections,
      env: { METRICS_TOKEN, LEDGER_SEAL_SECONDS: "0.2" },
    });
    h1 = await seedTenant(service, "h1");
    authorId = (await service.db.query("select author_id from read.authors where tenant = 'h1'")).rows[0].author_id;
    for (const [step, answer] of [
      [
        "draft",
        await h1.asAuthor("PUT", "/api/reports/patients-by-ward/draft", {
          title: "Patients by ward",
          spec: patientsSpec,
        }),
      ],
      ["publish", await h1.asAuthor("POST", "/api/reports/patients-by-ward/publish", { mode: "dynamic" })],
      [
        "second patient",
        await h1.asAuthor("PUT", "/api/patients/P002", { name: "王五", idCard: "110105194912310038", ward: "B" }),
      ],
    ] as const) {
      if (answer.status >= 300) throw new Error(`${step}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  });
  after(() => service?.stop());

  /** A call of tenant `tenant`, with the request id the service gave it, to find its record by. */
  async function traced(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; tenant?: string } = {},
  ) {
    const answer = await httpClient(service.url!)(method, path, { tenant: "h1", ...options });
    return { ...answer, requestId: answer.headers.get("x-request-id")!, answeredAt: Date.now() };
  }

  /** Every record of the tenant, through the admin route's pages. */
  async function allRecords(tenant = "h1"): Promise<AccessRecord[]> {
    const records: AccessRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer<{ records: AccessRecord[]; next: string | null }> = await httpClient(service.url!)(
        "GET",
        `/api/admin/access-log?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
        { token: ADMIN, tenant },
      );
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      records.push(...page.body.records);
      cursor = page.body.next;
    } while (cursor);
    return records;
  }

  /** The record of a request, once it is visible; with how long after the answer that was. */
  async function recordOf(
    call: { requestId: string; answeredAt: number },
    tenant = "h1",
    timeoutMs = 5000,
  ): Promise<AccessRecord & { visibleAfterMs: number }> {
    const record = await until(
      async () => (await allRecords(tenant)).find((one) => one.requestId === call.requestId),
      timeoutMs,
      50,
    );
    return { ...record, visibleAfterMs: Date.now() - call.answeredAt };
  }

  /** True once a later recorded call is visible and `call` has no record: records are written and applied in order. */
  async function hasNoRecord(call: { requestId: string }): Promise<boolean> {
    const marker = await traced("GET", "/api/patients", { token: h1.authorToken });
    await recordOf(marker);
    return !(await allRecords()).some((one) => one.requestId === call.requestId);
  }

  it("records the patient list with who, the author id, roles, the route as declared and the patients shown, visible within 2 s", async () => {
    const call = await traced("GET", "/api/patients", { token: h1.authorToken });
    expect(call.status).to.equal(200);
    const record = await recordOf(call);
    expect(record).to.deep.include({
      who: "Nurse Chen",
      credential: authorId,
      roles: ["author"],
      action: "GET /api/patients",
      requestId: call.requestId,
      outcome: "shown",
    });
    expect(record.patientRefs).to.have.members(["P001", "P002"]);
    expect(record.visibleAfterMs, "visible after the answer").to.be.below(2000);
    expect(record.at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it("records the chart's results of a patient, and an attempt on a patient that does not exist", async () => {
    const shown = await traced("GET", "/api/patients/P001/results?from=2026-01-01&to=2026-12-31", {
      token: h1.authorToken,
    });
    expect(shown.status).to.equal(200);
    expect(await recordOf(shown)).to.deep.include({
      action: "GET /api/patients/{patientRef}/results",
      patientRefs: ["P001"],
      outcome: "shown",
    });
    const missing = await traced("GET", "/api/patients/P404/results", { token: h1.authorToken });
    expect(missing.status).to.equal(404);
    expect(await recordOf(missing)).to.deep.include({
      action: "GET /api/patients/{patientRef}/results",
      patientRefs: ["P404"],
      outcome: "not-found",
    });
    const items = await traced("GET", "/api/patients/P001/result-items", { token: h1.authorToken });
    expect(items.status).to.equal(200);
    expect(await recordOf(items)).to.deep.include({
      action: "GET /api/patients/{patientRef}/result-items",
      patientRefs: ["P001"],
      outcome: "shown",
    });
  });

  it(
    "records a patient shown by its patientRef in that patient's access log, and an attempt on one that does not " +
      "exist; a patientRef there cannot be names nobody",
    async () => {
      const shown = await traced("GET", "/api/patients/P001", { token: h1.authorToken });
      expect(shown.status).to.equal(200);
      const logged = await until(async () => {
        const log = await httpClient(service.url!)("GET", "/api/patients/P001/access-log", {
          token: ADMIN,
          tenant: "h1",
        });
        return (log.body as AccessRecord[]).find((record) => record.requestId === shown.requestId);
      });
      expect(logged).to.deep.include({
        who: "Nurse Chen",
        credential: authorId,
        roles: ["author"],
        action: "GET /api/patients/{patientRef}",
        patientRefs: ["P001"],
        outcome: "shown",
      });
      const missing = await traced("GET", "/api/patients/P404", { token: h1.authorToken });
      expect(missing.status).to.equal(404);
      expect(await recordOf(missing)).to.deep.include({
        action: "GET /api/patients/{patientRef}",
        patientRefs: ["P404"],
        outcome: "not-found",
      });
      const bad = await traced("GET", "/api/patients/-P001", { token: h1.authorToken });
      expect(bad.status).to.equal(400);
      expect(await hasNoRecord(bad)).to.equal(true);
    },
  );

  it("records the alerts listed, and each alert sent down the alert stream", async () => {
    const abort = new AbortController();
    const response = await fetch(`${service.url}/api/alerts/stream`, {
      headers: { authorization: `Bearer ${h1.authorToken}`, "x-service-tenant": "h1" },
      signal: abort.signal,
    });
    const streamRequestId = response.headers.get("x-request-id")!;
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes(": listening")) text += (await reader.read()).value ?? "";
    const critical = labReport("H1-CRITICAL", {
      collectedAt: hoursAgo(1),
      reportedAt: localDateTime(new Date()),
      items: [{ itemCode: "K", value: 7.3, unit: "mmol/L" }],
    });
    expect((await h1.push("lab", [critical])).status).to.equal(200);
    while (!/event: raised\ndata: .*H1-CRITICAL/.test(text)) text += (await reader.read()).value ?? "";
    abort.abort();
    const streamed = await recordOf({ requestId: streamRequestId, answeredAt: Date.now() });
    expect(streamed).to.deep.include({
      action: "GET /api/alerts/stream",
      patientRefs: ["P001"],
      who: "Nurse Chen",
      outcome: "shown",
    });

    const listed = await traced("GET", "/api/alerts", { token: h1.authorToken });
    expect(listed.body.map((alert: { externalId: string }) => alert.externalId)).to.include("H1-CRITICAL");
    expect(await recordOf(listed)).to.deep.include({
      action: "GET /api/alerts",
      patientRefs: ["P001"],
      outcome: "shown",
    });
  });

  it("records a report's history with its patient and the report, and the unmatched queue by its reports", async () => {
    const externalId = h1.labIds[0]!;
    const history = await traced("GET", `/api/history/lab/${externalId}`, { token: h1.authorToken });
    expect(history.status).to.equal(200);
    expect(await recordOf(history)).to.deep.include({
      action: "GET /api/history/{kind}/{externalId}",
      patientRefs: ["P001"],
      reports: [`lab:${externalId}`],
    });
    const version = await traced("GET", `/api/history/lab/${externalId}/versions/1`, { token: h1.authorToken });
    expect(await recordOf(version)).to.deep.include({
      action: "GET /api/history/{kind}/{externalId}/versions/{n}",
      patientRefs: ["P001"],
    });

    const queue = await traced("GET", "/api/unmatched", { token: h1.authorToken });
    const record = await recordOf(queue);
    expect(record).to.deep.include({ action: "GET /api/unmatched", patientRefs: [] });
    expect(record.reports).to.have.members(
      queue.body.map((entry: { kind: string; externalId: string }) => `${entry.kind}:${entry.externalId}`),
    );
    expect(record.reports).to.include("lab:H1-UNMATCHED");
  });

  it("records FHIR reads: a Patient found by national id, a DiagnosticReport, an Observation search; the operator as admin", async () => {
    const patient = await traced(
      "GET",
      `/fhir/r4/Patient?identifier=${encodeURIComponent(`${NATIONAL_ID_SYSTEM}|${ZHANG_SAN.idCard}`)}`,
      { token: h1.authorToken },
    );
    expect(patient.status).to.equal(200);
    expect(patient.body.entry).to.have.length(1);
    expect(await recordOf(patient)).to.deep.include({
      action: "GET /fhir/r4/Patient",
      patientRefs: ["P001"],
      who: "Nurse Chen",
    });
    const observations = await traced("GET", "/fhir/r4/Observation?patient=P001", { token: ADMIN });
    expect(observations.status).to.equal(200);
    expect(await recordOf(observations)).to.deep.include({
      action: "GET /fhir/r4/Observation",
      patientRefs: ["P001"],
      who: "admin",
      credential: "admin",
      roles: ["admin"],
    });
    const report = await traced("GET", `/fhir/r4/DiagnosticReport/${fhirId(h1.labIds[0]!)}`, { token: h1.authorToken });
    expect(report.status).to.equal(200);
    expect(await recordOf(report)).to.deep.include({
      action: "GET /fhir/r4/DiagnosticReport/{id}",
      patientRefs: ["P001"],
      reports: [`lab:${h1.labIds[0]}`],
    });
  });

  it("records a report's data, drill and export answers that have a patient_ref column: anonymous viewers as such, a token's author by name", async () => {
    const anonymous = await traced("POST", "/api/reports/patients-by-ward/data", { body: {} });
    expect(anonymous.status).to.equal(200);
    expect(await recordOf(anonymous)).to.deep.include({
      action: "POST /api/reports/{id}/data",
      who: "anonymous",
      credential: "none",
      roles: ["viewer"],
      patientRefs: ["P001", "P002"],
      outcome: "shown",
    });

    const signedIn = await traced("POST", "/api/reports/patients-by-ward/data", { body: {}, token: h1.authorToken });
    expect(await recordOf(signedIn)).to.deep.include({ who: "Nurse Chen", credential: authorId, roles: ["author"] });

    const drill = await traced("POST", "/api/reports/every-param/drill", {
      body: { version: "v1", drill: "detail", args: { stdCode: "HGB" } },
    });
    expect(drill.body.queries.rows.columns).to.include("patient_ref");
    expect(await recordOf(drill)).to.deep.include({ action: "POST /api/reports/{id}/drill", patientRefs: ["P001"] });

    const exported = await fetch(`${service.url}/api/reports/patients-by-ward/export/xlsx`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "h1" },
      body: "{}",
    });
    const requestId = exported.headers.get("x-request-id")!;
    expect(exported.status).to.equal(200);
    expect(zipText(Buffer.from(await exported.arrayBuffer()))).to.include("P002");
    expect(await recordOf({ requestId, answeredAt: Date.now() })).to.deep.include({
      action: "POST /api/reports/{id}/export/xlsx",
      patientRefs: ["P001", "P002"],
      outcome: "shown",
    });
  });

  it("leaves no record for a report answer without a patient_ref column", async () => {
    const data = await traced("POST", "/api/reports/every-param/data", { body: { version: "v1" } });
    expect(data.status).to.equal(200);
    expect(data.body.queries.results.rows.length).to.be.greaterThan(0);
    expect(data.body.queries.results.columns).not.to.include("patient_ref");
    expect(await hasNoRecord(data)).to.equal(true);
  });

  it("pages through the tenant's records with the cursor, each once, in the order written, and filters by who", async () => {
    const made: Array<Awaited<ReturnType<typeof traced>>> = [];
    for (let i = 0; i < 5; i++) made.push(await traced("GET", "/api/patients/P002/results", { token: h1.authorToken }));
    await recordOf(made.at(-1)!);
    const pages: AccessRecord[][] = [];
    let cursor: string | null = null;
    do {
      const page: Answer<{ records: AccessRecord[]; next: string | null }> = await httpClient(service.url!)(
        "GET",
        `/api/admin/access-log?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
        { token: ADMIN, tenant: "h1" },
      );
      expect(page.status).to.equal(200);
      expect(page.body.records.length).to.be.at.most(3);
      pages.push(page.body.records);
      cursor = page.body.next;
    } while (cursor);
    expect(pages.length).to.be.greaterThan(2);
    const paged = pages.flat();
    expect(paged).to.deep.equal(await allRecords());
    expect(new Set(paged.map((record) => record.requestId)).size, "no record twice").to.equal(paged.length);
    const ours = paged
      .filter((record) => made.some((call) => call.requestId === record.requestId))
      .map((record) => record.requestId);
    expect(ours, "in the order the answers were given").to.deep.equal(made.map((call) => call.requestId));

    const operators = await httpClient(service.url!)("GET", "/api/admin/access-log?who=admin", {
      token: ADMIN,
      tenant: "h1",
    });
    expect(operators.body.records.length).to.be.greaterThan(0);
    expect(operators.body.records.every((record: AccessRecord) => record.who === "admin")).to.equal(true);
  });

  it("lists the records naming a patient, oldest first, within from and to", async () => {
    const named = await traced("GET", "/api/patients/P002/results", { token: h1.authorToken });
    await recordOf(named);
    const log = await httpClient(service.url!)("GET", "/api/patients/P002/access-log", { token: ADMIN, tenant: "h1" });
    expect(log.status).to.equal(200);
    const records = log.body as AccessRecord[];
    expect(records.map((record) => record.requestId)).to.include(named.requestId);
    expect(records.every((record) => record.patientRefs.includes("P002"))).to.equal(true);
    expect(records.map((record) => record.at)).to.deep.equal(records.map((record) => record.at).sort());
    const all = await allRecords();
    expect(records.length, "every record naming P002").to.equal(
      all.filter((record) => record.patientRefs.includes("P002")).length,
    );

    const today = localIsoDateTime(new Date()).slice(0, 10);
    const tomorrow = localIsoDateTime(new Date(Date.now() + 86_400_000)).slice(0, 10);
    expect(
      (
        await httpClient(service.url!)("GET", `/api/patients/P002/access-log?from=${today}&to=${today}`, {
          token: ADMIN,
          tenant: "h1",
        })
      ).body,
    ).to.have.length(records.length);
    expect(
      (
        await httpClient(service.url!)("GET", `/api/patients/P002/access-log?from=${tomorrow}`, {
          token: ADMIN,
          tenant: "h1",
        })
      ).body,
    ).to.deep.equal([]);
    expect(
      (
        await httpClient(service.url!)("GET", `/api/patients/P002/access-log?to=2020-01-01T00:00:00`, {
          token: ADMIN,
          tenant: "h1",
        })
      ).body,
    ).to.deep.equal([]);
    const paged = await httpClient(service.url!)("GET", "/api/patients/P002/access-log?limit=1", {
      token: ADMIN,
      tenant: "h1",
    });
    expect(paged.body).to.have.length(1);
    expect(paged.headers.get("link")).to.match(/rel="next"/);
  });

  it("keeps each tenant's records to itself", async () => {
    const h2 = await ingestionTenant(service, "h2");
    const theirs = await traced("GET", "/api/patients/P001/results", { token: h2.authorToken, tenant: "h2" });
    expect(theirs.status).to.equal(200);
    expect(await recordOf(theirs, "h2")).to.deep.include({ patientRefs: ["P001"] });
    const ours = await traced("GET", "/api/patients/P001/results", { token: h1.authorToken });
    await recordOf(ours);
    expect((await allRecords("h2")).map((record) => record.requestId)).not.to.include(ours.requestId);
    expect((await allRecords("h1")).map((record) => record.requestId)).not.to.include(theirs.requestId);
    const h1sPatient = (
      await httpClient(service.url!)("GET", "/api/patients/P001/access-log", { token: ADMIN, tenant: "h1" })
    ).body as AccessRecord[];
    expect(h1sPatient.map((record) => record.requestId))
      .to.include(ours.requestId)
      .and.not.include(theirs.requestId);
  });

  it("answers 400 saying how to fix a bad from, to, cursor or parameter, and 401 without a working credential, 403 to one without the role admin", async () => {
    const call = (path: string, token = ADMIN) => httpClient(service.url!)("GET", path, { token, tenant: "h1" });
    for (const [path, says] of [
      ["/api/patients/P001/access-log?from=yesterday", /from must be a day \(yyyy-MM-dd\) or a local date-time/],
      ["/api/patients/P001/access-log?to=2026-02-30", /to must be a day/],
      ["/api/admin/access-log?from=2026-03-01T25:00:00", /from must be a day/],
      ["/api/admin/access-log?from=2026-03-02&to=2026-03-01", /from \(2026-03-02\) is after to \(2026-03-01\)/],
      ["/api/admin/access-log?from=2026-03-01&from=2026-03-02", /sent once/],
      [
        "/api/admin/access-log?cursor=nonsense",
        /cursor is not one this list gave; send back the one in the next of the page before/,
      ],
      ["/api/admin/access-log?limit=0", /limit must be a whole number from 1 to 1000/],
      ["/api/admin/access-log?patient=P001", /The query parameters are who, patientRef, action, from and to/],
    ] as const) {
      const answer = await call(path);
      expect(answer.status, path).to.equal(400);
      expect(Object.keys(answer.body), path).to.deep.equal(["error"]);
      expect(answer.body.error, path).to.match(says);
    }
    expect((await call("/api/admin/access-log", h1.authorToken)).status, "an author is no administrator").to.equal(403);
    expect((await call("/api/patients/P001/access-log", h1.authorToken)).status).to.equal(403);
    expect((await call("/api/admin/access-log", `${ADMIN}x`)).status).to.equal(401);
  });

  it("covers the access records by the ledger, like every event", async () => {
    const call = await traced("GET", "/api/patients", { token: h1.authorToken });
    await recordOf(call);
    const sealed = () =>
      service.db.query(
        `select count(*)::int as n from events e join ledger_event_hashes h using (position)
         where e.type = 'PatientRecordsShown' and e.metadata->>'requestId' = $1`,
        [call.requestId],
      );
    await until(async () => (await sealed()).rows[0].n === 1, 10_000);
    const verified = await httpClient(service.url!)("GET", "/api/admin/ledger/verify", { token: ADMIN });
    expect(verified.body.ok).to.equal(true);
  });

  it("never makes an answer wait for its record: answers while the access log's write is held by a lock", async () => {
    const blocker = new pg.Client({ connectionString: service.databaseUrl });
    await blocker.connect();
    let call: Awaited<ReturnType<typeof traced>>;
    try {
      // Reads of the store go on under this lock; every insert into it waits.
      await blocker.query("begin; lock table events in exclusive mode");
      const started = Date.now();
      call = await traced("GET", "/api/patients/P001/results", { token: h1.authorToken });
      expect(call.status).to.equal(200);
      expect(Date.now() - started, "answered without waiting for the write").to.be.below(1000);
      await new Promise((resolve) => setTimeout(resolve, 500)); // past the flush: the write is under way, and waits
      expect(
        sample(await scrape(`${service.url}/metrics`, METRICS_TOKEN), "dialysis_hub_access_records_queued"),
      ).to.be.at.least(1);
    } finally {
      await blocker.query("rollback");
      await blocker.end();
    }
    expect(await recordOf(call)).to.deep.include({ patientRefs: ["P001"], outcome: "shown" });
  });

  it("answers while the database refuses the access log's writes, counts the failures, and writes the record once it accepts them", async () => {
    await service.db.query(`
      create function refuse_access_records() returns trigger language plpgsql as $$
      begin
        raise exception 'could not extend file: No space left on device' using errcode = '53100';
      end $$;
      create trigger refuse_access_records before insert on events for each row
        when (new.type = 'PatientRecordsShown') execute function refuse_access_records();`);
    let call: Awaited<ReturnType<typeof traced>>;
    try {
      const failuresBefore = sample(
        await scrape(`${service.url}/metrics`, METRICS_TOKEN),
        "dialysis_hub_access_record_write_failures_total",
      );
      call = await traced("GET", "/api/patients", { token: h1.authorToken });
      expect(call.status).to.equal(200);
      expect(call.body.map((patient: { patientRef: string }) => patient.patientRef)).to.include("P001");
      await until(
        async () =>
          sample(
            await scrape(`${service.url}/metrics`, METRICS_TOKEN),
            "dialysis_hub_access_record_write_failures_total",
          ) > failuresBefore,
        5000,
        50,
      );
      const metrics = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
      expect(sample(metrics, "dialysis_hub_access_records_queued")).to.be.at.least(1);
      // Other work goes on: a push is stored while the access log waits.
      expect((await h1.push("lab", [labReport("H1-DURING-REFUSAL")])).body.data.accepted).to.equal(1);
      expect((await allRecords()).map((record) => record.requestId)).not.to.include(call.requestId);
    } finally {
      await service.db.query("drop trigger refuse_access_records on events; drop function refuse_access_records()");
    }
    expect(await recordOf(call, "h1", 15_000)).to.deep.include({ action: "GET /api/patients", outcome: "shown" });
    await until(
      async () =>
        sample(await scrape(`${service.url}/metrics`, METRICS_TOKEN), "dialysis_hub_access_records_queued") === 0,
    );
    const written = await service.db.query(
      "select count(*)::int as n from events where type = 'PatientRecordsShown' and metadata->>'requestId' = $1",
      [call.requestId],
    );
    expect(written.rows[0].n, "written once").to.equal(1);
  });
});

describe("the access log's queue (contract E.4)", function () {
  this.timeout(60_000);

  it("keeps at most ACCESS_LOG_QUEUE_BYTES while the database refuses, counting what it drops, and answers all the same", async () => {
    const service = await startTestService({
      projections: allProjections,
      env: { METRICS_TOKEN, ACCESS_LOG_QUEUE_BYTES: "2048", SHUTDOWN_GRACE_MS: "300" },
    });
    try {
      const tenant = await ingestionTenant(service, "h1");
      // The record of the registration (PUT /api/patients/P001) written first: the rest are this test's.
      await until(
        async () =>
          (await service.db.query("select count(*)::int as n from events where type = 'PatientRecordsShown'")).rows[0]
            .n === 1,
      );
      await service.db.query(`
        create function refuse_access_records() returns trigger language plpgsql as $$
        begin raise exception 'no space' using errcode = '53100'; end $$;
        create trigger refuse_access_records before insert on events for each row
          when (new.type = 'PatientRecordsShown') execute function refuse_access_records();`);
      for (let i = 0; i < 20; i++)
        expect((await tenant.call("GET", "/api/patients/P001/results", { token: tenant.authorToken })).status).to.equal(
          200,
        );
      const metrics = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
      const queued = sample(metrics, "dialysis_hub_access_records_queued");
      const dropped = sample(metrics, "dialysis_hub_access_records_dropped_total", { reason: "queue_full" });
      expect(queued, "held").to.be.within(1, 10);
      expect(queued + dropped, "every record either held or counted").to.equal(20);
    } finally {
      await service.stop();
    }
  });

  it("writes the records still queued when the service stops", async () => {
    const service = await startTestService({ projections: allProjections, env: { ACCESS_LOG_FLUSH_MS: "1000" } });
    let stopped = false;
    try {
      const tenant = await ingestionTenant(service, "h1");
      await tenant.push("lab", [labReport("WAITING", { patient: LI_SI })]);
      await until(
        async () =>
          (await service.db.query("select count(*)::int as n from read.lab_reports where not matched")).rows[0].n === 1,
      );
      // The registration's record (PUT /api/patients/P001) written: the queue is empty when the call comes.
      await until(
        async () =>
          (await service.db.query("select count(*)::int as n from events where type = 'PatientRecordsShown'")).rows[0]
            .n === 1,
      );
      const listed = await tenant.call("GET", "/api/unmatched", { token: tenant.authorToken });
      expect(listed.status).to.equal(200);
      const requestId = listed.headers.get("x-request-id")!;
      const db = new pg.Client({ connectionString: service.databaseUrl });
      await db.connect();
      try {
        const count = async () =>
          (
            await db.query(
              "select count(*)::int as n from events where type = 'PatientRecordsShown' and metadata->>'requestId' = $1",
              [requestId],
            )
          ).rows[0].n;
        expect(await count(), "still waiting for its batch").to.equal(0);
        await service.stop();
        stopped = true;
        expect(await count(), "written as the service stopped").to.equal(1);
      } finally {
        await db.end();
      }
    } finally {
      if (!stopped) await service.stop();
    }
  });
});
