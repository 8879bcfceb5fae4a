import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { localDateTime } from "../../db/localDateTime.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ingestionTenant, labReport, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * One result, one alert to acknowledge (issue #54; contract F.3 as amended; decision 0073), over
 * HTTP on a running service with an alert webhook: a potassium both critical and beyond its delta
 * limit is one CRITICAL alert carrying both reasons, acknowledged once; the repeat after treatment,
 * back inside the reference range, is information: listed under state=info, never open, counted,
 * streamed or sent to the webhook.
 */

const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));

/** A report of 张三 with one potassium, its sample taken `hours` ago, with the laboratory's range 3.5–5.3. */
const potassium = (externalId: string, value: number, hours: number, abnormalFlag?: string) =>
  labReport(externalId, {
    collectedAt: hoursAgo(hours),
    reportedAt: hoursAgo(Math.max(0, hours - 1)),
    items: [
      {
        itemCode: "K",
        itemName: "钾",
        value,
        unit: "mmol/L",
        refLow: 3.5,
        refHigh: 5.3,
        ...(abnormalFlag ? { abnormalFlag } : {}),
      },
    ],
  });
const haemoglobin = (externalId: string, value: number, hours: number) =>
  labReport(externalId, {
    collectedAt: hoursAgo(hours),
    reportedAt: hoursAgo(Math.max(0, hours - 1)),
    items: [{ itemCode: "HGB", itemName: "血红蛋白", value, unit: "g/L" }],
  });

type Alert = { alertId: string; externalId?: string; delta?: Record<string, unknown>; [field: string]: unknown };

