import { expect } from "chai";
import { recordDictionaryRelease } from "../../commands/dictionary/recordDictionaryRelease.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { ADMIN } from "../support/http.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * Contract G.2 over HTTP: the month's quality indicators are dictionary entries with versions, as
 * formulas are (F.2): served as the releases put them in force, and changed only by a release.
 */
describe("quality indicators (GET /api/quality/indicators)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const indicators = async (token = hub.tenant.authorToken) =>
    hub.tenant.call("GET", "/api/quality/indicators", { token });

  before(() => projectionsCaughtUp(hub.service.url!));

  it("serves the defaults of G.2 with their bands, units, items and sources", async () => {
    const answer = await indicators();
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const byCode: Record<string, { source: string }> = Object.fromEntries(
      (answer.body as Array<{ code: string; source: string }>).map((entry) => [entry.code, entry]),
    );
    expect(Object.keys(byCode)).to.deep.equal([
      "KTV_TARGET",
      "URR_TARGET",
      "HGB_TARGET",
      "ALB_TARGET",
      "P_TARGET",
      "CA_TARGET",
      "IPTH_TARGET",
      "KTV_TESTED",
      "HGB_TESTED",
      "ALB_TESTED",
      "P_TESTED",
      "IPTH_TESTED",
      "INFECTION_TESTED",
      "CRITICAL_ACK_30MIN",
    ]);
    expect(byCode.HGB_TARGET).to.deep.include({
      name: "血红蛋白达标率",
      nameEn: "Haemoglobin at target",
      version: 1,
      item: "HGB",
      band: { low: 110, high: 130 },
      unit: "g/L",
      kind: "target",
      items: ["HGB"],
      windowMonths: 1,
    });
    expect(byCode.KTV_TARGET).to.deep.include({ item: "KTV", band: { low: 1.2 }, unit: "", kind: "target" });
    expect(byCode.URR_TARGET).to.deep.include({ item: "URR", band: { low: 65 }, unit: "%" });
    expect(byCode.CA_TARGET).to.deep.include({ item: "CA_CORR", items: ["CA_CORR", "CA"], unit: "mmol/L" });
    expect(byCode.IPTH_TESTED).to.deep.include({ item: "IPTH", band: {}, kind: "tested", windowMonths: 3 });
    expect(byCode.INFECTION_TESTED).to.deep.include({
      item: null,
      items: ["HBSAG", "HCVAB", "TPAB", "HIV"],
      windowMonths: 6,
      kind: "tested",
    });
    expect(byCode.CRITICAL_ACK_30MIN).to.deep.include({
      item: null,
      band: { high: 30 },
      unit: "min",
      kind: "timeliness",
    });
    for (const entry of Object.values(byCode)) expect(entry.source).to.match(/KDOQI|KDIGO|CLSI|质量控制/);
    // The citation in Chinese too, for the pages' and the exports' Chinese readers.
    for (const entry of Object.values(byCode) as Array<{ sourceZh?: string }>)
      expect(entry.sourceZh).to.match(/血液净化专业医疗质量控制指标|危急值/);
    expect(byCode.KTV_TARGET!.source).to.match(/KDOQI.*血液净化专业医疗质量控制指标/);
  });

  it("answers a viewer 403 naming the role, and a call without a credential 401", async () => {
    const viewer = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Viewer", tenant: "h1", roles: ["viewer"] },
    });
    expect(viewer.status).to.equal(201);
    const refused = await indicators(viewer.body.token);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.include({ code: "role-needed" });
    expect((await hub.tenant.call("GET", "/api/quality/indicators")).status).to.equal(401);
  });

  it("changes an indicator only by a dictionary release: the new version in force, the others as they were", async () => {
    const dictionary = loadDefaultDictionary();
    const hgb = dictionary.indicators.find((indicator) => indicator.code === "HGB_TARGET")!;
    Object.assign(hgb, { version: 2, band: { low: 100, high: 130 } });
    expect(await recordDictionaryRelease(hub.service.eventStore, dictionary, "test-release-hgb-target-2")).to.equal(
      true,
    );
    await projectionsCaughtUp(hub.service.url!);
    const answer = (await indicators()).body as Array<{ code: string; version: number; band: object }>;
    expect(answer.find((entry) => entry.code === "HGB_TARGET")).to.deep.include({
      version: 2,
      band: { low: 100, high: 130 },
    });
    expect(answer.find((entry) => entry.code === "ALB_TARGET")).to.deep.include({ version: 1 });
    expect(answer).to.have.length(14);
  });
});
