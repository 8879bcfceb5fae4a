import { expect } from "chai";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { allProjections } from "../../src/app/allProjections.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { signature } from "../../src/alerts/alertWebhook.ts";
import { loadConfig } from "../../src/app/config.ts";
import type { RunningService } from "../../src/app/service.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { runNode } from "../support/cliProcess.ts";
import { ingestionTenant, labReport, LI_SI, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * Critical-result alerts over HTTP (contract D.7): raised by the reactor from what is pushed,
 * listed, acknowledged with a note, closed by a correction, streamed as Server-Sent Events, and
 * POSTed to a webhook receiver on localhost that checks the signature.
 */

const SECRET = "webhook-secret-0123456789";
const now = () => localDateTime(new Date());
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));

/** A report of 张三 taken an hour ago with this potassium. */
const withPotassium = (externalId: string, value: number, extra: Record<string, unknown> = {}) =>
  labReport(externalId, {
    collectedAt: hoursAgo(1),
    reportedAt: now(),
    items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
    ...extra,
  });

interface Delivery {
  headers: IncomingMessage["headers"];
  body: string;
}

describe("critical-result alerts (/api/alerts)", function () {
  this.timeout(60_000);
  let service: RunningService;
  let tenant: IngestionTenant;
  let receiver: Server;
  const deliveries: Delivery[] = [];
  let refuseNext = 1;
  const alerts = async (state = "open") =>
    (await tenant.call("GET", `/api/alerts?state=${state}`, { token: tenant.authorToken })).body as Array<
      Record<string, unknown>
    >;
  // The critical alert of the report: pushes here also move potassium beyond its delta limit (F.3), which raises alerts of kind DELTA too.
  const alertOf = (externalId: string, state = "open") =>
    until(async () =>
      (await alerts(state)).find((alert) => alert.externalId === externalId && alert.kind === "CRITICAL"),
    );

  before(async () => {
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        // The first delivery is refused: the service must try again.
        if (refuseNext-- > 0) return void response.writeHead(503).end();
        deliveries.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/critical`;
    service = await startTestService({
      projections: allProjections,
      env: {
        ALERT_WEBHOOK_URL: url,
        ALERT_WEBHOOK_SECRET: SECRET,
        ALERT_WEBHOOK_ALLOW_PRIVATE: "1",
        ALERT_STREAM_HEARTBEAT_SECONDS: "0.2",
        WORKER_POLL_SECONDS: "0.5",
      },
    });
    tenant = await ingestionTenant(service, "h1");
  });
  after(async () => {
    await service?.stop();
    receiver?.close();
  });

  it("raises an alert for a potassium above the critical limit, with the patient and the reason", async () => {
    expect((await tenant.push("lab", [withPotassium("CRIT-K-1", 6.9)])).status).to.equal(200);
    const alert = await alertOf("CRIT-K-1");
    expect(alert).to.deep.include({
      patientRef: "P001",
      patientName: "张三",
      code: "K",
      name: "钾",
      value: 6.9,
      unit: "mmol/L",
      reason: "above the critical limit 6.2 mmol/L",
    });
    expect(alert, "the English name and label beside the name (#34 item 5)").to.deep.include({
      nameEn: "Potassium",
      label: "K",
    });
    expect(alert.raisedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(alert).to.not.have.property("acknowledgedAt");
  });

  it("acknowledges with a note, once; the report's history shows raising and acknowledging", async () => {
    const alert = await alertOf("CRIT-K-1");
    const path = `/api/alerts/${alert.alertId}/acknowledge`;
    const first = await tenant.call("POST", path, {
      token: tenant.authorToken,
      body: { note: "Dr. Li informed; K repeated" },
    });
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.include({
      alertId: alert.alertId,
      acknowledgedBy: "Nurse Chen",
      note: "Dr. Li informed; K repeated",
    });
    const again = await tenant.call("POST", path, { token: tenant.authorToken, body: { note: "a second click" } });
    expect(again.body.note, "acknowledged once").to.equal("Dr. Li informed; K repeated");
    expect((await alerts()).map((a) => a.alertId)).to.not.include(alert.alertId);
    expect((await alerts("acknowledged")).map((a) => a.alertId)).to.include(alert.alertId);
    const { rows } = await service.db.query(
      "select type, metadata->>'actor' as actor from events where tenant = 'h1' and stream_id = 'critical-results:CRIT-K-1' order by stream_version",
    );
    expect(rows).to.deep.equal([
      { type: "CriticalResultRaised", actor: "critical-results" },
      { type: "CriticalResultAcknowledged", actor: "Nurse Chen" },
    ]);
    const history = (await tenant.call("GET", "/api/history/lab/CRIT-K-1", { token: tenant.authorToken })).body as {
      entries: Array<Record<string, unknown>>;
    };
    expect(history.entries.map((entry) => entry.event)).to.deep.equal([
      "RECEIVED",
      "ALERT_RAISED",
      "ALERT_ACKNOWLEDGED",
    ]);
    expect(history.entries[1]).to.deep.include({
      by: "critical-results",
      alertId: alert.alertId,
      code: "K",
      reason: "above the critical limit 6.2 mmol/L",
    });
    expect(history.entries[2]).to.deep.include({ by: "Nurse Chen", note: "Dr. Li informed; K repeated" });
  });

  it("closes an alert when a corrected report no longer holds the critical value", async () => {
    await tenant.push("lab", [withPotassium("CRIT-K-2", 2.1)]);
    const alert = await alertOf("CRIT-K-2");
    expect(alert.reason).to.equal("below the critical limit 2.8 mmol/L");
    await tenant.push("lab", [withPotassium("CRIT-K-2", 3.9, { status: "CORRECTED" })]);
    const closed = await alertOf("CRIT-K-2", "closed");
    expect(closed).to.deep.include({
      alertId: alert.alertId,
      closedReason: "an update of the report no longer holds this critical value",
    });
    // 6.9 then 2.1 and 3.9 also moved beyond potassium's delta limit: that alert (kind DELTA, F.3) is not this one's to close.
    expect((await alerts()).filter((a) => a.kind === "CRITICAL").map((a) => a.externalId)).to.not.include("CRIT-K-2");
  });

  it("raises for a laboratory's HH flag; not for a result days old; for an unmatched report once it is claimed", async () => {
    const troponin = labReport("CRIT-HH", {
      collectedAt: hoursAgo(2),
      reportedAt: now(),
      items: [{ itemCode: "TNI", itemName: "肌钙蛋白I", value: "2.35", unit: "ng/mL", abnormalFlag: "HH" }],
    });
    const old = withPotassium("CRIT-OLD", 7.5, { collectedAt: hoursAgo(24 * 5), reportedAt: hoursAgo(24 * 5 - 2) });
    const unmatched = withPotassium("CRIT-UNMATCHED", 7.2, { patient: { idCard: LI_SI.idCard, name: LI_SI.name } });
    await tenant.push("lab", [troponin, old, unmatched]);
    expect(await alertOf("CRIT-HH")).to.deep.include({
      code: "TNI",
      name: "肌钙蛋白I",
      nameEn: null,
      label: null,
      value: "2.35",
      flag: "HH",
      reason: "flagged HH by the laboratory",
    });
    await tenant.call("PUT", "/api/patients/P002", { token: tenant.authorToken, body: { ...LI_SI } });
    expect(await alertOf("CRIT-UNMATCHED")).to.deep.include({ patientRef: "P002", patientName: "李四", value: 7.2 });
    const all = [...(await alerts()), ...(await alerts("acknowledged")), ...(await alerts("closed"))];
    expect(all.map((a) => a.externalId)).to.not.include("CRIT-OLD");
    expect((await tenant.call("GET", "/api/alerts/count", { token: tenant.authorToken })).body.open).to.equal(
      (await alerts()).length,
    );
  });

  it("records in each received event whether it may raise an alert, and passes over a first version that cannot without reading it", async () => {
    await tenant.push("lab", [withPotassium("CRIT-NORMAL", 4.2)]);
    const hints = async () => {
      const { rows } = await service.db.query(
        "select data->>'externalId' as id, metadata->'criticalAtReceipt' as hint from events where tenant = " +
          "'h1' and type = 'LabReportReceived' and stream_version = 1",
      );
      return Object.fromEntries(rows.map((row) => [row.id, row.hint]));
    };
    expect(await hints()).to.deep.include({
      "CRIT-K-1": true,
      "CRIT-HH": true,
      "CRIT-UNMATCHED": true,
      "CRIT-OLD": false,
      "CRIT-NORMAL": false,
    });
    // Two copies of a critical report written straight into the store: one says it cannot raise an
    // alert (as no ingestion would say of it), one says nothing (as events stored before the hint).
    const { rows } = await service.db.query(
      "select stream_id, data, metadata from events where tenant = 'h1' and type = 'LabReportReceived' and " +
        "data->>'externalId' = 'CRIT-K-1' and stream_version = 1",
    );
    const copy = async (externalId: string, metadata: Record<string, unknown>) => {
      const data = { ...rows[0].data, externalId, report: { ...rows[0].data.report, externalId } };
      await service.db.query(
        "insert into events (tenant, stream_id, stream_version, type, data, metadata) values ('h1', $1, 1, 'LabReportReceived', $2, $3)",
        [(rows[0].stream_id as string).replace("CRIT-K-1", externalId), data, metadata],
      );
    };
    const unhinted = { ...(rows[0].metadata as Record<string, unknown>) };
    delete unhinted.criticalAtReceipt;
    await copy("CRIT-HINT-FALSE", { ...unhinted, criticalAtReceipt: false });
    await copy("CRIT-HINT-NONE", unhinted);
    expect(await alertOf("CRIT-HINT-NONE")).to.deep.include({ value: 6.9 });
    await tenant.push("lab", [withPotassium("CRIT-AFTER-HINTS", 7.0)]);
    await alertOf("CRIT-AFTER-HINTS");
    const all = [...(await alerts()), ...(await alerts("acknowledged")), ...(await alerts("closed"))];
    expect(
      all.map((a) => a.externalId),
      "the reactor took the event's word",
    ).to.not.include("CRIT-HINT-FALSE");
  });

  it("streams new alerts and changes as Server-Sent Events, with heartbeats, and lets go when the client goes", async () => {
    const abort = new AbortController();
    const response = await fetch(`${service.url}/api/alerts/stream`, {
      headers: { authorization: `Bearer ${tenant.authorToken}`, "x-service-tenant": "h1" },
      signal: abort.signal,
    });
    expect(response.headers.get("content-type")).to.match(/^text\/event-stream/);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += value;
      }
    };
    await readUntil(/: heartbeat/);
    await tenant.push("lab", [withPotassium("CRIT-STREAM", 7.0)]);
    await readUntil(/event: raised\ndata: .*CRIT-STREAM.*\n\n/);
    const raised = JSON.parse(/event: raised\ndata: (.*CRIT-STREAM.*)\n\n/.exec(text)![1]!) as {
      alertId: string;
      value: number;
      nameEn: string;
      label: string;
    };
    expect(raised.value).to.equal(7.0);
    expect([raised.label, raised.nameEn]).to.deep.equal(["K", "Potassium"]);
    await tenant.call("POST", `/api/alerts/${raised.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "seen" },
    });
    await readUntil(/event: acknowledged\ndata: .*"note":"seen"/);
    // This service's database only: other services on the same server listen too.
    const listening = () =>
      service.db.query(
        "select count(*)::int as n from pg_stat_activity where application_name = 'dialysis-hub-alert-feed' and datname = current_database()",
      );
    expect((await listening()).rows[0].n).to.equal(1);
    abort.abort();
    await until(async () => (await listening()).rows[0].n === 0);
  });

  it("keeps another tenant's alerts out of the list and the stream", async () => {
    const other = await ingestionTenant(service, "h2");
    await other.push("lab", [withPotassium("CRIT-OTHER", 7.4)]);
    await until(
      async () =>
        ((await other.call("GET", "/api/alerts", { token: other.authorToken })).body as unknown[]).length === 1,
    );
    expect((await alerts()).map((a) => a.externalId)).to.not.include("CRIT-OTHER");
  });

  it("POSTs each new alert to the webhook, signed, trying again after a refusal", async () => {
    // A delta alert of a later report names CRIT-K-1 as its previous result (F.3): the critical one is wanted here.
    const delivered = await until(
      async () =>
        deliveries.find(
          (delivery) =>
            delivery.body.includes('"externalId":"CRIT-K-1"') && delivery.body.includes('"kind":"CRITICAL"'),
        ),
      30_000,
    );
    const { headers, body } = delivered;
    expect(headers["x-dialysis-hub-signature"]).to.equal(
      signature(SECRET, String(headers["x-dialysis-hub-timestamp"]), body),
    );
    const payload = JSON.parse(body) as { event: string; tenant: string; alert: Record<string, unknown> };
    expect(payload).to.deep.include({ event: "critical-result.raised", tenant: "h1" });
    expect(payload.alert).to.deep.include({
      externalId: "CRIT-K-1",
      code: "K",
      name: "钾",
      nameEn: "Potassium",
      label: "K",
      patientName: "张三",
    });
    expect(refuseNext, "the first delivery was refused and tried again").to.be.below(0);
    // Contract F.3: CRIT-K-2's 2.1 after CRIT-K-1's 6.9 moved beyond potassium's delta limit; being critical,
    // its change rode on its critical alert (one result, one alert), sent to no webhook of its own. Its
    // correction to 3.9 is no longer critical, and still 3.0 from 6.9: a delta alert of its own, sent.
    const delta = await until(
      async () =>
        deliveries.find(
          (delivery) =>
            delivery.headers["x-dialysis-hub-event"] === "delta-alert.raised" &&
            delivery.body.includes('"externalId":"CRIT-K-2"'),
        ),
      30_000,
    );
    const deltaPayload = JSON.parse(delta.body) as { event: string; alert: Record<string, unknown> };
    expect(deltaPayload.event).to.equal("delta-alert.raised");
    expect(deltaPayload.alert).to.deep.include({ kind: "DELTA", externalId: "CRIT-K-2", code: "K" });
    expect(deltaPayload.alert.delta).to.deep.include({ previous: 6.9, previousExternalId: "CRIT-K-1", change: -3 });
    expect(
      deliveries.filter(
        (delivery) =>
          delivery.headers["x-dialysis-hub-event"] === "delta-alert.raised" &&
          delivery.body.includes('"externalId":"CRIT-K-2"'),
      ),
      "no delta alert was sent for the critical 2.1",
    ).to.have.length(1);
  });

  it("says how to fix a call it cannot take", async () => {
    const alert = await alertOf("CRIT-HH");
    const noNote = await tenant.call("POST", `/api/alerts/${alert.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "  " },
    });
    expect(noNote.status).to.equal(400);
    expect(noNote.body.error).to.match(/note is required/);
    const unknown = await tenant.call("POST", "/api/alerts/no-such-alert/acknowledge", {
      token: tenant.authorToken,
      body: { note: "x" },
    });
    expect(unknown.status).to.equal(404);
    const badState = await tenant.call("GET", "/api/alerts?state=everything", { token: tenant.authorToken });
    expect(badState.status).to.equal(400);
    expect(badState.body.error).to.match(/open, acknowledged, closed or info/);
  });
});

describe("the alert webhook's target", function () {
  this.timeout(60_000);

  it(
    "is refused at start when it points at this machine, a link-local address or a cloud's metadata service, in " +
      "any spelling, unless ALERT_WEBHOOK_ALLOW_PRIVATE=1",
    () => {
      const env = { DATABASE_URL: "postgres://localhost/x", ALERT_WEBHOOK_SECRET: SECRET };
      const refused = [
        "http://127.0.0.1:9000/hook",
        "http://localhost/hook",
        "http://localhost./hook",
        "http://0x7f.1/hook",
        "http://[::1]/hook",
        "http://[::]/hook",
        "http://0.0.0.0/hook",
        "http://[fe80::1]/hook",
        "http://169.254.169.254/latest",
        // Cloud metadata services outside 169.254/16: Alibaba, Azure's WireServer, AWS, Google Cloud and Oracle over IPv6.
        "http://100.100.100.200/latest/meta-data",
        "http://168.63.129.16/machine",
        "http://[fd00:ec2::254]/latest/meta-data",
        "http://[fd20:ce::254]/computeMetadata/v1",
        "http://[fd00:c1::a9fe:a9fe]/opc/v2",
        // The same IPv4 services written as IPv6: mapped, compatible, NAT64, 6to4.
        "http://[::ffff:169.254.169.254]/latest",
        "http://[::ffff:100.100.100.200]/latest",
        "http://[::ffff:127.0.0.1]/hook",
        "http://[::a9fe:a9fe]/latest",
        "http://[64:ff9b::a9fe:a9fe]/latest",
        "http://[64:ff9b::6464:64c8]/latest",
        "http://[2002:a9fe:a9fe::1]/latest",
      ];
      for (const url of refused) {
        expect(() => loadConfig({ ...env, ALERT_WEBHOOK_URL: url }), url).to.throw(
          /ALERT_WEBHOOK_URL: points at this machine, a link-local address or a cloud's metadata service \(.+: .+\).*ALERT_WEBHOOK_ALLOW_PRIVATE=1/,
        );
        expect(
          loadConfig({ ...env, ALERT_WEBHOOK_URL: url, ALERT_WEBHOOK_ALLOW_PRIVATE: "1" }).ALERT_WEBHOOK_URL,
        ).to.equal(url);
      }
      for (const url of [
        "https://alerts.hospital.example/hook",
        "http://10.20.0.5/hook",
        "http://100.100.100.201/hook",
        "http://[2001:db8::1]/hook",
        "http://[fd12:3456::1]/hook",
      ]) {
        expect(loadConfig({ ...env, ALERT_WEBHOOK_URL: url }).ALERT_WEBHOOK_URL, url).to.equal(url);
      }
    },
  );

  it("stops the service from starting with a sentence that names the address and what it is", async () => {
    for (const [url, named] of [
      ["http://100.100.100.200/latest/meta-data", "100.100.100.200: Alibaba Cloud's metadata service"],
      ["http://[fd00:ec2::254]/latest/meta-data", "fd00:ec2::254: AWS's metadata service (IPv6)"],
    ]) {
      // A database nobody serves: a service that wrongly started would touch no one's data, and is killed.
      const started = await runNode(
        [SERVER_ENTRY, "start"],
        {
          DATABASE_URL: "postgres://postgres@127.0.0.1:9/nobody",
          ALERT_WEBHOOK_URL: url,
          ALERT_WEBHOOK_SECRET: SECRET,
          PORT: "0",
        },
        { timeoutMs: 20_000 },
      );
      expect(started.code, url).to.equal(1);
      expect(started.stderr).to.include(
        `invalid configuration: ALERT_WEBHOOK_URL: points at this machine, a link-local address or a cloud's metadata service (${named})`,
      );
      expect(started.stdout).to.not.include("Dialysis Hub is running");
    }
  });

  it("is not followed through a redirect: the signed body goes nowhere else", async () => {
    const elsewhere: string[] = [];
    const redirected: string[] = [];
    const other = createServer((request, response) => {
      elsewhere.push(request.url ?? "");
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/stolen`;
    const receiver = createServer((request, response) => {
      redirected.push(request.url ?? "");
      response.writeHead(307, { location: otherUrl }).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/critical`;
    const service = await startTestService({
      projections: allProjections,
      env: {
        ALERT_WEBHOOK_URL: url,
        ALERT_WEBHOOK_SECRET: SECRET,
        ALERT_WEBHOOK_ALLOW_PRIVATE: "1",
        WORKER_POLL_SECONDS: "0.5",
      },
    });
    try {
      const tenant = await ingestionTenant(service, "h1");
      await tenant.push("lab", [withPotassium("CRIT-REDIRECT", 7.4)]);
      await until(async () => redirected.length > 0, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(elsewhere, "nothing reached the redirect's target").to.deep.equal([]);
    } finally {
      await service.stop();
      receiver.close();
      other.close();
    }
  });
});
