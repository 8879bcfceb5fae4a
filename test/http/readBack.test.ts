import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Contract G.3: with readBackRequired, the nurse acknowledging a critical value reads it back and
 * names whom she told; a value that is not the alert's is refused (422) and recorded.
 */
describe("read-back when acknowledging a critical value (contract G.3)", () => {
  const hub = useIngestionService();
  const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
  const push = (externalId: string, value: number) =>
    hub.tenant.push("lab", [
      labReport(externalId, {
        collectedAt: hoursAgo(1),
        reportedAt: localDateTime(new Date()),
        items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
      }),
    ]);
  const alertOf = (externalId: string, state = "open") =>
    until(async () => {
      const list = (
        await hub.tenant.call("GET", `/api/alerts?state=${state}&kind=CRITICAL`, { token: hub.tenant.authorToken })
      ).body as Array<Record<string, any>>;
      return list.find((alert) => alert.externalId === externalId);
    });
  const acknowledge = (alertId: string, body: unknown) =>
    hub.tenant.call("POST", `/api/alerts/${alertId}/acknowledge`, { token: hub.tenant.authorToken, body });

  it("acknowledges with a note alone while the policy does not ask for a read-back", async () => {
    await push("RB-0", 6.8);
    const alert = await alertOf("RB-0");
    const answer = await acknowledge(alert.alertId, { note: "Dr. Li informed" });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.not.have.property("readBack");
  });

  it("with readBackRequired: refuses none and a wrong value (recorded), takes the right one and whom she told", async () => {
    const put = await hub.tenant.call("PUT", "/api/alerts/escalation", {
      token: ADMIN,
      body: { readBackRequired: true },
    });
    expect(put.status).to.equal(200);
    await push("RB-1", 6.9);
    const alert = await alertOf("RB-1");
    const none = await acknowledge(alert.alertId, { note: "told the doctor" });
    expect(none.status).to.equal(422);
    expect(none.body).to.deep.include({ code: "read-back-required" });
    expect(none.body.error).to.match(/send readBack: \{ value \}/);

    const wrong = await acknowledge(alert.alertId, {
      note: "told the doctor",
      notified: { name: "Dr. Li", role: "doctor on call" },
      readBack: { value: 6.3 },
    });
    expect(wrong.status).to.equal(422);
    expect(wrong.body).to.deep.include({ code: "read-back-mismatch" });
    expect(wrong.body.error).to.match(/^The value read back, 6\.3, does not match the alert's 6\.9/);
    const { rows } = await hub.service.db.query(
      "select type, data from events where tenant = 'h1' and stream_id = 'critical-results:RB-1' order by stream_version",
    );
    expect(rows.map((row) => row.type)).to.deep.equal(["CriticalResultRaised", "AlertReadBackRefused"]);
    expect(rows[1].data).to.deep.include({ value: 6.3, expected: 6.9, by: "Nurse Chen" });
    expect((await alertOf("RB-1")).alertId, "still open").to.equal(alert.alertId);

    const right = await acknowledge(alert.alertId, {
      note: "Dr. Li told at 02:05; K repeated",
      notified: { name: "Dr. Li", role: "doctor on call" },
      readBack: { value: "6.90" },
    });
    expect(right.status, JSON.stringify(right.body)).to.equal(200);
    expect(right.body).to.deep.include({
      acknowledgedBy: "Nurse Chen",
      notified: { name: "Dr. Li", role: "doctor on call" },
      readBack: { value: "6.90", matched: true },
    });
    expect((await alertOf("RB-1", "acknowledged")).readBack).to.deep.equal({ value: "6.90", matched: true });
  });

  it("refuses a malformed read-back with a sentence saying how to write it", async () => {
    await push("RB-2", 7.0);
    const alert = await alertOf("RB-2");
    const answer = await acknowledge(alert.alertId, { note: "x", readBack: { value: 7, unit: "mmol/L" } });
    expect(answer.status).to.equal(400);
    expect(answer.body.error).to.match(/readBack is \{ value \}/);
    const noName = await acknowledge(alert.alertId, {
      note: "x",
      notified: { role: "doctor" },
      readBack: { value: 7 },
    });
    expect(noName.status).to.equal(400);
    expect(noName.body.error).to.match(/notified\.name is the name of the person you told/);
  });
});
