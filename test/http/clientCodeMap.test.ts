import { expect } from "chai";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { ADMIN } from "../support/http.ts";
import { until } from "../support/service.ts";

describe("per-client item-code maps (PUT /api/admin/clients/{clientId}/code-map)", () => {
  const hub = useIngestionService();
  /** A second sending system of the same hospital, without a code map of its own. */
  let otherKey: string;
  before(async () => {
    const other = await hub.tenant.call("POST", "/api/admin/clients", {
      token: ADMIN,
      body: { name: "Ward POCT", tenant: "h1" },
    });
    otherKey = other.body.key;
    const mapped = await setCodeMap({
      // The lab's in-house code for pre-dialysis urea.
      "L-0815": "UREA_PRE",
      // This lab's "TP" is its syphilis antibody test, not the dictionary's total protein.
      TP: "TPAB",
      // This lab reports total CO2 as bicarbonate; the dictionary's alias TCO2 means CO2 combining power.
      TCO2: "HCO3",
    });
    expect(mapped.status).to.equal(200);
  });

  const setCodeMap = (codeMap: Record<string, string>) =>
    hub.tenant.call("PUT", `/api/admin/clients/${hub.tenant.client.clientId}/code-map`, {
      token: ADMIN,
      body: { codeMap },
    });
  const pushAsOther = (reports: unknown[]) =>
    hub.tenant.call("POST", "/open/v1/lab/reports", { token: otherKey, body: { reports } });
  /** Each result row's sent code and standard code, once the item rows of the report are there. */
  const standardCodes = (externalId: string, count: number) =>
    until(async () => {
      const { rows } = await hub.service.db.query(
        "select item_code, std_code, std_value from read.lab_results where external_id = $1 order by item_index",
        [externalId],
      );
      return rows.length === count ? rows : null;
    }, 8000);

  const inHouseUrea = { itemCode: "L-0815", itemName: "本院0815", value: 24.3, unit: "mmol/L" };
  const ambiguous = [
    { itemCode: "TP", itemName: "梅毒", value: "阴性", resultType: "QUALITATIVE" },
    { itemCode: "TCO2", value: 23, unit: "mmol/L" },
  ];

  it("answers the map now in force", async () => {
    const answer = await setCodeMap({ "L-0815": "UREA_PRE", TP: "TPAB", TCO2: "HCO3" });
    expect(answer.body).to.deep.equal({
      clientId: hub.tenant.client.clientId,
      codeMap: { "L-0815": "UREA_PRE", TP: "TPAB", TCO2: "HCO3" },
    });
  });

  it("maps a local code only the client's map knows to the standard item", async () => {
    const answer = await hub.tenant.push("lab", [labReport("CM-1", { items: [inHouseUrea] })]);
    expect(answer.body.data.results[0]).to.include({ status: "CREATED", itemsMapped: 1, itemsUnmapped: 0 });
    expect(await standardCodes("CM-1", 1)).to.deep.equal([
      { item_code: "L-0815", std_code: "UREA_PRE", std_value: 24.3 },
    ]);
  });

  it("leaves the same local code unmapped when another client of the tenant sends it", async () => {
    const answer = await pushAsOther([labReport("CM-2", { items: [inHouseUrea] })]);
    expect(answer.body.data.results[0]).to.include({ status: "CREATED", itemsMapped: 0, itemsUnmapped: 1 });
    expect(await standardCodes("CM-2", 1)).to.deep.equal([{ item_code: "L-0815", std_code: null, std_value: null }]);
  });

  it("applies the client's map before a standard code or an alias with the same spelling", async () => {
    const mine = await hub.tenant.push("lab", [labReport("CM-3", { items: ambiguous })]);
    expect(mine.body.data.results[0]).to.include({ itemsMapped: 2, itemsUnmapped: 0 });
    expect((await standardCodes("CM-3", 2)).map((row) => [row.item_code, row.std_code])).to.deep.equal([
      ["TP", "TPAB"],
      ["TCO2", "HCO3"],
    ]);
    // Without the map the very same items are a standard code and an alias: the map is what differs.
    await pushAsOther([labReport("CM-4", { items: ambiguous })]);
    expect((await standardCodes("CM-4", 2)).map((row) => [row.item_code, row.std_code])).to.deep.equal([
      ["TP", "TP"],
      ["TCO2", "CO2"],
    ]);
  });

  it("applies a replaced map from the next push on", async () => {
    const replaced = await setCodeMap({ "L-0816": "UREA_POST" });
    expect(replaced.status).to.equal(200);
    const answer = await hub.tenant.push("lab", [
      labReport("CM-5", {
        items: [inHouseUrea, { itemCode: "L-0816", itemName: "本院0816", value: 7.1, unit: "mmol/L" }],
      }),
    ]);
    expect(answer.body.data.results[0]).to.include({ itemsMapped: 1, itemsUnmapped: 1 });
    expect(await standardCodes("CM-5", 2)).to.deep.equal([
      { item_code: "L-0815", std_code: null, std_value: null },
      { item_code: "L-0816", std_code: "UREA_POST", std_value: 7.1 },
    ]);
  });
});
