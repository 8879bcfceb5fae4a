import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import {
  KEPT_AT_VERSION,
  MOVES,
  QUALITY_ITEM_CODES,
  qualityMonthsProjection,
} from "../../projections/quality/qualityMonths.ts";
import { silentLogger } from "../../src/logger.ts";
import { labReport, monthsAgo, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { tableDigests } from "../support/tableDigests.ts";

/*
 * The quality_months projection (contract G.2): each patient's last value of each indicator item
 * per month, derived values included, kept right through corrections, claims and item mappings,
 * and rebuilt by replay to the same rows.
 */

const MONTH_START = `${localDateTime(monthsAgo(3)).slice(0, 7)}-01`;
const at = (day: number, hour = 7) => localDateTime(new Date(monthsAgo(3, day).setHours(hour, 0, 0, 0)));
const report = (externalId: string, day: number, items: object[], overrides: object = {}) =>
  labReport(externalId, { collectedAt: at(day), reportedAt: at(day, 10), items, ...overrides });

describe("the quality_months projection", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  const author = () => hub.tenant.authorToken;
  const values = async () => {
    await projectionsCaughtUp(hub.service.url!);
    const { rows } = await hub.service.db.query(
      `select std_code, value, value_text, external_ids, formula_version from read.quality_values
       where tenant = 'h1' and patient_ref = 'P001' and month = $1 order by std_code`,
      [MONTH_START],
    );
    return Object.fromEntries(rows.map(({ std_code, ...rest }) => [std_code, rest]));
  };

  it("keeps the items and windows of version 1's indicators: a dictionary whose indicators read others is a new version", () => {
    expect(QUALITY_ITEM_CODES.join(",")).to.equal(KEPT_AT_VERSION.codes);
    expect(MOVES.lookbackMonths).to.equal(KEPT_AT_VERSION.lookbackMonths);
    expect(qualityMonthsProjection.version).to.equal(KEPT_AT_VERSION.version);
  });

  it("keeps the last value of the month, a derived one where the laboratory sent none, the sent one where it did", async () => {
    await hub.tenant.push("lab", [
      report("QP-1", 5, [
        { itemCode: "HGB", value: 105, unit: "g/L" },
        { itemCode: "CA", value: 2.3, unit: "mmol/L" },
        { itemCode: "ALB", value: 38, unit: "g/L" },
        { itemCode: "UREA_PRE", value: 25, unit: "mmol/L" },
        { itemCode: "UREA_POST", value: 8, unit: "mmol/L" },
        { itemCode: "HBSAG", value: "阴性", resultType: "QUALITATIVE" },
        { itemCode: "K", value: 5.1, unit: "mmol/L" },
      ]),
      report("QP-2", 20, [
        { itemCode: "HGB", value: 120, unit: "g/L" },
        { itemCode: "URR", value: 72, unit: "%" },
      ]),
    ]);
    expect(await values()).to.deep.equal({
      ALB: { value: 38, value_text: null, external_ids: ["QP-1"], formula_version: null },
      CA: { value: 2.3, value_text: null, external_ids: ["QP-1"], formula_version: null },
      CA_CORR: { value: 2.34, value_text: null, external_ids: ["QP-1"], formula_version: 1 },
      HBSAG: { value: null, value_text: "阴性", external_ids: ["QP-1"], formula_version: null },
      HGB: { value: 120, value_text: null, external_ids: ["QP-2"], formula_version: null },
      URR: { value: 72, value_text: null, external_ids: ["QP-2"], formula_version: null },
    });
  });

  it("finds the month's last value again when a report is corrected, and derives where the sent value went", async () => {
    await hub.tenant.push("lab", [
      report("QP-2", 20, [{ itemCode: "HGB", value: 118, unit: "g/L" }], { status: "CORRECTED" }),
    ]);
    const after = await values();
    expect(after.HGB).to.deep.include({ value: 118, external_ids: ["QP-2"] });
    expect(after.URR).to.deep.equal({ value: 68, value_text: null, external_ids: ["QP-1"], formula_version: 1 });
    // Corrected to another month: the report leaves this one.
    await hub.tenant.push("lab", [
      labReport("QP-2", {
        collectedAt: localDateTime(monthsAgo(2, 3)),
        reportedAt: localDateTime(monthsAgo(2, 4)),
        status: "CORRECTED",
        items: [{ itemCode: "HGB", value: 118, unit: "g/L" }],
      }),
    ]);
    expect((await values()).HGB).to.deep.include({ value: 105, external_ids: ["QP-1"] });
  });

  it("counts a report once it is claimed for the patient", async () => {
    await hub.tenant.push("lab", [
      report("QP-3", 25, [{ itemCode: "HGB", value: 99, unit: "g/L" }], { patient: { hisPatientId: "H-404" } }),
    ]);
    expect((await values()).HGB).to.deep.include({ value: 105 });
    const claimed = await hub.tenant.call("POST", "/api/unmatched/lab/QP-3/claim", {
      token: author(),
      body: { patientRef: "P001" },
    });
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(200);
    expect((await values()).HGB).to.deep.include({ value: 99, external_ids: ["QP-3"] });
  });

  it("maps a sender's own item to an indicator's item when a mapping is made, and unmaps it when it is undone", async () => {
    await hub.tenant.push("lab", [
      report("QP-4", 26, [{ itemCode: "L-ALB", itemName: "本院白蛋白", value: 4.1, unit: "g/dL" }]),
    ]);
    expect((await values()).ALB).to.deep.include({ value: 38 });
    const made = await hub.tenant.call("POST", "/api/dictionary/mappings", {
      token: author(),
      body: { client: "Central lab LIS", itemCode: "L-ALB", stdCode: "ALB", reason: "the lab's own code" },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect((await values()).ALB).to.deep.include({ value: 41, external_ids: ["QP-4"] });
    const undone = await hub.tenant.call("DELETE", `/api/dictionary/mappings/${made.body.mappingId}`, {
      token: author(),
    });
    expect(undone.status, JSON.stringify(undone.body)).to.be.oneOf([200, 204]);
    expect((await values()).ALB).to.deep.include({ value: 38, external_ids: ["QP-1"] });
  });

  it("rebuilds by replay to the same rows", async () => {
    await projectionsCaughtUp(hub.service.url!);
    const digests = async () => {
      const { rows } = await hub.service.db.query(
        "select schema_name from projection_generations where name = 'quality_months' and state = 'live'",
      );
      return tableDigests(hub.service.db, rows[0].schema_name, [
        "quality_reports",
        "quality_items",
        "quality_values",
        "quality_mapping_rules",
        "quality_formulas",
        "quality_applied",
      ]);
    };
    const before = await digests();
    expect(before.quality_values).to.not.match(/^0:/);
    const result = await rebuildProjection(hub.service.db, qualityMonthsProjection, silentLogger);
    expect(result.status).to.equal("rebuilt");
    expect(await digests()).to.deep.equal(before);
  });
});
