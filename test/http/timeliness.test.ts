import { expect } from "chai";
import { localDate, localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/* Contract G.3: the month's timeliness of critical values, of the tenant and of a ward. */
describe("timeliness of critical values (/api/alerts/timeliness)", () => {
  const hub = useIngestionService();
  const month = localDate(new Date()).slice(0, 7);
  const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
  const push = (externalId: string, value: number) =>
    hub.tenant.push("lab", [
      labReport(externalId, {
        collectedAt: hoursAgo(1),
        reportedAt: localDateTime(new Date()),
        items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
      }),
    ]);
  const get = (query: string, token = hub.tenant.authorToken) =>
    hub.tenant.call("GET", `/api/alerts/timeliness?${query}`, { token });

  it("counts the month's critical alerts: raised, acknowledged within 15/30/60 minutes, median and p90, overdue now", async () => {
    const empty = await get(`month=${month}`);
    expect(empty.status, JSON.stringify(empty.body)).to.equal(200);
    expect(empty.body).to.deep.equal({
      month,
      ward: null,
      raised: 0,
      acknowledged: 0,
      within: { "15": 0, "30": 0, "60": 0 },
      medianMinutes: null,
      p90Minutes: null,
      overdue: 0,
    });
    await hub.tenant.call("PUT", "/api/alerts/escalation", {
      token: ADMIN,
      body: { wards: { A: [{ afterMinutes: 0, notify: [{ channel: "email", to: "nurse@hospital.example" }] }] } },
    });
    for (const [id, value] of [
      ["T-1", 6.9],
      ["T-2", 7.0],
      ["T-3", 7.1],
    ] as const)
      await push(id, value);
    const alerts = await until(async () => {
      const list = (await hub.tenant.call("GET", "/api/alerts?kind=CRITICAL", { token: hub.tenant.authorToken }))
        .body as Array<Record<string, any>>;
      return list.length === 3 && list.every((alert) => alert.overdue) && list;
    }, 10_000);
    for (const alert of alerts.filter((a) => a.externalId !== "T-3"))
      await hub.tenant.call("POST", `/api/alerts/${alert.alertId}/acknowledge`, {
        token: hub.tenant.authorToken,
        body: { note: "told Dr. Li" },
      });
    const answer = (await get(`month=${month}&ward=A`)).body;
    expect(answer).to.deep.include({
      month,
      ward: "A",
      raised: 3,
      acknowledged: 2,
      within: { "15": 2, "30": 2, "60": 2 },
      overdue: 1,
    });
    expect(answer.medianMinutes).to.be.a("number").within(0, 1);
    expect(answer.p90Minutes).to.be.a("number").within(answer.medianMinutes, 1);
  });

  it("refuses a month not written yyyy-MM or not begun, and a ward nobody is in", async () => {
    const bad = await get("month=2026-13");
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/month is written yyyy-MM/);
    expect((await get("")).body.error).to.match(/month is required/);
    expect((await get("month=2999-01")).body.code).to.equal("month-invalid");
    const ward = await get(`month=${month}&ward=Z`);
    expect(ward.status).to.equal(404);
    expect(ward.body.code).to.equal("ward-not-found");
  });
});
