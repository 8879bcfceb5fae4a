import { expect } from "chai";
import type { Bundle, MeasureReport, Patient } from "fhir/r4.js";
import { fhirId } from "../../src/ingestion/fhir/fhirIds.ts";
import { diagnosticReportBundle } from "../support/fhirBundles.ts";
import { oruR01 } from "../support/hl7Messages.ts";
import { checkCharOf } from "../../commands/patients/nationalId.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { adequacySpec } from "../support/reports.ts";
import { routeKey, withRouteInventory, type RouteEntry } from "../support/routeInventory.ts";
import { everyParamSpec, seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, until } from "../support/service.ts";
import { zipText } from "../support/zipText.ts";
import { ACCESS } from "./support/endpointAccess.ts";

/**
 * Contract C.1: a tenant never sees, counts, reconciles or exports another tenant's reports,
 * patients, events or lab data — over every endpoint. Tenant `south`, with its own key, author
 * token and data, tries each route on `north`'s data. The routes come from the routers
 * (routeInventory.ts): a route without a case here fails "has an isolation case for every route".
 */

const withCheckDigit = (first17: string) => `${first17}${checkCharOf(first17)}`;
/** A patient registered only in north, and a person whose report waits in north's queue. */
const NORTH_PATIENT = { name: "北方患者", idCard: withCheckDigit("11010519800101123") };
const NORTH_PENDING = { name: "待认领", idCard: withCheckDigit("11010519750505234") };
/** Anything that would betray north's data in an answer to south. */
const NORTH_MARKS = [
  "NORTH",
  "北方患者",
  "待认领",
  "North only",
  "North draft",
  "Every filter of north",
  NORTH_PATIENT.idCard,
  NORTH_PENDING.idCard,
  NORTH_PATIENT.idCard.slice(-4),
];

function expectNothingOfNorth(text: string, what: string): void {
  for (const mark of NORTH_MARKS) expect(text, `${what} shows ${mark}: ${text.slice(0, 300)}`).not.to.include(mark);
}

interface World {
  service: RunningService;
  north: SeededTenant;
  south: SeededTenant;
}

/** POSTs an export as a tenant and reads the file's text (or the error). */
async function exportText(world: World, tenant: string, reportId: string, format: "xlsx" | "docx", body: unknown) {
  const response = await fetch(`${world.service.url}/api/reports/${reportId}/export/${format}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-tenant": tenant },
    body: JSON.stringify(body),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  return { status: response.status, text: response.status === 200 ? zipText(buffer) : buffer.toString("utf8") };
}

const flat = (value: unknown) => JSON.stringify(value);

/** A potassium of 7.3 of the tenant's P001, taken an hour ago: a critical result, alerted. */
const criticalReport = (externalId: string) =>
  labReport(externalId, {
    collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
    reportedAt: localDateTime(new Date()),
    items: [{ itemCode: "K", value: 7.3, unit: "mmol/L" }],
  });

let northsAlert: Promise<{ alertId: string; externalId: string }> | null = null;
/** North's one critical-result alert, raised the first time a case asks. */
function northAlert({ north }: World) {
  northsAlert ??= (async () => {
    expect((await north.push("lab", [criticalReport("NORTH-CRITICAL")])).status).to.equal(200);
    return until(async () =>
      ((await north.asAuthor("GET", "/api/alerts")).body as Array<{ alertId: string; externalId: string }>).find(
        (alert) => alert.externalId === "NORTH-CRITICAL",
      ),
    );
  })();
  return northsAlert;
}

let northsMessage: Promise<string> | null = null;
/** The messageId of north's push of NORTH-KEPT, kept (contract G.5) the first time a case asks. */
function northMessage({ north }: World) {
  northsMessage ??= (async () => {
    expect((await north.push("lab", [labReport("NORTH-KEPT")])).status).to.equal(200);
    return until(async () => {
      const found = await north.call("GET", "/api/messages?externalId=NORTH-KEPT", { token: ADMIN });
      return (found.body.messages as Array<{ messageId: string }> | undefined)?.[0]?.messageId;
    });
  })();
  return northsMessage;
}

let northsMapping: Promise<string> | null = null;
/**
 * North's report with an item no dictionary entry matches (NORTH-LOCAL), and north's mapping of
 * another item (NORTH-MAPPED): made the first time a case asks.
 */
function northMapping({ north }: World) {
  northsMapping ??= (async () => {
    const pushed = await north.push("lab", [
      labReport("NORTH-UNMAPPED", {
        items: [{ itemCode: "NORTH-LOCAL", itemName: "北方项目", value: 1.5, unit: "mg/dL" }],
      }),
    ]);
    expect(pushed.status).to.equal(200);
    await until(
      async () =>
        ((await north.asAuthor("GET", "/api/dictionary/unmapped")).body as Array<{ itemCode: string }>).some(
          (item) => item.itemCode === "NORTH-LOCAL",
        ) || null,
    );
    const made = await north.asAuthor("POST", "/api/dictionary/mappings", {
      itemCode: "NORTH-MAPPED",
      stdCode: "UREA_PRE",
    });
    expect(made.status, flat(made.body)).to.equal(201);
    return made.body.mappingId as string;
  })();
  return northsMapping;
}

let northsQualityReport: Promise<void> | null = null;
/** North's P-NORTH under care in 2026-03 (a haemoglobin of the 5th), in north's month figures: made the first time a case asks. */
function northQualityReport({ north }: Pick<World, "north">) {
  northsQualityReport ??= (async () => {
    const pushed = await north.push("lab", [
      labReport("NORTH-QUALITY", {
        patient: NORTH_PATIENT,
        collectedAt: "2026-03-05 07:00:00",
        reportedAt: "2026-03-05 10:00:00",
        items: [{ itemCode: "HGB", value: 115, unit: "g/L" }],
      }),
    ]);
    expect(pushed.status).to.equal(200);
    await until(async () =>
      flat((await north.asAuthor("GET", "/api/quality/months/2026-03")).body).includes("P-NORTH"),
    );
  })();
  return northsQualityReport;
}

/** South's own reports of 2026-03-02, read past the tenant scope as the service's owner. */
async function southsDay(service: RunningService) {
  const ids = async (table: string) =>
    (
      await service.db.query(
        `select external_id from read.${table} where tenant = 'south' and reported_at::date = '2026-03-02' order by external_id collate "C"`,
      )
    ).rows.map((r) => r.external_id as string);
  const unmatched = await service.db.query(
    `select count(*)::int as n from (select matched, dismissed_at from read.lab_reports where tenant = 'south' and reported_at::date = '2026-03-02'
     union all select matched, dismissed_at from read.exam_reports where tenant = 'south'
       and reported_at::date = '2026-03-02') r where not matched and dismissed_at is null`,
  );
  return { lab: await ids("lab_reports"), exam: await ids("exam_reports"), unmatched: unmatched.rows[0].n as number };
}

/**
 * South's reconciliation of 2026-03-02 beside what the read tables hold for that day, once the two
 * agree on the counts: a report pushed by an earlier case may still be on its way into the read
 * model, and the answer and the direct read are two moments.
 */
async function settledDay(service: RunningService, south: World["south"], kind: "lab" | "exam") {
  return until(async () => {
    const day = await south.call("GET", `/open/v1/reconcile/${kind}?date=2026-03-02`, { token: south.client.key });
    const own = await southsDay(service);
    const data = day.body.data;
    return data.labReportCount === own.lab.length &&
      data.examReportCount === own.exam.length &&
      data.unmatchedCount === own.unmatched
      ? { day, own }
      : null;
  });
}

/** A bulk job of the tenant's client (one report a line), followed to its end. */
async function bulkJob(
  service: RunningService,
  tenant: SeededTenant,
  kind: "lab" | "exam",
  reports: unknown[],
): Promise<Record<string, any>> {
  const submitted = await fetch(`${service.url}/open/v1/${kind}/reports/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/x-ndjson" },
    body: reports.map((report) => JSON.stringify(report)).join("\n"),
  });
  const { jobId } = ((await submitted.json()) as { data: { jobId: string } }).data;
  return until(async () => {
    const job = (await tenant.call("GET", `/open/v1/bulk/${jobId}`, { token: tenant.client.key })).body.data;
    return job.status === "DONE" ? job : null;
  }, 15_000);
}

