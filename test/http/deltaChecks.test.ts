import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { alertsProjection } from "../../projections/alerts/alerts.ts";
import { deltaChecksReactor } from "../../reactors/deltaChecks.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { silentLogger } from "../../src/logger.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ADMIN } from "../support/http.ts";
import { ingestionTenant, labReport, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * Delta checks over HTTP (contract F.3): real pushes, in both orders. A result that moved from the
 * patient's previous one beyond the dictionary's delta limit raises a DELTA alert, listed apart from
 * critical ones by `kind`, and is flagged in the patient's results; a late-arriving older result is
 * compared with its own previous one, and the result after it is judged again.
 */

const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const daysAgo = (days: number) => hoursAgo(days * 24);

/** A report of 张三 with one result, its sample taken at `collectedAt`. */
const result = (
  externalId: string,
  itemCode: string,
  value: number,
  unit: string,
  collectedAt: string,
  extra: Record<string, unknown> = {},
) =>
  labReport(externalId, {
    collectedAt,
    reportedAt: localDateTime(new Date(Math.min(Date.now(), Date.parse(collectedAt.replace(" ", "T")) + 3_600_000))),
    items: [{ itemCode, value, unit }],
    ...extra,
  });
const potassium = (externalId: string, value: number, collectedAt: string, extra: Record<string, unknown> = {}) =>
  result(externalId, "K", value, "mmol/L", collectedAt, extra);

type Alert = Record<string, any>;

describe("delta checks (contract F.3): DELTA alerts and flagged results", function () {
  this.timeout(120_000);
  let service: RunningService;
  let counter = 0;

  before(async () => {
    service = await startTestService({ projections: allProjections, env: { WORKER_POLL_SECONDS: "0.5" } });
  });
  after(async () => {
    await service?.stop();
  });

  /** A fresh tenant, so that each story has 张三's series to itself. */
  async function freshTenant(): Promise<IngestionTenant> {
    return ingestionTenant(service, `d${++counter}`);
  }
  const pushed = async (tenant: IngestionTenant, reports: unknown[]) => {
    const answer = await tenant.push("lab", reports);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    await projectionsCaughtUp(service.url!);
  };
  const alertsOf = async (tenant: IngestionTenant, query = "") => {
    const answer = await tenant.call("GET", `/api/alerts${query}`, { token: tenant.authorToken });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as Alert[];
  };
  const everyAlert = async (tenant: IngestionTenant) => [
    ...(await alertsOf(tenant)),
    ...(await alertsOf(tenant, "?state=acknowledged")),
    ...(await alertsOf(tenant, "?state=closed")),
  ];
  const pointsOf = async (tenant: IngestionTenant, code: string) => {
    const answer = await tenant.call(
      "GET",
      `/api/patients/P001/results?codes=${code}&from=${daysAgo(60).slice(0, 10)}&to=${hoursAgo(0).slice(0, 10)}`,
      { token: tenant.authorToken },
    );
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.series[0].points as Array<Record<string, any>>;
  };

  it("raises a DELTA alert for potassium 3.6 then 5.4 two days later, below the critical limits, and flags the result", async () => {
    const tenant = await freshTenant();
    const before = daysAgo(2);
    await pushed(tenant, [potassium("K-BEFORE", 3.6, before)]);
    await pushed(tenant, [potassium("K-AFTER", 5.4, hoursAgo(1))]);
    const [alert, ...others] = await alertsOf(tenant);
    expect(others, "one alert, on the later result").to.deep.equal([]);
    expect(alert).to.deep.include({
      kind: "DELTA",
      externalId: "K-AFTER",
      patientRef: "P001",
      patientName: "张三",
      code: "K",
      name: "钾",
      label: "K",
      value: 5.4,
      unit: "mmol/L",
    });
    expect(alert!.delta).to.deep.equal({
      previous: 3.6,
      previousAt: before.replace(" ", "T"),
      change: 1.8,
      previousExternalId: "K-BEFORE",
      limit: { limit: 1.5, percent: false, days: 30 },
    });
    expect(alert!.reason).to.match(
      /^changed by \+1\.8 mmol\/L from 3\.6 mmol\/L on \d{4}-\d\d-\d\d, beyond the delta limit 1\.5 mmol\/L within 30 days$/,
    );
    const points = await pointsOf(tenant, "K");
    expect(points.map((point) => point.externalId)).to.deep.equal(["K-BEFORE", "K-AFTER"]);
    expect(points[0]).to.not.have.property("delta");
    expect(points[1]!.delta).to.deep.equal({
      previous: 3.6,
      previousAt: before.replace(" ", "T"),
      change: 1.8,
      previousExternalId: "K-BEFORE",
    });
    // A period that starts after the previous result: its first point still compares with it.
    const day = points[1]!.at.slice(0, 10);
    const period = await tenant.call("GET", `/api/patients/P001/results?codes=K&from=${day}&to=${day}`, {
      token: tenant.authorToken,
    });
    expect(
      period.body.series[0].points.map((point: Record<string, any>) => [
        point.externalId,
        point.delta?.previousExternalId,
      ]),
    ).to.deep.equal([["K-AFTER", "K-BEFORE"]]);
    expect(await alertsOf(tenant, "?kind=CRITICAL"), "not a critical result").to.deep.equal([]);
    expect((await tenant.call("GET", "/api/alerts/count", { token: tenant.authorToken })).body).to.deep.equal({
      open: 1,
      critical: 0,
      delta: 1,
    });
    expect((await alertsOf(tenant, "?kind=DELTA")).map((a) => a.alertId)).to.deep.equal([alert!.alertId]);
  });

  it("compares a late-arriving older result with its own previous one, and judges the newer one again against it", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("K-A", 5.0, daysAgo(10)), potassium("K-C", 5.2, hoursAgo(1))]);
    expect(await everyAlert(tenant), "5.0 then 5.2 is within the limit").to.deep.equal([]);
    // Sampled two days ago, arriving last: its previous is K-A (10 days ago), not the newest, K-C.
    await pushed(tenant, [potassium("K-B", 3.4, daysAgo(2))]);
    const alerts = await alertsOf(tenant, "?kind=DELTA");
    const byReport = Object.fromEntries(alerts.map((a) => [a.externalId, a]));
    expect(Object.keys(byReport).sort()).to.deep.equal(["K-B", "K-C"]);
    expect(byReport["K-B"]!.delta).to.deep.include({ previous: 5, previousExternalId: "K-A", change: -1.6 });
    expect(byReport["K-C"]!.delta).to.deep.include({ previous: 3.4, previousExternalId: "K-B", change: 1.8 });
    const points = await pointsOf(tenant, "K");
    expect(points.map((point) => [point.externalId, point.delta?.previousExternalId ?? null])).to.deep.equal([
      ["K-A", null],
      ["K-B", "K-A"],
      ["K-C", "K-B"],
    ]);
  });

  it("raises on the newer result when an older one arrives after it with nothing before; closes it when another arrives between them", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("K-NEW", 5.4, hoursAgo(1))]);
    expect(await everyAlert(tenant), "no previous result: nothing to compare").to.deep.equal([]);
    await pushed(tenant, [potassium("K-OLD", 3.6, daysAgo(2))]);
    const [raised, ...more] = await alertsOf(tenant);
    expect(more).to.deep.equal([]);
    expect(raised).to.deep.include({ kind: "DELTA", externalId: "K-NEW" });
    expect(raised!.delta).to.deep.include({ previous: 3.6, previousExternalId: "K-OLD", change: 1.8 });
    // Sampled between them: 3.6 -> 5.3 moved too far, 5.3 -> 5.4 did not.
    await pushed(tenant, [potassium("K-MID", 5.3, daysAgo(1))]);
    const open = await alertsOf(tenant);
    expect(open.map((a) => a.externalId)).to.deep.equal(["K-MID"]);
    expect(open[0]!.delta).to.deep.include({ previous: 3.6, previousExternalId: "K-OLD", change: 1.7 });
    const [closed] = await alertsOf(tenant, "?state=closed");
    expect(closed).to.deep.include({
      alertId: raised!.alertId,
      kind: "DELTA",
      closedReason: "the result no longer differs from the previous one by more than the delta limit",
    });
    // A corrected K-MID that stays near K-OLD closes its own alert and makes K-NEW's move too far again.
    await pushed(tenant, [potassium("K-MID", 3.8, daysAgo(1), { status: "CORRECTED" })]);
    expect((await alertsOf(tenant)).map((a) => [a.externalId, a.delta.previousExternalId])).to.deep.equal([
      ["K-NEW", "K-MID"],
    ]);
    const { rows } = await service.db.query(
      `select type, metadata->>'actor' as actor from events where tenant = $1 and stream_id = 'critical-results:K-MID' order by stream_version`,
      [`d${counter}`],
    );
    expect(rows).to.deep.equal([
      { type: "DeltaAlertRaised", actor: "delta-checks" },
      { type: "DeltaAlertClosed", actor: "delta-checks" },
    ]);
  });

  it("judges each report of one push as of its own place in the push: newer first, older after, in the same batch", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [
      potassium("ONE-NEW", 5.4, hoursAgo(1)),
      potassium("ONE-OLD", 3.6, daysAgo(2)),
      potassium("ONE-OTHER", 4.0, daysAgo(3)),
    ]);
    const events = (
      await service.db.query(
        "select type, stream_id, metadata->>'causationId' as cause from events where tenant = $1 and type like 'Delta%' order by position",
        [`d${counter}`],
      )
    ).rows;
    const positions = Object.fromEntries(
      (
        await service.db.query(
          "select data->>'externalId' as id, position::text from events where tenant = $1 and type = 'LabReportReceived'",
          [`d${counter}`],
        )
      ).rows.map((row) => [row.id, row.position]),
    );
    // ONE-NEW had no previous result when it arrived; ONE-OLD, arriving after it, made it move too far; ONE-OTHER, older still, changed nothing for ONE-NEW.
    expect(events).to.deep.equal([
      { type: "DeltaAlertRaised", stream_id: "critical-results:ONE-NEW", cause: positions["ONE-OLD"] },
    ]);
    const [alert] = await alertsOf(tenant);
    expect(alert!.delta).to.deep.include({ previous: 3.6, previousExternalId: "ONE-OLD", change: 1.8 });
  });

  it("raises nothing for a change within the limit, nor for a previous result more than 30 days before; judges IPTH in percent", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [
      result("CA-1", "CA", 2.2, "mmol/L", daysAgo(3)),
      result("P-1", "P", 1.0, "mmol/L", daysAgo(40)),
      result("PTH-1", "IPTH", 300, "pg/mL", daysAgo(20)),
    ]);
    await pushed(tenant, [
      result("CA-2", "CA", 2.6, "mmol/L", hoursAgo(2)),
      result("P-2", "P", 2.0, "mmol/L", hoursAgo(2)),
      result("PTH-2", "IPTH", 500, "pg/mL", hoursAgo(2)),
    ]);
    const alerts = await everyAlert(tenant);
    expect(alerts.map((a) => a.externalId)).to.deep.equal(["PTH-2"]);
    expect(alerts[0]!.delta).to.deep.include({
      previous: 300,
      change: 200,
      limit: { limit: 50, percent: true, days: 30 },
    });
    expect(alerts[0]!.reason).to.contain("beyond the delta limit 50 % within 30 days");
  });

  it("acknowledges a DELTA alert as a critical one; the report's history shows it with its kind", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [result("HB-1", "HGB", 110, "g/L", daysAgo(5))]);
    await pushed(tenant, [result("HB-2", "HGB", 85, "g/L", hoursAgo(3))]);
    const [alert] = await alertsOf(tenant);
    expect(alert).to.deep.include({ kind: "DELTA", externalId: "HB-2", code: "HGB" });
    const acknowledged = await tenant.call("POST", `/api/alerts/${alert!.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "Redrawn: the first tube was mislabelled" },
    });
    expect(acknowledged.status).to.equal(200);
    expect(acknowledged.body).to.deep.include({
      kind: "DELTA",
      acknowledgedBy: "Nurse Chen",
      note: "Redrawn: the first tube was mislabelled",
    });
    expect(await alertsOf(tenant)).to.deep.equal([]);
    expect((await alertsOf(tenant, "?state=acknowledged&kind=DELTA")).map((a) => a.alertId)).to.deep.equal([
      alert!.alertId,
    ]);
    const history = (await tenant.call("GET", "/api/history/lab/HB-2", { token: tenant.authorToken })).body as {
      entries: Array<Record<string, unknown>>;
    };
    expect(history.entries.map((entry) => [entry.event, entry.kind ?? null])).to.deep.equal([
      ["RECEIVED", null],
      ["ALERT_RAISED", "DELTA"],
      ["ALERT_ACKNOWLEDGED", "DELTA"],
    ]);
    expect(history.entries[1]).to.deep.include({ by: "delta-checks", code: "HGB" });
  });

  it("shows a DELTA alert only to callers who may see its patient's ward (contract E.2)", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("W-1", 3.6, daysAgo(2))]);
    await pushed(tenant, [potassium("W-2", 5.4, hoursAgo(1))]);
    const wardToken = async (wards: string[]) =>
      (
        await tenant.call("POST", "/api/admin/authors", {
          token: ADMIN,
          body: { name: "Nurse Wu", tenant: `d${counter}`, roles: ["clinician"], wards },
        })
      ).body.token as string;
    const listed = async (token: string) =>
      ((await tenant.call("GET", "/api/alerts?kind=DELTA", { token })).body as Alert[]).map((a) => a.externalId);
    expect(await listed(await wardToken(["A"]))).to.deep.equal(["W-2"]);
    expect(await listed(await wardToken(["B"]))).to.deep.equal([]);
  });

  it("keeps critical alerts as they were, of kind CRITICAL, and each kind apart", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("CR-1", 5.4, daysAgo(1))]);
    // 5.4 -> 6.9 is critical, and a change of 1.5, which is not beyond the delta limit.
    await pushed(tenant, [potassium("CR-2", 6.9, hoursAgo(1))]);
    const [critical, ...none] = await alertsOf(tenant);
    expect(none).to.deep.equal([]);
    expect(critical).to.deep.include({
      kind: "CRITICAL",
      externalId: "CR-2",
      reason: "above the critical limit 6.2 mmol/L",
    });
    expect(critical).to.not.have.property("delta");
    // 6.9 -> 4.0: a delta alert on CR-3, and CR-2's critical alert untouched by it.
    await pushed(tenant, [potassium("CR-3", 4.0, hoursAgo(0.5))]);
    expect((await alertsOf(tenant, "?kind=CRITICAL")).map((a) => a.externalId)).to.deep.equal(["CR-2"]);
    expect((await alertsOf(tenant, "?kind=DELTA")).map((a) => a.externalId)).to.deep.equal(["CR-3"]);
    const wrong = await tenant.call("GET", "/api/alerts?kind=delta-ish", { token: tenant.authorToken });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.equal("kind is CRITICAL or DELTA.");
  });

  it("raises nothing for results days old at receipt, nor for an unmatched report until it is claimed", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("OLD-1", 3.6, daysAgo(9)), potassium("OLD-2", 5.6, daysAgo(6))]);
    expect(await everyAlert(tenant)).to.deep.equal([]);
    expect((await pointsOf(tenant, "K"))[1]!.delta, "flagged all the same").to.deep.include({ change: 2 });
    await pushed(tenant, [
      potassium("LATE-CLAIM", 3.9, hoursAgo(2), { patient: { idCard: "110105200002290013", name: "王五" } }),
    ]);
    expect(await everyAlert(tenant)).to.deep.equal([]);
    await tenant.call("POST", "/api/unmatched/lab/LATE-CLAIM/claim", {
      token: tenant.authorToken,
      body: { patientRef: "P001" },
    });
    const [alert] = await until(async () => {
      const open = await alertsOf(tenant);
      return open.length > 0 && open;
    });
    expect(alert).to.deep.include({ kind: "DELTA", externalId: "LATE-CLAIM", patientRef: "P001" });
    expect(alert!.delta).to.deep.include({ previousExternalId: "OLD-2", change: -1.7 });
  });

  it("streams a delta alert as Server-Sent Events with its kind and delta", async () => {
    const tenant = await freshTenant();
    await pushed(tenant, [potassium("S-1", 3.6, daysAgo(2))]);
    const abort = new AbortController();
    const response = await fetch(`${service.url}/api/alerts/stream`, {
      headers: { authorization: `Bearer ${tenant.authorToken}`, "x-service-tenant": `d${counter}` },
      signal: abort.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}`);
        text += value;
      }
      return pattern.exec(text)!;
    };
    await readUntil(/: listening/);
    await tenant.push("lab", [potassium("S-2", 5.4, hoursAgo(1))]);
    const [, data] = await readUntil(/event: raised\ndata: (.*"S-2".*)\n\n/);
    const raised = JSON.parse(data!) as Alert;
    expect(raised).to.deep.include({ kind: "DELTA", externalId: "S-2" });
    expect(raised.delta).to.deep.include({ previous: 3.6, change: 1.8, previousExternalId: "S-1" });
    abort.abort();
  });

  it("rebuilds its table and the alerts to the same rows by replay, appending no event", async () => {
    await projectionsCaughtUp(service.url!);
    const digest = async () => {
      const { rows: gens } = await service.db.query(
        "select schema_name from projection_generations where name = 'delta_checks' and state = 'live'",
      );
      const table = async (name: string) =>
        (
          await service.db.query(
            `select md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as md5, count(*)::int as n from ${name} t`,
          )
        ).rows[0];
      return { own: await table(`${gens[0].schema_name}.delta_results`), alerts: await table("read.alerts") };
    };
    const events = async () => (await service.db.query("select count(*)::int as n from events")).rows[0].n as number;
    const before = await digest();
    expect(before.own.n).to.be.greaterThan(10);
    const eventsBefore = await events();
    for (const projection of [deltaChecksReactor, alertsProjection]) {
      const rebuilt = await rebuildProjection(service.db, projection, silentLogger);
      expect(rebuilt.status, projection.name).to.equal("rebuilt");
      if (projection === deltaChecksReactor && rebuilt.status === "rebuilt")
        expect(rebuilt.loadedAtOnce, "loaded by set").to.be.greaterThan(0);
    }
    expect(await digest()).to.deep.equal(before);
    expect(await events(), "replay appends nothing").to.equal(eventsBefore);
  });
});