describe("one result, one alert to acknowledge (contract F.3 as amended)", function () {
  this.timeout(120_000);
  let service: RunningService;
  let tenant: IngestionTenant;
  let receiver: Server;
  const delivered: string[] = [];

  before(async () => {
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        delivered.push(body);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    service = await startTestService({
      projections: allProjections,
      env: {
        ALERT_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/alerts`,
        ALERT_WEBHOOK_SECRET: "webhook-secret-0123456789",
        ALERT_WEBHOOK_ALLOW_PRIVATE: "1",
        ALERT_STREAM_HEARTBEAT_SECONDS: "0.5",
        WORKER_POLL_SECONDS: "0.5",
      },
    });
    tenant = await ingestionTenant(service, "one");
  });
  after(async () => {
    await service?.stop();
    receiver?.close();
  });

  const pushed = async (reports: unknown[]) => {
    const answer = await tenant.push("lab", reports);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    await projectionsCaughtUp(service.url!);
  };
  const alertsOf = async (query = "") => {
    const answer = await tenant.call("GET", `/api/alerts${query}`, { token: tenant.authorToken });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as Alert[];
  };
  const count = async () => (await tenant.call("GET", "/api/alerts/count", { token: tenant.authorToken })).body;
  /** The webhook deliveries queued for a report's alerts (one job an alert raised), as pg-boss holds them. */
  const webhookJobs = async (externalId: string) =>
    (
      await service.db.query<{ n: number }>(
        "select count(*)::int as n from pgboss.job where name = 'alert-webhook' and data->'alert'->>'externalId' = $1",
        [externalId],
      )
    ).rows[0]!.n;

  it("raises one CRITICAL alert with both reasons for potassium 6.9 two days after 5.0, and acknowledging it once leaves nothing to acknowledge", async () => {
    await pushed([potassium("K-BEFORE", 5.0, 48)]);
    await pushed([potassium("K-CRITICAL", 6.9, 2, "HH")]);
    const open = await alertsOf();
    expect(open, "one alert for the one result").to.have.length(1);
    const [alert] = open;
    expect(alert).to.deep.include({
      kind: "CRITICAL",
      reasons: ["critical", "delta"],
      severity: "alert",
      externalId: "K-CRITICAL",
      code: "K",
      value: 6.9,
      reason: "flagged HH by the laboratory",
    });
    expect(alert!.delta).to.deep.include({ previous: 5, change: 1.9, previousExternalId: "K-BEFORE" });
    expect(await alertsOf("?kind=DELTA"), "no delta alert of its own").to.deep.equal([]);
    expect(await count()).to.deep.equal({ open: 1, critical: 1, delta: 0 });
    expect(await webhookJobs("K-CRITICAL"), "one webhook for the one alert").to.equal(1);

    const acknowledged = await tenant.call("POST", `/api/alerts/${alert!.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "Dr. Li told; dialysate K lowered, K repeated after the session" },
    });
    expect(acknowledged.status).to.equal(200);
    expect(acknowledged.body).to.deep.include({ acknowledgedBy: "Nurse Chen", reasons: ["critical", "delta"] });
    expect(await alertsOf(), "nothing left to acknowledge").to.deep.equal([]);
    expect(await count()).to.deep.equal({ open: 0, critical: 0, delta: 0 });
    expect((await alertsOf("?state=acknowledged")).map((a) => a.alertId)).to.deep.equal([alert!.alertId]);

    // The report's history keeps what each reactor recorded: the change, as carried by the critical alert.
    const history = (await tenant.call("GET", "/api/history/lab/K-CRITICAL", { token: tenant.authorToken })).body as {
      entries: Array<Record<string, unknown>>;
    };
    const raised = history.entries.filter((entry) => entry.event === "ALERT_RAISED");
    expect(raised.map((entry) => [entry.kind, entry.handledAs ?? null]).sort()).to.deep.equal([
      ["CRITICAL", null],
      ["DELTA", "critical"],
    ]);
    const carried = raised.find((entry) => entry.kind === "DELTA")!;
    const refused = await tenant.call("POST", `/api/alerts/${String(carried.alertId)}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "again" },
    });
    expect(refused.status, "the change is acknowledged with its critical alert").to.equal(409);
    expect(refused.body.code).to.equal("alert-needs-no-acknowledgement");
  });

  it("shows the repeat after treatment, 5.1 inside the reference range, as information: nothing to acknowledge, no webhook, nothing streamed", async () => {
    const abort = new AbortController();
    const stream = await fetch(`${service.url}/api/alerts/stream`, {
      headers: { authorization: `Bearer ${tenant.authorToken}`, "x-service-tenant": "one" },
      signal: abort.signal,
    });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}`);
        text += value;
      }
    };
    await readUntil(/: listening/);

    await pushed([potassium("K-REPEAT", 5.1, 1, "N")]);
    expect(await alertsOf(), "not an alert to acknowledge").to.deep.equal([]);
    expect(await count()).to.deep.equal({ open: 0, critical: 0, delta: 0 });
    const [info, ...more] = await alertsOf("?state=info");
    expect(more).to.deep.equal([]);
    expect(info).to.deep.include({
      kind: "DELTA",
      reasons: ["delta"],
      severity: "info",
      externalId: "K-REPEAT",
      value: 5.1,
    });
    expect(info!.delta).to.deep.include({ previous: 6.9, change: -1.8, previousExternalId: "K-CRITICAL" });
    expect(await alertsOf("?state=closed"), "nor closed").to.deep.equal([]);
    const refused = await tenant.call("POST", `/api/alerts/${info!.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "seen" },
    });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal("alert-needs-no-acknowledgement");
    expect(await webhookJobs("K-REPEAT"), "no webhook").to.equal(0);

    // The change stays on the result in the chart's data.
    // From the day it was taken (an hour ago, yesterday just after midnight) to today.
    const [from, to] = [hoursAgo(1).slice(0, 10), hoursAgo(0).slice(0, 10)];
    const results = await tenant.call("GET", `/api/patients/P001/results?codes=K&from=${from}&to=${to}`, {
      token: tenant.authorToken,
    });
    const point = (results.body.series[0].points as Alert[]).find((p) => p.externalId === "K-REPEAT");
    expect(point!.delta).to.deep.include({ previous: 6.9, change: -1.8 });

    // A plain delta alert after it is streamed; the information before it never was.
    await pushed([haemoglobin("HB-1", 110, 100)]);
    await pushed([haemoglobin("HB-2", 85, 1)]);
    await readUntil(/event: raised\ndata: .*"HB-2"/);
    expect(text, "information is not streamed").to.not.contain('"K-REPEAT"');
    abort.abort();
  });

  it("lists under each kind exactly what the count counts", async () => {
    const open = await alertsOf();
    const { open: total, critical, delta } = await count();
    expect(total).to.equal(open.length);
    expect(critical).to.equal((await alertsOf("?kind=CRITICAL")).length);
    expect(delta).to.equal((await alertsOf("?kind=DELTA")).length);
    expect(critical + delta).to.equal(total);
    const wrong = await tenant.call("GET", "/api/alerts?state=everything", { token: tenant.authorToken });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.match(/open, acknowledged, closed or info/);
  });
});