/** What south tries on each route, and what must hold afterwards. */
const CASES: Readonly<Record<string, (world: World) => Promise<void>>> = {
  "GET /healthz": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/healthz")).body), "healthz"),
  "GET /readyz": async ({ south }) => expectNothingOfNorth(flat((await south.call("GET", "/readyz")).body), "readyz"),
  "GET /llms.txt": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/llms.txt")).body), "llms.txt"),
  "GET /help": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/help")).body), "the help index"),
  "GET /help/:slug": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/help/getting-started")).body), "a help page"),
  "GET /help/decisions": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/help/decisions")).body), "the decisions index"),
  "GET /help/decisions/:name": async ({ south }) =>
    expectNothingOfNorth(
      flat((await south.call("GET", "/help/decisions/0001-decisions-live-in-docs-decisions")).body),
      "a decision",
    ),
  "GET ^\\/md\\/(.*)$": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/md/getting-started.md")).body), "a help article"),
  "GET /openapi.json": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/openapi.json")).body), "the OpenAPI document"),
  "GET /docs": async ({ south }) => expectNothingOfNorth(flat((await south.call("GET", "/docs")).body), "/docs"),
  "GET /docs/assets/:file": async () => {
    // Static files of the API explorer, the same bytes for everyone; nothing of a tenant is in them.
  },
  "GET /staff": async ({ south }) => expectNothingOfNorth(flat((await south.call("GET", "/staff")).body), "/staff"),
  "GET /staff/": async ({ south }) => expectNothingOfNorth(flat((await south.call("GET", "/staff/")).body), "/staff/"),
  "GET /staff/assets/:name": async () => {
    // Static files of the staff pages (their data comes from /api, tested below).
  },
  // Sign-in with an identity provider (E.1; not configured here): a session belongs to the tenant it was opened for, test/http/staffSignIn.test.ts.
  "GET /staff/login": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/staff/login")).body), "/staff/login"),
  "GET /staff/callback": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/staff/callback?code=x&state=y")).body), "/staff/callback"),
  "GET /staff/session": async ({ south }) => {
    const answer = await south.call("GET", "/staff/session");
    expect(answer.status).to.equal(401);
    expectNothingOfNorth(flat(answer.body), "/staff/session");
  },
  "POST /staff/logout": async ({ south }) => {
    expect((await south.call("POST", "/staff/logout")).status).to.equal(401);
  },
  "GET /embed/assets/:name": async () => {
    // Static files of the embed page (its data comes from /api, tested below).
  },
  "GET /embed/reports/:id": async ({ service, south }) => {
    for (const query of ["?tenant=south", ""]) {
      const other = await south.call("GET", `/embed/reports/north-only${query}`);
      expect(other.status, `north's report from south${query}`).to.equal(404);
      expectNothingOfNorth(flat(other.body), "the embed page of north's report");
    }
    const own = await fetch(`${service.url}/embed/reports/every-param?tenant=south`);
    const html = await own.text();
    expect(own.status).to.equal(200);
    expect(html).to.include("Every filter of south");
    expectNothingOfNorth(html, "south's embed page");
  },

  "GET /api/reports": async ({ south }) => {
    const list = await south.call("GET", "/api/reports");
    const ids = list.body.map((r: { id: string }) => r.id);
    expect(ids).to.include.members(["every-param", "hb-monthly"]).and.not.include("north-draft");
    expectNothingOfNorth(flat(list.body), "the report list");
  },
  "GET /api/reports/:id/view": async ({ south }) => {
    expect((await south.call("GET", "/api/reports/north-only/view")).status).to.equal(404);
    expect((await south.call("GET", "/api/reports/north-draft/view?version=draft")).status).to.equal(404);
    expect((await south.call("GET", "/api/reports/every-param/view?version=v3")).status, "north's v3").to.equal(404);
    const own = await south.call("GET", "/api/reports/every-param/view?version=v2");
    expect(own.body.title).to.equal("Every filter of south");
    expectNothingOfNorth(flat(own.body), "south's snapshot view");
  },
  "POST /api/reports/:id/data": async ({ south }) => {
    expect((await south.call("POST", "/api/reports/north-only/data", { body: {} })).status).to.equal(404);
    for (const version of ["v1", "v2"]) {
      const data = await south.call("POST", "/api/reports/every-param/data", {
        body: { version, params: { period: null } },
      });
      const ids = data.body.queries.results.rows.map((row: unknown[]) => row[0]);
      expect(ids.length, version).to.be.greaterThan(0);
      expect(
        ids.every((id: string) => id.startsWith("SOUTH-")),
        `${version}: ${ids}`,
      ).to.equal(true);
      expectNothingOfNorth(flat(data.body), `data of ${version}`);
    }
  },
  "POST /api/reports/:id/drill": async ({ south }) => {
    expect((await south.call("POST", "/api/reports/north-only/drill", { body: { drill: "detail" } })).status).to.equal(
      404,
    );
    const drill = await south.call("POST", "/api/reports/every-param/drill", {
      body: { version: "v1", drill: "detail", args: { stdCode: "HGB" } },
    });
    const ids = drill.body.queries.rows.rows.map((row: unknown[]) => row[0]);
    expect(ids.length).to.be.greaterThan(0);
    expect(ids.every((id: string) => id.startsWith("SOUTH-"))).to.equal(true);
  },
  "POST /api/reports/:id/export/xlsx": async (world) => {
    expect((await exportText(world, "south", "north-only", "xlsx", {})).status).to.equal(404);
    for (const body of [
      { version: "v1" },
      { version: "v2" },
      { version: "v1", drill: "detail", args: { stdCode: "HGB" } },
    ]) {
      const file = await exportText(world, "south", "every-param", "xlsx", body);
      expect(file.status).to.equal(200);
      expect(file.text, "the file holds south's rows").to.include("SOUTH-");
      expectNothingOfNorth(file.text, `the xlsx of ${flat(body)}`);
    }
  },
  "POST /api/reports/:id/export/docx": async (world) => {
    expect((await exportText(world, "south", "north-only", "docx", {})).status).to.equal(404);
    for (const body of [{ version: "v2" }, { version: "v1", drill: "detail", args: { stdCode: "HGB" } }]) {
      const file = await exportText(world, "south", "every-param", "docx", body);
      expect(file.status).to.equal(200);
      expect(file.text).to.include("SOUTH-");
      expectNothingOfNorth(file.text, `the docx of ${flat(body)}`);
    }
  },
  "GET /api/reports/:id/versions": async ({ south }) => {
    expect((await south.call("GET", "/api/reports/north-only/versions")).status).to.equal(404);
    const versions = await south.call("GET", "/api/reports/every-param/versions");
    expect(versions.body.map((v: { no: string }) => v.no)).to.deep.equal(["v2", "v1"]);
  },
  "GET /api/reports/:id/versions/:no/audit": async ({ south }) => {
    expect((await south.call("GET", "/api/reports/every-param/versions/v3/audit")).status).to.equal(404);
    expect((await south.call("GET", "/api/reports/north-only/versions/v1/audit")).status).to.equal(404);
  },
  "GET /api/reports/:id/versions/:a/diff/:b": async ({ north, south }) => {
    expect((await south.call("GET", "/api/reports/north-only/versions/v1/diff/v1")).status).to.equal(404);
    // South's own every-param, compared by north's author: north's token makes no author of south.
    const compared = await south.call("GET", "/api/reports/every-param/versions/v1/diff/v2", {
      token: north.authorToken,
    });
    expect(compared.status).to.equal(200);
    expect(compared.body.sqlIncluded).to.equal(false);
    expectNothingOfNorth(flat(compared.body), "south's version diff");
  },
  "GET /api/reports/:id/versions/:no/source": async ({ north, south }) => {
    expect((await south.asAuthor("GET", "/api/reports/north-only/versions/v1/source")).status).to.equal(404);
    expect(
      (await south.call("GET", "/api/reports/every-param/versions/v1/source", { token: north.authorToken })).status,
      "north's author is no author of south",
    ).to.equal(403);
    const own = await south.asAuthor("GET", "/api/reports/every-param/versions/v1/source");
    expect(own.status).to.equal(200);
    expectNothingOfNorth(flat(own.body), "south's own source");
  },

  "PUT /api/reports/:id/draft": async ({ north, south }) => {
    const saved = await south.asAuthor("PUT", "/api/reports/north-only/draft", {
      title: "South's own",
      spec: everyParamSpec,
    });
    expect(saved.status, "south may have a report of the same id: its own").to.equal(200);
    const northView = await north.call("GET", "/api/reports/north-only/view");
    expect(northView.body).to.include({ title: "North only", version: "v1" });
    expect(
      (await north.call("GET", "/api/reports/north-only/view?version=draft")).status,
      "north's report got no draft",
    ).to.equal(404);
  },
  "DELETE /api/reports/:id/draft": async ({ north, south }) => {
    expect((await south.asAuthor("DELETE", "/api/reports/north-draft/draft")).status).to.equal(404);
    expect(
      (await north.call("GET", "/api/reports/north-draft/view?version=draft")).status,
      "north's draft is still there",
    ).to.equal(200);
  },
  "POST /api/reports/:id/publish": async ({ north, south }) => {
    expect((await south.asAuthor("POST", "/api/reports/north-draft/publish", { mode: "dynamic" })).status).to.be.oneOf([
      404, 409,
    ]);
    expect(
      (await north.call("GET", "/api/reports/north-draft/versions")).body,
      "north's draft was not published",
    ).to.deep.equal([]);
  },
  "POST /api/reports/:id/restore": async ({ north, south }) => {
    const before = (await north.call("GET", "/api/reports/every-param/versions")).body.length;
    expect((await south.asAuthor("POST", "/api/reports/every-param/restore", { version: "v3" })).status).to.equal(404);
    expect((await north.call("GET", "/api/reports/every-param/versions")).body.length).to.equal(before);
  },

  "GET /api/dictionary/lab-items": async ({ north, south }) => {
    // One dictionary for every tenant, as on /open/v1: the same answer, nothing of a tenant in it.
    const seen = await south.asAuthor("GET", "/api/dictionary/lab-items");
    expect(seen.status).to.equal(200);
    expect(seen.body.items).to.deep.equal(
      (await south.call("GET", "/open/v1/dict/lab-items", { token: south.client.key })).body.data.items,
    );
    expect(
      (await north.call("GET", "/api/dictionary/lab-items", { token: south.authorToken })).status,
      "south's token on north",
    ).to.equal(403);
  },
  "GET /api/dictionary/unmapped": async (world) => {
    await northMapping(world);
    const seen = await world.south.asAuthor("GET", "/api/dictionary/unmapped");
    expect(seen.status).to.equal(200);
    expectNothingOfNorth(flat(seen.body), "south's unmapped items");
    expect(
      (await world.north.call("GET", "/api/dictionary/unmapped", { token: world.south.authorToken })).status,
      "south's token on north",
    ).to.equal(403);
  },
  "GET /api/dictionary/mappings": async (world) => {
    await northMapping(world);
    const seen = await world.south.asAuthor("GET", "/api/dictionary/mappings");
    expect(seen.status).to.equal(200);
    expectNothingOfNorth(flat(seen.body), "south's mappings");
  },
  "POST /api/dictionary/mappings/preview": async (world) => {
    await northMapping(world);
    const counted = await world.south.asAuthor("POST", "/api/dictionary/mappings/preview", { itemCode: "NORTH-LOCAL" });
    expect(counted.body, "north's unmapped results are not south's").to.deep.equal({
      results: 0,
      reports: 0,
      units: [],
    });
  },
  "POST /api/dictionary/mappings": async (world) => {
    await northMapping(world);
    // South maps the code north's item has: its own mapping, which re-maps none of north's results.
    const made = await world.south.asAuthor("POST", "/api/dictionary/mappings", {
      itemCode: "NORTH-LOCAL",
      stdCode: "UREA_PRE",
    });
    expect(made.status, flat(made.body)).to.equal(201);
    await until(
      async () =>
        (
          (await world.south.asAuthor("GET", "/api/dictionary/mappings")).body as Array<{
            mappingId: string;
            remap: { status: string };
          }>
        ).find((m) => m.mappingId === made.body.mappingId)?.remap.status === "DONE" || null,
    );
    const norths = (await world.north.asAuthor("GET", "/api/dictionary/unmapped")).body as Array<{ itemCode: string }>;
    expect(
      norths.map((item) => item.itemCode),
      "north's item is still unmapped",
    ).to.include("NORTH-LOCAL");
  },
  "DELETE /api/dictionary/mappings/:mappingId": async (world) => {
    const mappingId = await northMapping(world);
    const undone = await world.south.asAuthor("DELETE", `/api/dictionary/mappings/${mappingId}`);
    expect(undone.status).to.equal(404);
    expectNothingOfNorth(flat(undone.body), "the 404");
    const norths = (await world.north.asAuthor("GET", "/api/dictionary/mappings")).body as Array<{
      mappingId: string;
      removedAt: string | null;
    }>;
    expect(norths.find((m) => m.mappingId === mappingId)?.removedAt, "north's mapping stands").to.equal(null);
  },
  "GET /api/me": async ({ north, south }) => {
    expect((await south.asAuthor("GET", "/api/me")).body).to.include({ tenant: "south", who: "Nurse Chen" });
    expect(
      (await north.call("GET", "/api/me", { token: south.authorToken })).status,
      "south's token on north",
    ).to.equal(403);
  },
  "GET /api/patients": async ({ south }) => {
    const patients = await south.asAuthor("GET", "/api/patients");
    expect(patients.body.map((p: { patientRef: string }) => p.patientRef)).not.to.include("P-NORTH");
    expectNothingOfNorth(flat(patients.body), "the patient list");
  },
  "GET /api/patients/:patientRef": async ({ south }) => {
    // Before the PUT case below, which gives south a P-NORTH of its own.
    const norths = await south.asAuthor("GET", "/api/patients/P-NORTH");
    expect(norths.status, "north's patient from south").to.equal(404);
    expectNothingOfNorth(flat(norths.body).replace("P-NORTH", ""), "the 404");
    // Both tenants have a P001: south is shown its own, as its list shows it.
    const own = await south.asAuthor("GET", "/api/patients/P001");
    expect(own.status).to.equal(200);
    const listed = (await south.asAuthor("GET", "/api/patients")).body as Array<{ patientRef: string }>;
    expect(own.body).to.deep.equal(listed.find((patient) => patient.patientRef === "P001"));
    expectNothingOfNorth(flat(own.body), "south's patient");
  },
  "GET /api/patients/:patientRef/results": async ({ service, south }) => {
    // Both tenants have a P001 with results: south's chart holds south's rows only.
    const answer = await south.asAuthor("GET", "/api/patients/P001/results?codes=HGB&from=2000-01-01&to=2009-12-31");
    expect(answer.status, flat(answer.body)).to.equal(200);
    const wide = await south.asAuthor("GET", "/api/patients/P001/results?codes=HGB&from=2020-01-01&to=2029-12-31");
    const { rows } = await service.db.query(
      "select external_id from read.lab_results where tenant = 'south' and patient_ref = 'P001' and std_code = 'HGB' and std_value is not null order by 1",
    );
    const points = (wide.body as { series: Array<{ points: Array<{ externalId: string }> }> }).series[0]!.points.map(
      (point) => point.externalId,
    ).sort();
    expect(points).to.deep.equal(rows.map((row) => row.external_id).sort());
    expect(points).to.not.be.empty;
    expectNothingOfNorth(flat(wide.body), "south's chart");
  },
  "GET /api/patients/:patientRef/result-items": async ({ service, south }) => {
    // Both tenants have a P001 with results: south's counts are south's rows, and north's P-NORTH is not there.
    const answer = await south.asAuthor("GET", "/api/patients/P001/result-items");
    expect(answer.status, flat(answer.body)).to.equal(200);
    const { rows } = await service.db.query(
      "select std_code, count(*)::int as n from read.lab_results where tenant = 'south' and patient_ref = 'P001' and std_value is not null group by 1",
    );
    const counted = (answer.body as Array<{ code: string; results: number }>)
      .filter((item) => item.results > 0)
      .map((item) => [item.code, item.results]);
    expect(Object.fromEntries(counted)).to.deep.equal(Object.fromEntries(rows.map((row) => [row.std_code, row.n])));
    expect(counted).to.not.be.empty;
    expect(
      (await south.asAuthor("GET", "/api/patients/P-NORTH/result-items")).status,
      "north's patient from south",
    ).to.equal(404);
    expectNothingOfNorth(flat(answer.body), "south's chart items");
  },
  "GET /api/alerts": async (world) => {
    await northAlert(world);
    for (const state of ["open", "acknowledged", "closed"])
      expectNothingOfNorth(
        flat((await world.south.asAuthor("GET", `/api/alerts?state=${state}`)).body),
        `south's ${state} alerts`,
      );
    // Contract F.3: each kind on its own too.
    for (const kind of ["CRITICAL", "DELTA"])
      expectNothingOfNorth(
        flat((await world.south.asAuthor("GET", `/api/alerts?kind=${kind}`)).body),
        `south's ${kind} alerts`,
      );
  },
  "GET /api/alerts/count": async (world) => {
    await northAlert(world);
    const { rows } = await world.service.db.query(
      "select count(*)::int as n, (count(*) filter (where kind = 'CRITICAL'))::int as critical, (count(*) " +
        "filter (where kind = 'DELTA'))::int as delta from read.alerts where tenant = 'south' and " +
        "acknowledged_at is null and closed_at is null and handled_as is null",
    );
    expect((await world.south.asAuthor("GET", "/api/alerts/count")).body).to.deep.equal({
      open: rows[0].n,
      critical: rows[0].critical,
      delta: rows[0].delta,
    });
  },
  "POST /api/alerts/:alertId/acknowledge": async (world) => {
    const { alertId } = await northAlert(world);
    const answer = await world.south.asAuthor("POST", `/api/alerts/${alertId}/acknowledge`, { note: "south pretends" });
    expect(answer.status).to.equal(404);
    const northsOwn = await world.service.db.query(
      "select acknowledged_at from read.alerts where tenant = 'north' and alert_id = $1",
      [alertId],
    );
    expect(northsOwn.rows).to.deep.equal([{ acknowledged_at: null }]);
  },
  "GET /api/alerts/stream": async (world) => {
    const { service, north, south } = world;
    await northAlert(world);
    const abort = new AbortController();
    const response = await fetch(`${service.url}/api/alerts/stream`, {
      headers: { authorization: `Bearer ${south.authorToken}`, "x-service-tenant": "south" },
      signal: abort.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    // North's critical result first, south's own after it: south's stream shows its own only.
    await north.push("lab", [criticalReport("NORTH-CRITICAL-2")]);
    await south.push("lab", [criticalReport("SOUTH-CRITICAL")]);
    while (!text.includes("SOUTH-CRITICAL")) text += (await reader.read()).value ?? "";
    abort.abort();
    expectNothingOfNorth(text, "south's alert stream");
  },
  "PUT /api/patients/:patientRef": async ({ north, south, service }) => {
    // South registers the person waiting in north's queue, under north's patientRef: its own patient.
    const registered = await south.asAuthor("PUT", "/api/patients/P-NORTH", {
      name: NORTH_PENDING.name,
      idCard: NORTH_PENDING.idCard,
    });
    expect(registered.status).to.equal(200);
    const northPatients = (await north.asAuthor("GET", "/api/patients")).body as Array<{
      patientRef: string;
      name: string;
    }>;
    expect(northPatients.find((p) => p.patientRef === "P-NORTH")?.name, "north's patient unchanged").to.equal(
      NORTH_PATIENT.name,
    );
    // Auto-claim stays within south: north's waiting report is not claimed by south's registration.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const northQueue = (await north.asAuthor("GET", "/api/unmatched")).body as Array<{ externalId: string }>;
    expect(northQueue.map((e) => e.externalId)).to.include("NORTH-PENDING");
    const claimed = await service.db.query(
      "select patient_ref from read.lab_reports where tenant = 'north' and external_id = 'NORTH-PENDING'",
    );
    expect(claimed.rows[0].patient_ref).to.equal(null);
  },
  "GET /api/unmatched": async ({ south }) => {
    const queue = await south.asAuthor("GET", "/api/unmatched");
    expect(queue.body.length).to.be.greaterThan(0);
    expectNothingOfNorth(flat(queue.body), "the unmatched queue");
  },
  "GET /api/unmatched/summary": async ({ south, service }) => {
    const { rows } = await service.db.query<{ tenant: string; n: number }>(
      "select tenant, count(*)::int as n from (select tenant from read.lab_reports where not matched and dismissed_at is null" +
        " union all select tenant from read.exam_reports where not matched and dismissed_at is null) q group by tenant",
    );
    const waiting = (tenant: string) => rows.find((row) => row.tenant === tenant)?.n ?? 0;
    expect(waiting("north"), "north has reports waiting too").to.be.greaterThan(0);
    const summary = await south.asAuthor("GET", "/api/unmatched/summary");
    expect(summary.status).to.equal(200);
    expect(summary.body.waiting, "south's summary counts south's queue alone").to.equal(waiting("south"));
  },
  "GET /api/datasources/:name/schema": async ({ south }) => {
    const schema = await south.asAuthor("GET", "/api/datasources/clinical/schema");
    expect(schema.status).to.equal(200);
    expectNothingOfNorth(flat(schema.body), "the clinical source's schema");
  },
  "GET /api/unmatched/:kind/:externalId/check": async ({ south }) => {
    const norths = await south.asAuthor("GET", "/api/unmatched/lab/NORTH-UNMATCHED/check?patientRef=P001");
    expect(norths.status, "north's waiting report from south").to.equal(404);
    const own = await south.asAuthor("GET", "/api/unmatched/lab/SOUTH-UNMATCHED/check?patientRef=P001");
    expect(own.status).to.equal(200);
    expectNothingOfNorth(flat(own.body), "south's claim check");
  },
  "POST /api/unmatched/:kind/:externalId/claim": async ({ north, south }) => {
    expect(
      (await south.asAuthor("POST", "/api/unmatched/lab/NORTH-UNMATCHED/claim", { patientRef: "P001" })).status,
    ).to.equal(404);
    expect(
      ((await north.asAuthor("GET", "/api/unmatched")).body as Array<{ externalId: string }>).map((e) => e.externalId),
    ).to.include("NORTH-UNMATCHED");
  },
  "POST /api/unmatched/:kind/:externalId/dismiss": async ({ north, south }) => {
    expect(
      (await south.asAuthor("POST", "/api/unmatched/exam/NORTH-ECG-UNMATCHED/dismiss", { reason: "not ours" })).status,
    ).to.equal(404);
    expect(
      ((await north.asAuthor("GET", "/api/unmatched")).body as Array<{ externalId: string }>).map((e) => e.externalId),
    ).to.include("NORTH-ECG-UNMATCHED");
  },
  "GET /api/history/:kind/:externalId": async ({ north, south }) => {
    expect((await south.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED")).status).to.equal(404);
    expect(
      (await south.call("GET", "/api/history/exam/NORTH-ECHO", { token: ADMIN })).status,
      "the ADMIN_TOKEN reads the tenant it names",
    ).to.equal(404);
    expect((await north.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED")).body.externalId).to.equal(
      "NORTH-UNMATCHED",
    );
  },
  "GET /api/history/:kind/:externalId/versions/:n": async ({ north, south }) => {
    expect((await south.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED/versions/1")).status).to.equal(404);
    expect((await north.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED/versions/1")).status).to.equal(200);
  },
  "GET /api/history/:kind/:externalId/diff": async ({ north, south }) => {
    expect((await south.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED/diff?from=1&to=1")).status).to.equal(404);
    expect(
      (await north.asAuthor("GET", "/api/history/lab/NORTH-UNMATCHED/diff?from=1&to=1")).body.changes,
    ).to.deep.equal([]);
  },
  "GET /api/bulk-jobs": async ({ service, north, south }) => {
    const northJob = await bulkJob(service, north, "lab", [
      labReport("NORTH-BULK-LISTED"),
      { externalId: "NORTH-BULK-LISTED-BAD" },
    ]);
    const southJob = await bulkJob(service, south, "lab", [labReport("SOUTH-BULK-LISTED")]);
    expect(((await north.asAuthor("GET", "/api/bulk-jobs")).body as Array<{ jobId: string }>).map((job) => job.jobId))
      .to.include(northJob.jobId)
      .and.not.include(southJob.jobId);
    for (const token of [south.authorToken, ADMIN]) {
      const seen = await south.call("GET", "/api/bulk-jobs", { token });
      expect(seen.body.map((job: { jobId: string }) => job.jobId))
        .to.include(southJob.jobId)
        .and.not.include(northJob.jobId);
      expectNothingOfNorth(flat(seen.body), "south's bulk jobs");
    }
  },
  "GET /api/bulk-jobs/:jobId/rejected": async ({ service, north, south }) => {
    const northJob = await bulkJob(service, north, "lab", [{ externalId: "NORTH-BULK-STAFF-REJECTED" }]);
    expect((await north.asAuthor("GET", `/api/bulk-jobs/${northJob.jobId}/rejected`)).body.total).to.equal(1);
    for (const token of [south.authorToken, ADMIN]) {
      const seen = await south.call("GET", `/api/bulk-jobs/${northJob.jobId}/rejected`, { token });
      expect(seen.status).to.equal(404);
      expectNothingOfNorth(flat(seen.body), "north's rejected lines asked for by south");
    }
  },

  "GET /api/admin/access-log": async ({ service, north, south }) => {
    expect(
      (await south.call("GET", "/api/admin/access-log", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    expect(
      (await north.call("GET", "/api/admin/access-log", { token: south.adminToken })).status,
      "south's administrator is none of north's",
    ).to.equal(403);
    const northsCall = await north.call("GET", "/api/patients/P-NORTH/results", { token: north.authorToken });
    expect(northsCall.status).to.equal(200);
    const northsRequest = northsCall.headers.get("x-request-id")!;
    await until(
      async () =>
        (await service.db.query("select 1 from read.access_log where request_id = $1", [northsRequest])).rowCount === 1,
    );
    const southsLog = await south.call("GET", "/api/admin/access-log?limit=1000", { token: south.adminToken });
    expect(southsLog.status).to.equal(200);
    expect(southsLog.body.records.length, "south's own records").to.be.greaterThan(0);
    expect(southsLog.body.records.map((record: { requestId: string }) => record.requestId)).not.to.include(
      northsRequest,
    );
    // South's own looks may name what south asked for (P-NORTH, answered 404); no record of a north credential's.
    const northsAuthors = (
      await service.db.query("select author_id from read.authors where tenant = 'north'")
    ).rows.map((row) => row.author_id as string);
    expect(
      southsLog.body.records.filter((record: { credential: string }) => northsAuthors.includes(record.credential)),
    ).to.deep.equal([]);
  },
  "GET /api/admin/access-log/export": async ({ service, north, south }) => {
    expect(
      (await south.call("GET", "/api/admin/access-log/export", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    expect(
      (await north.call("GET", "/api/admin/access-log/export", { token: south.adminToken })).status,
      "south's administrator is none of north's",
    ).to.equal(403);
    const northsCall = await north.call("GET", "/api/patients/P-NORTH/results", { token: north.authorToken });
    expect(northsCall.status).to.equal(200);
    const northsRequest = northsCall.headers.get("x-request-id")!;
    await until(
      async () =>
        (await service.db.query("select 1 from read.access_log where request_id = $1", [northsRequest])).rowCount === 1,
    );
    const southsFile = await south.call("GET", "/api/admin/access-log/export?format=csv", { token: south.adminToken });
    expect(southsFile.status).to.equal(200);
    expect(southsFile.body as string, "north's record in south's file").not.to.include(northsRequest);
  },
  "GET /api/patients/:patientRef/access-log": async ({ service, north, south }) => {
    expect(
      (await south.call("GET", "/api/patients/P001/access-log", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    expect(
      (await north.call("GET", "/api/patients/P001/access-log", { token: south.adminToken })).status,
      "south's administrator is none of north's",
    ).to.equal(403);
    const northsCall = await north.call("GET", "/api/patients/P001/results", { token: north.authorToken });
    expect(northsCall.status).to.equal(200);
    const northsRequest = northsCall.headers.get("x-request-id")!;
    await until(
      async () =>
        (await service.db.query("select 1 from read.access_log where request_id = $1", [northsRequest])).rowCount === 1,
    );
    // Both tenants have a P001: south's log of its P001 holds none of north's looks at north's.
    const southsP001 = await south.call("GET", "/api/patients/P001/access-log", { token: south.adminToken });
    expect(southsP001.status).to.equal(200);
    expect(southsP001.body.map((record: { requestId: string }) => record.requestId)).not.to.include(northsRequest);
    // South's own P-NORTH (registered by the PUT case) has south's records; none of north's looks at north's P-NORTH.
    const southsPNorth = await south.call("GET", "/api/patients/P-NORTH/access-log", { token: ADMIN });
    const northsAuthors = (
      await service.db.query("select author_id from read.authors where tenant = 'north'")
    ).rows.map((row) => row.author_id as string);
    expect(
      southsPNorth.body.filter((record: { credential: string }) => northsAuthors.includes(record.credential)),
      "north's looks from south",
    ).to.deep.equal([]);
  },

  "GET /api/patients/:patientRef/copy": async ({ service, north, south }) => {
    expect(
      (await south.call("GET", "/api/patients/P001/copy", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    expect(
      (await north.call("GET", "/api/patients/P001/copy", { token: south.adminToken })).status,
      "south's administrator is none of north's",
    ).to.equal(403);
    // Both tenants have a P001 with reports: south's copy of its P001 holds south's and nothing of north's.
    const response = await fetch(`${service.url}/api/patients/P001/copy`, {
      headers: { authorization: `Bearer ${south.adminToken}`, "x-service-tenant": "south" },
    });
    expect(response.status).to.equal(200);
    const text = zipText(Buffer.from(await response.arrayBuffer()));
    expect(text).to.include(`${south.prefix}-ECHO`);
    expectNothingOfNorth(text, "south's copy of its P001");
  },

  // Contract G.2: the month's quality figures. Every seeded report was collected on 2026-03-01.
  "GET /api/quality/indicators": async ({ north, south }) => {
    const souths = await south.call("GET", "/api/quality/indicators", { token: south.authorToken });
    expect(souths.status).to.equal(200);
    // Reference data of every tenant alike, as the dictionary is.
    expect(souths.body).to.deep.equal((await north.asAuthor("GET", "/api/quality/indicators")).body);
    expectNothingOfNorth(flat(souths.body), "the quality indicators");
  },
  "GET /api/quality/months/:month": async ({ north, south }) => {
    await northQualityReport({ north });
    const souths = await south.call("GET", "/api/quality/months/2026-03", { token: south.authorToken });
    expect(souths.status).to.equal(200);
    expect(flat(souths.body)).to.include("P001");
    expectNothingOfNorth(flat(souths.body), "south's month");
    const northsWard = await south.call("GET", "/api/quality/months/2026-03?ward=N", { token: south.authorToken });
    expect(northsWard.status, "north's ward is no ward of south's").to.equal(404);
    expectNothingOfNorth(flat(northsWard.body), "north's ward asked for by south");
  },
  "GET /api/quality/wards": async ({ north, south }) => {
    await northQualityReport({ north });
    const souths = await south.call("GET", "/api/quality/wards", { token: south.authorToken });
    expect(souths.status).to.equal(200);
    expect(souths.body, "north's ward is no ward of south's").to.not.include("N");
    expectNothingOfNorth(flat(souths.body), "south's wards");
  },
  "GET /api/quality/months/:month/patients": async ({ north, south }) => {
    await northQualityReport({ north });
    for (const code of ["HGB_TARGET", "HGB_TESTED", "INFECTION_TESTED"]) {
      const souths = await south.call("GET", `/api/quality/months/2026-03/patients?code=${code}`, {
        token: south.authorToken,
      });
      expect(souths.status, flat(souths.body)).to.equal(200);
      expectNothingOfNorth(flat(souths.body), `south's patients off ${code}`);
    }
    const northsWard = await south.call("GET", "/api/quality/months/2026-03/patients?code=HGB_TARGET&ward=N", {
      token: south.authorToken,
    });
    expect(northsWard.status, "north's ward is no ward of south's").to.equal(404);
    expectNothingOfNorth(flat(northsWard.body), "north's ward's patients asked for by south");
  },
  "POST /api/quality/months/:month/close": async ({ north, south }) => {
    expect(
      (await north.call("POST", "/api/quality/months/2026-02/close", { token: south.adminToken, body: {} })).status,
      "south's administrator is none of north's",
    ).to.equal(403);
    const closed = await south.call("POST", "/api/quality/months/2026-02/close", { token: south.adminToken, body: {} });
    expect(closed.status, flat(closed.body)).to.equal(201);
    expectNothingOfNorth(flat(closed.body), "south's closed month");
    expect((await north.asAuthor("GET", "/api/quality/months/2026-02")).body.state, "north's month").to.equal("open");
  },
  // Contract G.3: escalation of critical values, and how fast they were acknowledged.
  "PUT /api/alerts/escalation": async ({ north, south }) => {
    const policy = {
      wards: { "*": [{ afterMinutes: 60, notify: [{ channel: "email", to: "south-nurse@hospital.example" }] }] },
    };
    const intoNorth = await north.call("PUT", "/api/alerts/escalation", { token: south.adminToken, body: policy });
    expect(intoNorth.status, "south's administrator is none of north's").to.equal(403);
    const put = await south.call("PUT", "/api/alerts/escalation", { token: south.adminToken, body: policy });
    expect(put.status, flat(put.body)).to.equal(200);
    const norths = await north.call("GET", "/api/alerts/escalation", { token: ADMIN });
    expect(flat(norths.body), "north's policy").to.not.include("south-nurse");
  },
  "GET /api/alerts/escalation": async ({ north, south }) => {
    const put = await north.call("PUT", "/api/alerts/escalation", {
      token: ADMIN,
      body: {
        wards: { N: [{ afterMinutes: 60, notify: [{ channel: "email", to: "north-doctor@hospital.example" }] }] },
      },
    });
    expect(put.status, flat(put.body)).to.equal(200);
    const souths = await south.call("GET", "/api/alerts/escalation", { token: south.adminToken });
    expect(souths.status).to.equal(200);
    expect(flat(souths.body), "south's policy").to.not.include("north-doctor");
    expectNothingOfNorth(flat(souths.body), "south's escalation policy");
  },
  "GET /api/alerts/timeliness": async (world) => {
    await northAlert(world);
    const month = localDateTime(new Date()).slice(0, 7);
    const { rows } = await world.service.db.query(
      "select count(*)::int as n from read.alerts where tenant = 'south' and kind = 'CRITICAL' and to_char(raised_at, 'YYYY-MM') = $1",
      [month],
    );
    const souths = await world.south.asAuthor("GET", `/api/alerts/timeliness?month=${month}`);
    expect(souths.status, flat(souths.body)).to.equal(200);
    expect(souths.body.raised, "south's critical values only").to.equal(rows[0].n);
    const northsWard = await world.south.asAuthor("GET", `/api/alerts/timeliness?month=${month}&ward=N`);
    expect(northsWard.status, "north's ward is no ward of south's").to.equal(404);
  },

  // Contract G.5: the messages senders sent.
  "GET /api/messages": async (world) => {
    const northsMessage = await northMessage(world);
    const souths = await world.south.call("GET", "/api/messages", { token: world.south.adminToken });
    expect(souths.status, flat(souths.body)).to.equal(200);
    expect(flat(souths.body)).to.not.include(northsMessage);
    expectNothingOfNorth(flat(souths.body), "south's messages");
    const byId = await world.south.call("GET", "/api/messages?externalId=NORTH-KEPT", {
      token: world.south.adminToken,
    });
    expect(byId.body.messages, "north's report's message asked for by south").to.deep.equal([]);
  },
  "GET /api/messages/:messageId": async (world) => {
    const northsMessage = await northMessage(world);
    const souths = await world.south.call("GET", `/api/messages/${northsMessage}`, { token: world.south.adminToken });
    expect(souths.status, "north's message is no message of south's").to.equal(404);
    expectNothingOfNorth(flat(souths.body), "north's message asked for by south");
  },
  "GET /api/quality/months/:month/restatement": async ({ north, south }) => {
    await northQualityReport({ north });
    const northsClose = await north.call("POST", "/api/quality/months/2026-01/close", { token: ADMIN, body: {} });
    expect(northsClose.status, flat(northsClose.body)).to.be.oneOf([201, 409]);
    const souths = await south.call("GET", "/api/quality/months/2026-01/restatement", { token: south.authorToken });
    expect(souths.status, "north's close is no close of south's").to.equal(409);
    expectNothingOfNorth(flat(souths.body), "south's restatement");
  },
  "POST /api/quality/months/:month/export": async ({ north, service, south }) => {
    await northQualityReport({ north });
    const exported = async (body: object) => {
      const response = await fetch(`${service.url}/api/quality/months/2026-03/export`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${south.authorToken}`,
          "x-service-tenant": "south",
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
    };
    const workbook = await exported({ format: "xlsx", lang: "en" });
    expect(workbook.status).to.equal(200);
    const text = zipText(workbook.body);
    expect(text).to.include("P001");
    expectNothingOfNorth(text, "south's month as a workbook");
    const northsWard = await exported({ format: "xlsx", lang: "en", ward: "N" });
    expect(northsWard.status, "north's ward is no ward of south's").to.equal(404);
    expectNothingOfNorth(northsWard.body.toString("utf8"), "north's ward exported by south");
  },
  "GET /api/patients/:patientRef/months/:month": async ({ north, south }) => {
    await northQualityReport({ north });
    const souths = await south.call("GET", "/api/patients/P001/months/2026-03", { token: south.authorToken });
    expect(souths.status).to.equal(200);
    const reports = (souths.body.values as Array<{ externalIds: string[] }>).flatMap((value) => value.externalIds);
    expect(reports).to.not.be.empty;
    expect(reports.every((externalId) => externalId.startsWith("SOUTH-"))).to.equal(true);
    expectNothingOfNorth(flat(souths.body), "south's P001's month");
    // South's own P-NORTH (registered by the PUT case), or none: never north's results.
    const pNorth = await south.call("GET", "/api/patients/P-NORTH/months/2026-03", { token: south.authorToken });
    expect(pNorth.status).to.be.oneOf([200, 404]);
    if (pNorth.status === 200) expect(pNorth.body).to.deep.include({ underCare: false, values: [] });
  },

  "GET /api/admin/projections": async ({ south }) => {
    expect(
      (await south.call("GET", "/api/admin/projections", { token: south.authorToken })).status,
      "a tenant's author is no operator",
    ).to.equal(401);
    const report = await south.call("GET", "/api/admin/projections", { token: ADMIN });
    expectNothingOfNorth(flat(report.body), "the projections report (positions and lag only)");
  },
  "GET /api/admin/ledger": async ({ south }) => {
    expect(
      (await south.call("GET", "/api/admin/ledger", { token: south.authorToken })).status,
      "a tenant's author is no operator",
    ).to.equal(401);
    expectNothingOfNorth(
      flat((await south.call("GET", "/api/admin/ledger", { token: ADMIN })).body),
      "the ledger summary (counts and roots only)",
    );
  },
  "GET /api/admin/ledger/verify": async ({ south }) => {
    expect(
      (await south.call("GET", "/api/admin/ledger/verify", { token: south.authorToken })).status,
      "a tenant's author is no operator",
    ).to.equal(401);
    expectNothingOfNorth(
      flat((await south.call("GET", "/api/admin/ledger/verify", { token: ADMIN })).body),
      "the verification (positions only)",
    );
  },
  "POST /api/admin/clients": async ({ south }) => {
    expect(
      (
        await south.call("POST", "/api/admin/clients", {
          token: south.authorToken,
          body: { name: "x", tenant: "north" },
        })
      ).status,
    ).to.equal(403);
    expect(
      (
        await south.call("POST", "/api/admin/clients", {
          token: south.adminToken,
          body: { name: "x", tenant: "north" },
        })
      ).status,
      "south's administrator makes no key of north",
    ).to.equal(403);
    expect(
      (
        await south.call("POST", "/api/admin/clients", {
          token: south.client.key,
          body: { name: "x", tenant: "north" },
        })
      ).status,
    ).to.equal(401);
  },
  "DELETE /api/admin/clients/:clientId": async ({ north, south }) => {
    expect(
      (await south.call("DELETE", `/api/admin/clients/${north.client.clientId}`, { token: south.authorToken })).status,
    ).to.equal(403);
    expect(
      (await south.call("DELETE", `/api/admin/clients/${north.client.clientId}`, { token: south.adminToken })).status,
      "north's client is not there for south",
    ).to.equal(404);
    expect(
      (await north.call("GET", "/open/v1/ping", { token: north.client.key })).status,
      "north's key still works",
    ).to.equal(200);
  },
  "PUT /api/admin/clients/:clientId/code-map": async ({ north, south }) => {
    const answer = await south.call("PUT", `/api/admin/clients/${north.client.clientId}/code-map`, {
      token: south.adminToken,
      body: { codeMap: { X: "HGB" } },
    });
    expect(answer.status).to.equal(404);
  },
  "POST /api/admin/authors": async ({ south }) => {
    expect(
      (
        await south.call("POST", "/api/admin/authors", {
          token: south.authorToken,
          body: { name: "x", tenant: "north" },
        })
      ).status,
    ).to.equal(403);
    expect(
      (
        await south.call("POST", "/api/admin/authors", {
          token: south.adminToken,
          body: { name: "x", tenant: "north" },
        })
      ).status,
      "south's administrator makes no token of north",
    ).to.equal(403);
  },
  "GET /api/admin/clients": async ({ north, south }) => {
    expect(
      (await south.call("GET", "/api/admin/clients", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    const listed = await south.call("GET", "/api/admin/clients", { token: south.adminToken });
    const ids = (listed.body as Array<{ clientId: string }>).map((client) => client.clientId);
    expect(ids, "the operator lists the clients of X-Service-Tenant")
      .to.include(south.client.clientId)
      .and.not.include(north.client.clientId);
    expectNothingOfNorth(flat(listed.body), "south's clients");
  },
  "POST /api/admin/clients/:clientId/rotate": async ({ north, south }) => {
    expect(
      (
        await south.call("POST", `/api/admin/clients/${north.client.clientId}/rotate`, {
          token: south.adminToken,
          body: { overlapHours: 0 },
        })
      ).status,
    ).to.equal(404);
    expect(
      (
        await south.call("POST", `/api/admin/clients/${north.client.clientId}/rotate`, {
          token: south.client.key,
          body: { overlapHours: 0 },
        })
      ).status,
    ).to.equal(401);
    expect(
      (await north.call("GET", "/open/v1/ping", { token: north.client.key })).status,
      "north's key still works",
    ).to.equal(200);
  },
  "GET /api/admin/authors": async ({ north, south }) => {
    expect(
      (await south.call("GET", "/api/admin/authors", { token: south.authorToken })).status,
      "a tenant's author is no administrator",
    ).to.equal(403);
    const northIds = (
      (await north.call("GET", "/api/admin/authors", { token: ADMIN })).body as Array<{ authorId: string }>
    ).map((author) => author.authorId);
    const listed = await south.call("GET", "/api/admin/authors", { token: south.adminToken });
    const ids = (listed.body as Array<{ authorId: string }>).map((author) => author.authorId);
    expect(ids, "south's authors").not.to.be.empty;
    expect(
      ids.filter((id) => northIds.includes(id)),
      "north's authors listed for south",
    ).to.deep.equal([]);
    expectNothingOfNorth(flat(listed.body), "south's authors");
  },
  "DELETE /api/admin/authors/:authorId": async ({ north, south }) => {
    const [northAuthor] = (await north.call("GET", "/api/admin/authors", { token: ADMIN })).body as Array<{
      authorId: string;
    }>;
    expect(
      (await south.call("DELETE", `/api/admin/authors/${northAuthor!.authorId}`, { token: south.adminToken })).status,
      "north's author is not there for south",
    ).to.equal(404);
    expect((await north.asAuthor("GET", "/api/unmatched")).status, "north's token still works").to.equal(200);
  },
  "POST /api/admin/authors/:authorId/rotate": async ({ north, south }) => {
    const [northAuthor] = (await north.call("GET", "/api/admin/authors", { token: ADMIN })).body as Array<{
      authorId: string;
    }>;
    expect(
      (
        await south.call("POST", `/api/admin/authors/${northAuthor!.authorId}/rotate`, {
          token: south.adminToken,
          body: { overlapHours: 0 },
        })
      ).status,
    ).to.equal(404);
    expect((await north.asAuthor("GET", "/api/unmatched")).status, "north's token still works").to.equal(200);
  },

  "POST /open/v1/lab/reports": async ({ service, north, south }) => {
    // South sends north's externalId, and a report on north's patient: both stay south's.
    const pushed = await south.push("lab", [
      labReport("NORTH-M1", { labName: "south's lab" }),
      labReport("SOUTH-ABOUT-NORTH", { patient: NORTH_PATIENT }),
    ]);
    const [sameId, northPatient] = pushed.body.data.results;
    expect(sameId.status, "north's externalId is a new report of south").to.equal("CREATED");
    expect(northPatient).to.include({ matched: false, pendingReason: "no dialysis patient with this idCard" });
    await until(
      async () =>
        (await service.db.query("select 1 from read.lab_reports where tenant = 'south' and external_id = 'NORTH-M1'"))
          .rowCount === 1,
    );
    const northsOwn = await service.db.query(
      "select lab_name from read.lab_reports where tenant = 'north' and external_id = 'NORTH-M1'",
    );
    expect(northsOwn.rows).to.deep.equal([{ lab_name: "Central lab" }]);
    expect(
      (await north.call("GET", "/open/v1/reconcile/lab?date=2026-01-10", { token: north.client.key })).body.data
        .externalIds,
    ).to.deep.equal(["NORTH-M1"]);
  },
  "POST /open/v1/exam/reports": async ({ service, south }) => {
    const pushed = await south.push("exam", [
      {
        externalId: "NORTH-ECHO",
        patient: { idCard: NORTH_PATIENT.idCard },
        examType: "ECHO",
        reportedAt: "2026-03-02 10:00:00",
      },
    ]);
    expect(pushed.body.data.results[0]).to.include({ status: "CREATED", matched: false });
    const northsOwn = await service.db.query(
      "select patient_ref from read.exam_reports where tenant = 'north' and external_id = 'NORTH-ECHO'",
    );
    expect(northsOwn.rows).to.deep.equal([{ patient_ref: "P001" }]);
  },
  "POST /open/v1/hl7": async ({ service, south }) => {
    // As a push: north's externalId and north's patient in south's HL7 message stay south's.
    const answer = await fetch(`${service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${south.client.key}`, "content-type": "x-application/hl7-v2+er7" },
      body: oruR01({ externalId: "NORTH-DAY", idCard: NORTH_PATIENT.idCard }),
    });
    expect(await answer.text()).to.match(/\rMSA\|AA\|[^\r]*awaiting a patient/);
    const northsOwn = await service.db.query(
      "select patient_ref, lab_name from read.lab_reports where tenant = 'north' and external_id = 'NORTH-DAY'",
    );
    expect(northsOwn.rows).to.deep.equal([{ patient_ref: "P001", lab_name: "Central lab" }]);
  },
  "GET /fhir/r4/metadata": async ({ south }) =>
    expectNothingOfNorth(flat((await south.call("GET", "/fhir/r4/metadata")).body), "the CapabilityStatement"),
  "POST /fhir/r4": async ({ service, south }) => {
    // As a push: north's externalId and north's patient in south's Bundle stay south's.
    const bundle = diagnosticReportBundle({ externalId: "NORTH-DAY-FHIR" });
    (bundle.entry![0]!.resource as Patient).identifier![1]!.value = NORTH_PATIENT.idCard;
    const answer = await fetch(`${service.url}/fhir/r4`, {
      method: "POST",
      headers: { authorization: `Bearer ${south.client.key}`, "content-type": "application/fhir+json" },
      body: JSON.stringify(bundle),
    });
    expect(((await answer.json()) as Bundle).entry![1]!.response!.status).to.equal("201 Created");
    const { rows } = await service.db.query(
      "select tenant, data->'match'->>'matched' as matched from events where stream_id = 'lab-report:NORTH-DAY-FHIR'",
    );
    expect(rows).to.deep.equal([{ tenant: "south", matched: "false" }]);
  },
  "GET /fhir/r4/Observation": async ({ service, south }) => {
    // South's own reports may carry north's externalIds (the push cases above): the results are compared with south's rows.
    const answer = await south.call("GET", "/fhir/r4/Observation?patient=P001&_count=500", {
      token: south.authorToken,
    });
    expect(answer.status).to.equal(200);
    const { rows } = await service.db.query(
      "select external_id, item_index from read.lab_results where tenant = 'south' and patient_ref = 'P001'",
    );
    const souths = rows.map((row) => `${fhirId(row.external_id)}-${row.item_index}`).sort();
    expect(((answer.body as Bundle).entry ?? []).map((entry) => entry.resource!.id).sort()).to.deep.equal(souths);
    expect(souths).to.not.be.empty;
  },
  "GET /fhir/r4/MeasureReport": async ({ north, south }) => {
    // North's patient under care in 2026-03 counts in north's figures, never in south's.
    await northQualityReport({ north });
    const answer = await south.call("GET", "/fhir/r4/MeasureReport?period=2026-03", { token: south.authorToken });
    expect(answer.status).to.equal(200);
    const souths = await south.call("GET", "/api/quality/months/2026-03", { token: south.authorToken });
    const counts = (answer.body as Bundle).entry!.map(({ resource }) =>
      (resource as MeasureReport).group![0]!.population!.map((population) => population.count),
    );
    expect(counts).to.deep.equal(
      (souths.body.indicators as Array<{ numerator: number; denominator: number }>).map((figures) => [
        figures.numerator,
        figures.denominator,
      ]),
    );
    expectNothingOfNorth(flat(answer.body), "south's MeasureReports");
  },
  "GET /fhir/r4/Patient": async ({ south }) => {
    const answer = await south.call(
      "GET",
      `/fhir/r4/Patient?identifier=${encodeURIComponent(`urn:oid:2.16.156.10011.1.1|${NORTH_PATIENT.idCard}`)}`,
      { token: south.authorToken },
    );
    expect(answer.status).to.equal(200);
    expect((answer.body as Bundle).entry ?? [], "north's patient is not south's").to.deep.equal([]);
  },
  "GET /fhir/r4/DiagnosticReport/:id": async ({ service, north, south }) => {
    // A report only north holds: south finds nothing by its id.
    expect((await north.push("lab", [labReport("NORTH-ONLY-FHIR")])).status).to.equal(200);
    await until(
      async () =>
        (
          await service.db.query(
            "select 1 from read.lab_reports where tenant = 'north' and external_id = 'NORTH-ONLY-FHIR'",
          )
        ).rowCount === 1,
    );
    const answer = await south.call("GET", "/fhir/r4/DiagnosticReport/NORTH-ONLY-FHIR", { token: south.authorToken });
    expect(answer.status).to.equal(404);
    expectNothingOfNorth(flat(answer.body).replace("NORTH-ONLY-FHIR", ""), "the 404");
  },
  "POST /open/v1/lab/reports/bulk": async ({ service, north, south }) => {
    // As a push: north's externalId and north's patient sent in south's job stay south's.
    const job = await bulkJob(service, south, "lab", [
      labReport("NORTH-EXTRA", { labName: "south's bulk lab", reportedAt: "2026-01-11 10:00:00" }),
      labReport("SOUTH-BULK-ABOUT-NORTH", { patient: NORTH_PATIENT }),
    ]);
    expect(job).to.include({ status: "DONE", created: 2, unmatched: 1 });
    const northsOwn = await service.db.query(
      "select lab_name, reported_at::date::text as day from read.lab_reports where tenant = 'north' and external_id = 'NORTH-EXTRA'",
    );
    expect(northsOwn.rows).to.deep.equal([{ lab_name: "Central lab", day: "2026-03-02" }]);
    expect(
      (await north.call("GET", "/open/v1/reconcile/lab?date=2026-01-11", { token: north.client.key })).body.data
        .externalIds,
    ).to.deep.equal([]);
  },
  "POST /open/v1/exam/reports/bulk": async ({ service, south }) => {
    const job = await bulkJob(service, south, "exam", [
      {
        externalId: "NORTH-ECHO",
        patient: { idCard: NORTH_PATIENT.idCard },
        examType: "ECHO",
        reportedAt: "2026-03-02 10:00:00",
      },
    ]);
    expect(job).to.include({ status: "DONE", unmatched: 1 });
    const northsOwn = await service.db.query(
      "select patient_ref from read.exam_reports where tenant = 'north' and external_id = 'NORTH-ECHO'",
    );
    expect(northsOwn.rows).to.deep.equal([{ patient_ref: "P001" }]);
  },
  "GET /open/v1/bulk/:jobId": async ({ service, north, south }) => {
    const northJob = await bulkJob(service, north, "lab", [
      labReport("NORTH-BULK-1"),
      { externalId: "NORTH-BULK-BAD" },
    ]);
    const seen = await south.call("GET", `/open/v1/bulk/${northJob.jobId}`, { token: south.client.key });
    expect(seen.status).to.equal(404);
    expectNothingOfNorth(flat(seen.body), "another tenant's bulk job");
  },
  "GET /open/v1/bulk/:jobId/rejected": async ({ service, north, south }) => {
    const northJob = await bulkJob(service, north, "lab", [{ externalId: "NORTH-BULK-REJECTED" }]);
    expect(northJob.rejected).to.equal(1);
    const seen = await south.call("GET", `/open/v1/bulk/${northJob.jobId}/rejected`, { token: south.client.key });
    expect(seen.status).to.equal(404);
    expectNothingOfNorth(flat(seen.body), "another tenant's rejected lines");
  },
  "GET /open/v1/dict/lab-items": async ({ north, south }) => {
    // One dictionary for every tenant (contract B.4): the same answer, nothing of a tenant in it.
    const seen = await south.call("GET", "/open/v1/dict/lab-items", { token: south.client.key });
    const northSees = await north.call("GET", "/open/v1/dict/lab-items", { token: north.client.key });
    expect(seen.body.data).to.deep.equal(northSees.body.data);
  },
  "GET /open/v1/reconcile/lab": async ({ service, south }) => {
    const { day, own } = await settledDay(service, south, "lab");
    expect(day.body.data).to.deep.include({
      externalIds: own.lab,
      labReportCount: own.lab.length,
      examReportCount: own.exam.length,
      unmatchedCount: own.unmatched,
    });
    expect(own.lab).to.include("SOUTH-DAY");
    expectNothingOfNorth(flat(day.body), "south's reconciliation");
  },
  "GET /open/v1/reconcile/exam": async ({ service, south }) => {
    const { day, own } = await settledDay(service, south, "exam");
    expect(day.body.data).to.deep.include({
      externalIds: own.exam,
      examReportCount: own.exam.length,
      unmatchedCount: own.unmatched,
    });
    expect(own.exam).to.include("SOUTH-ECHO");
  },
  "GET /open/v1/ping": async ({ south }) => {
    const ping = await south.call("GET", "/open/v1/ping", { token: south.client.key });
    expect(ping.body.data).to.include({ tenant: "south" });
  },
};

describe("security: tenant isolation over every endpoint", function () {
  this.timeout(60_000);
  const world = {} as World;
  let routes: RouteEntry[] = [];

  before(async () => {
    const inventory = await withRouteInventory(() => startTestService({ projections: allProjections }));
    routes = inventory.routes;
    world.service = inventory.started;
    world.north = await seedTenant(world.service, "north", "NORTH");
    world.south = await seedTenant(world.service, "south", "SOUTH");
    const { north, service } = world;
    for (const [step, answer] of [
      ["patient", await north.asAuthor("PUT", "/api/patients/P-NORTH", { ...NORTH_PATIENT, ward: "N" })],
      [
        "push",
        await north.push("lab", [
          labReport("NORTH-PENDING", { patient: NORTH_PENDING, reportedAt: "2026-03-02 12:00:00" }),
          labReport("NORTH-EXTRA", { reportedAt: "2026-03-02 13:00:00" }),
        ]),
      ],
      [
        "north-only",
        await north.asAuthor("PUT", "/api/reports/north-only/draft", { title: "North only", spec: everyParamSpec }),
      ],
      ["north-only v1", await north.asAuthor("POST", "/api/reports/north-only/publish", { mode: "dynamic" })],
      [
        "north-draft",
        await north.asAuthor("PUT", "/api/reports/north-draft/draft", { title: "North draft", spec: adequacySpec }),
      ],
      [
        "every-param draft",
        await north.asAuthor("PUT", "/api/reports/every-param/draft", {
          title: "Every filter of north",
          spec: everyParamSpec,
        }),
      ],
      ["every-param v3", await north.asAuthor("POST", "/api/reports/every-param/publish", { mode: "dynamic" })],
    ] as const) {
      if (answer.status >= 300) throw new Error(`north's ${step}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    await until(
      async () =>
        (await service.db.query("select count(*)::int as n from read.lab_reports where tenant = 'north'")).rows[0].n ===
        7,
    );
  });
  after(() => world.service?.stop());

  it("has an isolation case and an access rule for every route the routers serve, and none for a route that is gone", () => {
    const served = routes.map(routeKey);
    expect(served, "routes read from the routers").to.include.members([
      "GET /healthz",
      "POST /open/v1/lab/reports",
      "POST /api/reports/:id/data",
    ]);
    expect(
      served.filter((key) => !(key in CASES)),
      "routes without an isolation case",
    ).to.deep.equal([]);
    expect(
      Object.keys(CASES).filter((key) => !served.includes(key)),
      "cases of routes that no longer exist",
    ).to.deep.equal([]);
    expect(
      served.filter((key) => !(key in ACCESS)),
      "routes without an access rule (test/security/support/endpointAccess.ts)",
    ).to.deep.equal([]);
  });

  for (const [key, attempt] of Object.entries(CASES)) {
    it(`${key}: south gets nothing of north's`, async function () {
      if (routes.length > 0 && !routes.some((route) => routeKey(route) === key)) this.skip(); // reported by the completeness check
      await attempt(world);
    });
  }
});
