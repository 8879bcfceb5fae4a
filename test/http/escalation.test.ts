import { expect } from "chai";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { localDateTime } from "../../db/localDateTime.ts";
import { signature } from "../../src/alerts/alertWebhook.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, startIngestionService, type IngestionTenant } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { startSmtpPeer, type SmtpPeer } from "../support/smtpPeer.ts";
import type { RunningService } from "../../src/app/service.ts";

/*
 * Contract G.3 with the real peers: a critical potassium mails the ward's nurse at once and the
 * doctor on call (and a pager's webhook) a few seconds later if nobody acknowledged it, through an
 * SMTP server in this process that refuses on demand; every notification is on the alert.
 */

const SECRET = "escalation-webhook-secret-0123";
const PUBLIC_URL = "https://dialysis.hospital.example";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const withPotassium = (externalId: string, value: number) =>
  labReport(externalId, {
    collectedAt: hoursAgo(1),
    reportedAt: localDateTime(new Date()),
    items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
  });
const email = (to: string) => ({ channel: "email", to });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("escalation of critical values by mail and webhook (contract G.3)", function () {
  this.timeout(120_000);
  let smtp: SmtpPeer;
  let receiver: Server;
  let hookUrl: string;
  const hooks: Array<{ headers: IncomingMessage["headers"]; body: string; at: number }> = [];
  let service: RunningService;
  let tenant: IngestionTenant;

  before(async () => {
    smtp = await startSmtpPeer();
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        hooks.push({ headers: request.headers, body, at: Date.now() });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pager`;
    ({ service, tenant } = await startIngestionService({
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: "Dialysis Hub <hub@hospital.example>",
        PUBLIC_URL,
        ALERT_WEBHOOK_SECRET: SECRET,
        ALERT_WEBHOOK_ALLOW_PRIVATE: "1",
        ALERT_NOTIFY_RETRY_SECONDS: "1,1,1",
        WORKER_POLL_SECONDS: "0.5",
      },
    }));
  });
  after(async () => {
    await service?.stop();
    await smtp?.close();
    receiver?.close();
  });

  const putPolicy = async (body: unknown) => {
    const answer = await tenant.call("PUT", "/api/alerts/escalation", { token: ADMIN, body });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  };
  const alertOf = (externalId: string, state = "open") =>
    until(async () => {
      const list = (await tenant.call("GET", `/api/alerts?state=${state}&kind=CRITICAL`, { token: tenant.authorToken }))
        .body as Array<Record<string, any>>;
      return list.find((alert) => alert.externalId === externalId);
    }, 10_000);
  const notificationsOf = async (externalId: string, state = "open") =>
    (await alertOf(externalId, state)).notifications;

  it("mails the nurse at once and the doctor (and the pager) once the second step is due, each once; the alert lists them and is overdue", async () => {
    await putPolicy({
      wards: {
        A: [
          { afterMinutes: 0, notify: [email("nurse.a@hospital.example")] },
          {
            afterMinutes: 0.05,
            notify: [email("doctor.on.call@hospital.example"), { channel: "webhook", url: hookUrl }],
          },
        ],
      },
    });
    const pushedAt = Date.now();
    await tenant.push("lab", [withPotassium("ESC-1", 6.9)]);
    const alert = await alertOf("ESC-1");
    const nurse = await until(
      async () => smtp.mails.find((mail) => mail.alertId === alert.alertId && mail.step === 1),
      30_000,
    );
    expect(nurse.to).to.deep.equal(["nurse.a@hospital.example"]);
    expect(nurse.from).to.equal("hub@hospital.example");
    expect(nurse.subject).to.equal("危急值 Critical value: 张三 K 6.9 mmol/L");
    const chart = `${PUBLIC_URL}/staff#chart/P001?code=K&report=ESC-1`;
    const collected = alert.collectedAt.replace("T", " ").slice(0, 16);
    for (const line of [
      "危急值通知（第 1 级）：尚无人确认。",
      "患者：张三 (P001)",
      "项目：钾 K",
      "结果：6.9 mmol/L，标志：—",
      "原因：高于危急值上限 6.2 mmol/L",
      `采集时间：${collected}`,
      `查看病历：${chart}`,
      "Critical value (step 1): not acknowledged yet.",
      "Item: Potassium (K)",
      "Result: 6.9 mmol/L  Flag: —",
      `Collected: ${collected}`,
      `Chart: ${chart}`,
    ])
      expect(nurse.text).to.include(line);

    const doctor = await until(
      async () => smtp.mails.find((mail) => mail.alertId === alert.alertId && mail.step === 2),
      30_000,
    );
    expect(doctor.to).to.deep.equal(["doctor.on.call@hospital.example"]);
    expect(Date.now() - pushedAt, "not before its 3 s").to.be.greaterThan(2_900);
    const hook = await until(
      async () => hooks.find((h) => JSON.parse(h.body).alert?.alertId === alert.alertId),
      10_000,
    );
    const timestamp = hook.headers["x-dialysis-hub-timestamp"] as string;
    expect(hook.headers["x-dialysis-hub-signature"]).to.equal(signature(SECRET, timestamp, hook.body));
    expect(hook.headers["x-dialysis-hub-event"]).to.equal("critical-result.escalated");
    expect(JSON.parse(hook.body)).to.deep.include({ event: "critical-result.escalated", tenant: "h1", step: 2 });
    expect(JSON.parse(hook.body).alert).to.deep.include({ alertId: alert.alertId, patientName: "张三", value: 6.9 });

    const listed = await until(async () => {
      const now = await alertOf("ESC-1");
      return now.notifications.length === 3 && now;
    }, 10_000);
    expect(listed.notifications.map(({ at, ...rest }: Record<string, unknown>) => rest)).to.deep.equal([
      { step: 1, channel: "email", to: "nurse.a@hospital.example", outcome: "sent", attempts: 1 },
      { step: 2, channel: "email", to: "doctor.on.call@hospital.example", outcome: "sent", attempts: 1 },
      { step: 2, channel: "webhook", to: hookUrl, outcome: "sent", attempts: 1 },
    ]);
    expect(listed.overdue, "its last step is due and nobody acknowledged it").to.equal(true);
    await sleep(2_000);
    expect([smtp.countOf(alert.alertId, 1), smtp.countOf(alert.alertId, 2)], "each step once").to.deep.equal([1, 1]);
  });

  it("tells nobody more once the alert is acknowledged, and it is not overdue", async () => {
    await putPolicy({
      wards: {
        "*": [
          { afterMinutes: 0, notify: [email("nurse.a@hospital.example")] },
          { afterMinutes: 0.1, notify: [email("doctor.on.call@hospital.example")] },
        ],
      },
    });
    await tenant.push("lab", [withPotassium("ESC-2", 7.1)]);
    const alert = await alertOf("ESC-2");
    await until(async () => smtp.countOf(alert.alertId, 1) === 1, 30_000);
    const acknowledged = await tenant.call("POST", `/api/alerts/${alert.alertId}/acknowledge`, {
      token: tenant.authorToken,
      body: { note: "Dr. Li told at once" },
    });
    expect(acknowledged.status).to.equal(200);
    await sleep(8_000);
    expect(smtp.countOf(alert.alertId, 2), "the doctor's step never went").to.equal(0);
    const now = await alertOf("ESC-2", "acknowledged");
    expect(now.overdue).to.equal(false);
    expect(now.notifications.map((n: Record<string, unknown>) => n.step)).to.deep.equal([1]);
  });

  it("tries a refused mail again until the SMTP server takes it, recording each refusal with the server's answer", async () => {
    await putPolicy({ wards: { "*": [{ afterMinutes: 0, notify: [email("nurse.a@hospital.example")] }] } });
    smtp.refuseNext(2, "451 4.7.1 Greylisted, try again later");
    const events = (alertId: string) =>
      service.db
        .query(
          "select data from events where tenant = 'h1' and type = 'AlertNotified' and data->>'alertId' = $1 order by position",
          [alertId],
        )
        .then(({ rows }) => rows.map((row) => row.data));
    await tenant.push("lab", [withPotassium("ESC-3", 7.3)]);
    const alert = await alertOf("ESC-3");
    await until(async () => smtp.countOf(alert.alertId, 1) === 1, 30_000);
    const recorded = await until(async () => {
      const all = await events(alert.alertId);
      return all.length === 3 && all;
    }, 10_000);
    expect(recorded.map((e) => [e.outcome, e.attempt, e.reason ?? null])).to.deep.equal([
      ["retrying", 1, "451 4.7.1 Greylisted, try again later"],
      ["retrying", 2, "451 4.7.1 Greylisted, try again later"],
      ["sent", 3, null],
    ]);
    const listed = await until(async () => {
      const [n] = await notificationsOf("ESC-3");
      return n?.outcome === "sent" && n;
    });
    expect(listed).to.deep.include({ outcome: "sent", attempts: 3 });
  });

  it("records a mail failed once every attempt was refused, with the SMTP server's last answer", async () => {
    smtp.refuseAll("421 4.3.2 Service not available");
    try {
      await tenant.push("lab", [withPotassium("ESC-4", 7.4)]);
      const alert = await alertOf("ESC-4");
      const failed = await until(async () => {
        const [n] = await notificationsOf("ESC-4");
        return n?.outcome === "failed" && n;
      }, 30_000);
      expect(failed).to.deep.include({ outcome: "failed", attempts: 4, reason: "421 4.3.2 Service not available" });
      expect(smtp.countOf(alert.alertId, 1)).to.equal(0);
    } finally {
      smtp.acceptAgain();
    }
  });
});
