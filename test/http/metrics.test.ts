import net from "node:net";
import { expect } from "chai";
import type { PrometheusFamily } from "parse-prometheus-text-format";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { labReport } from "../support/ingestion.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, until } from "../support/service.ts";
import { freePort } from "../support/privatePostgres.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { sample, scrape } from "../support/metrics.ts";

/*
 * /metrics is read the way Prometheus reads it: the answer is parsed by a text-format parser this
 * project did not write (a port of Prometheus's own), and the figures looked up by name and label.
 */

const METRICS_TOKEN = "metrics-token-0123456789";

async function metricsTextOf(url: string, token?: string): Promise<string> {
  return (await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })).text();
}

describe("metrics for Prometheus", function () {
  this.timeout(60_000);
  let service: RunningService;
  let tenant: SeededTenant;
  let metricsPort: number;
  const metricsText = () => metricsTextOf(`${service.url}/metrics`, METRICS_TOKEN);

  before(async () => {
    metricsPort = await freePort();
    service = await startTestService({
      projections: allProjections,
      env: { METRICS_TOKEN, METRICS_PORT: String(metricsPort), HL7_MLLP_PORT: "0" },
    });
    tenant = await seedTenant(service, "north");
  });
  after(() => service?.stop());

  it("are refused without the metrics token, and say how to send it", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789"]) {
      const answer = await fetch(`${service.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(answer.status).to.equal(401);
      expect(await answer.text()).to.include("Authorization: Bearer <METRICS_TOKEN>");
    }
  });

  it("count pushes and their reports by client and outcome, and requests by route pattern and status", async () => {
    const before = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    const client = { kind: "lab", tenant: "north", client: tenant.client.clientId };
    const created = () => sample(before, "dialysis_hub_reports_total", { ...client, outcome: "CREATED" });
    expect(created(), "the seed's pushes").to.equal(5);

    await tenant.push("lab", [labReport("METRICS-1"), labReport("METRICS-2", { reportedAt: "not a date" })]);
    await tenant.push("lab", [labReport("METRICS-1")]);
    const refused = await tenant.call("POST", "/open/v1/lab/reports", {
      token: tenant.client.key,
      body: { reports: "none" },
    });
    expect(refused.status).to.equal(400);
    await tenant.call("GET", "/api/history/lab/METRICS-1", { token: tenant.authorToken });
    await tenant.call("GET", "/api/history/lab/NO-SUCH-REPORT", { token: tenant.authorToken });

    const after = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    expect(sample(after, "dialysis_hub_reports_total", { ...client, outcome: "CREATED" })).to.equal(6);
    expect(sample(after, "dialysis_hub_reports_total", { ...client, outcome: "REJECTED" })).to.equal(1);
    expect(sample(after, "dialysis_hub_reports_total", { ...client, outcome: "UNCHANGED" })).to.equal(1);
    expect(sample(after, "dialysis_hub_pushes_total", { ...client, status: "200" })).to.equal(3);
    expect(sample(after, "dialysis_hub_pushes_total", { ...client, status: "400" })).to.equal(1);
    expect(
      sample(after, "http_requests_total", { method: "POST", route: "/open/v1/lab/reports", status: "400" }),
    ).to.equal(1);
    // One series per route pattern, however many reports are asked for.
    expect(
      sample(after, "http_requests_total", { method: "GET", route: "/api/history/:kind/:externalId", status: "200" }),
    ).to.equal(1);
    expect(
      sample(after, "http_requests_total", { method: "GET", route: "/api/history/:kind/:externalId", status: "404" }),
    ).to.equal(1);
    expect(after.get("http_request_duration_seconds")?.type).to.equal("HISTOGRAM");
  });

  it("count HL7 v2 messages by transport and ACK code, their reports with the pushed ones", async () => {
    const client = { tenant: "north", client: tenant.client.clientId };
    const before = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    const reports = (families: Map<string, PrometheusFamily>, outcome: string) =>
      sample(families, "dialysis_hub_reports_total", { ...client, kind: "lab", outcome });

    const badTime = oruR01({ controlId: "M-BAD", externalId: "METRICS-HL7-BAD" }).replace(
      "|||20260301100000+0800|||F",
      "|||2026030|||F",
    );
    const overHttp = await fetch(`${service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "x-application/hl7-v2+er7" },
      body: [oruR01({ controlId: "M-HTTP", externalId: "METRICS-HL7-HTTP" }), badTime].join("\r"),
    });
    expect(overHttp.status).to.equal(200);
    const socket = net.connect(service.mllpPort!, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("utf8")));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `\x0b${withSecurity(oruR01({ controlId: "M-MLLP", externalId: "METRICS-HL7-MLLP" }), tenant.client.key)}\x1c\r`,
    );
    socket.write(`\x0b${withSecurity(oruR01({ controlId: "M-NOKEY" }), "")}\x1c\r`);
    await until(async () => received.split("\x1c\r").length === 3, 10_000);
    socket.destroy();

    const after = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    const hl7 = (labels: Record<string, string>) => sample(after, "dialysis_hub_hl7_messages_total", labels);
    expect(hl7({ transport: "http", ...client, ack: "AA" })).to.equal(1);
    expect(hl7({ transport: "http", ...client, ack: "AE" })).to.equal(1);
    expect(hl7({ transport: "mllp", ...client, ack: "AA" })).to.equal(1);
    expect(hl7({ transport: "mllp", tenant: "", client: "", ack: "AR" }), "no key: nobody's").to.equal(1);
    expect(reports(after, "CREATED") - reports(before, "CREATED")).to.equal(2);
    expect(reports(after, "REJECTED") - reports(before, "REJECTED")).to.equal(1);
    expect(
      sample(after, "dialysis_hub_pushes_total", { ...client, kind: "lab", status: "200" }) -
        sample(before, "dialysis_hub_pushes_total", { ...client, kind: "lab", status: "200" }),
      "the HTTP body",
    ).to.equal(1);
  });

  it("show each projection's position and lag, the store's head and the ledger not yet sealed", async () => {
    const report = await projectionsCaughtUp(service.url!);
    const families = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    expect(sample(families, "dialysis_hub_event_store_head_position")).to.be.at.least(report.head);
    for (const projection of allProjections) {
      const labels = { projection: projection.name, state: "live" };
      expect(sample(families, "dialysis_hub_projection_position", labels), projection.name).to.be.greaterThan(0);
      expect(sample(families, "dialysis_hub_projection_failed", labels), projection.name).to.equal(0);
    }
    expect(
      sample(families, "dialysis_hub_projection_lag_events", { projection: "lab_results", state: "live" }),
    ).to.be.below(10);
    // The test service seals every minute: the seed's events wait.
    expect(sample(families, "dialysis_hub_ledger_unsealed_events")).to.be.greaterThan(10);
    expect(sample(families, "dialysis_hub_ledger_unsealed_oldest_seconds")).to.be.greaterThan(0);
    expect(sample(families, "dialysis_hub_db_pool_connections", { pool: "service", state: "total" })).to.be.greaterThan(
      0,
    );
    expect(families.has("process_cpu_seconds_total"), "process metrics").to.equal(true);
  });

  it("time report queries by data source and outcome", async () => {
    // The parser merges a histogram's label sets into one (prom2json's shape): the only report
    // queries of this service ran on the clinical source, so its +Inf bucket counts them all.
    const counted = async () => {
      const histogram = (await scrape(`${service.url}/metrics`, METRICS_TOKEN)).get(
        "dialysis_hub_report_query_duration_seconds",
      )!.metrics;
      expect(histogram).to.have.length(1);
      return Number(histogram[0]!.buckets!["+Inf"]);
    };
    const before = await counted();
    const ran = await tenant.call("POST", "/api/reports/every-param/data", { body: { version: "v1" } });
    expect(ran.status).to.equal(200);
    const queries = Object.keys(ran.body.queries).length;
    expect(await counted()).to.equal(before + queries);
    expect(await metricsText(), "the data source and outcome labels").to.include(
      `dialysis_hub_report_query_duration_seconds_count{datasource="clinical",outcome="ok"} ${before + queries}`,
    );
    const families = await scrape(`${service.url}/metrics`, METRICS_TOKEN);
    expect(
      sample(families, "dialysis_hub_db_pool_connections", { pool: "datasource:clinical", state: "total" }),
    ).to.be.greaterThan(0);
  });

  it("are served on METRICS_PORT, bound to localhost, asking the token there too", async () => {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    expect((await fetch(url)).status).to.equal(401);
    const families = await scrape(url, METRICS_TOKEN);
    expect(families.has("dialysis_hub_event_store_head_position")).to.equal(true);
  });
});

describe("metrics without a token", function () {
  this.timeout(30_000);
  let service: RunningService;
  let metricsPort: number;

  before(async () => {
    metricsPort = await freePort();
    service = await startTestService({ env: { METRICS_PORT: String(metricsPort) } });
  });
  after(() => service?.stop());

  it("are served only on the localhost port, never on the service's own", async () => {
    expect((await fetch(`${service.url}/metrics`)).status).to.equal(404);
    const families = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(families.has("http_requests_total")).to.equal(true);
  });
});
