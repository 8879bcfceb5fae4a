import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { withWardScope, type Wards } from "../../db/wardScope.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/**
 * Contract E.2's ward scope, enforced in SQL: a read made for a caller with wards returns only the
 * rows of those wards' patients (and rows of no patient yet), from every patient table, with no
 * query asking for it. Row-level security does it (projections/runtime/generations.ts), keyed on
 * the wards the request set once (db/wardScope.ts).
 */
describe("security: ward scope on the read tables (E.2)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const TENANT = "h1";
  const PATIENTS = [
    { ref: "W-3A", ward: "3A", idCard: makeIdCard("110105", "19600101", 31) },
    { ref: "W-5B", ward: "5B", idCard: makeIdCard("110105", "19600102", 32) },
    { ref: "W-QUOTE", ward: "O'Neil wing", idCard: makeIdCard("110105", "19600103", 33) },
    { ref: "W-NONE", ward: null, idCard: makeIdCard("110105", "19600104", 34) },
  ];

  before(async () => {
    const { call, authorToken, push } = hub.tenant;
    for (const patient of PATIENTS) {
      const saved = await call("PUT", `/api/patients/${patient.ref}`, {
        token: authorToken,
        body: { name: `病人${patient.ref}`, idCard: patient.idCard, ward: patient.ward },
      });
      expect(saved.status).to.equal(200);
    }
    const reports = PATIENTS.map((patient) =>
      labReport(`WS-${patient.ref}`, {
        patient: { idCard: patient.idCard, name: `病人${patient.ref}` },
        // Alerts are raised for results of the last days only.
        collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
        reportedAt: localDateTime(new Date()),
        items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", abnormalFlag: "HH" }],
      }),
    );
    reports.push(
      labReport("WS-UNMATCHED", { patient: { idCard: makeIdCard("110105", "19600105", 35), name: "无名" } }),
    );
    expect((await push("lab", reports)).status).to.equal(200);
    await until(async () => (await rowsOf(null, "alerts")).length >= 4, 10_000, 100);
  });

  /** The patient of each row of a read table, read as the tenant with these wards. */
  function rowsOf(wards: Wards, table: string, column = "patient_ref"): Promise<Array<string | null>> {
    return withWardScope(wards, () =>
      readAsTenant(hub.service.db, TENANT, async (reader) =>
        (
          await reader.query(`select ${column} as owner from read.${table} where ${column} is distinct from 'P001'`)
        ).rows.map((row) => row.owner),
      ),
    );
  }

  it("lets a caller with wards read only its wards' patients and their rows, and unmatched reports", async () => {
    expect((await rowsOf(["3A"], "patients")).sort()).to.deep.equal(["W-3A"]);
    expect((await rowsOf(["3A"], "alerts")).sort()).to.deep.equal(["W-3A"]);
    expect((await rowsOf(["3A"], "lab_results")).every((owner) => owner === "W-3A" || owner === null)).to.equal(true);
    expect(await rowsOf(["3A"], "lab_results")).to.include("W-3A");
    expect((await rowsOf(["3A"], "latest_results")).every((owner) => owner === "W-3A")).to.equal(true);
    expect(await rowsOf(["3A"], "lab_reports")).to.have.members([null, "W-3A"]);
    expect((await rowsOf(["3A", "5B"], "patients")).sort()).to.deep.equal(["W-3A", "W-5B"]);
    expect((await rowsOf(["O'Neil wing"], "alerts")).sort()).to.deep.equal(["W-QUOTE"]);
    expect(await rowsOf([], "patients"), "no ward at all: no patient").to.deep.equal([]);
  });

  it("leaves a caller without wards every patient of the tenant", async () => {
    expect((await rowsOf(null, "patients")).sort()).to.deep.equal(["W-3A", "W-5B", "W-NONE", "W-QUOTE"]);
    expect((await rowsOf(null, "alerts")).sort()).to.deep.equal(["W-3A", "W-5B", "W-NONE", "W-QUOTE"]);
  });

  it("keeps a ward scope for every read table with a patient or ward column (a table left out would leak)", async () => {
    const declared = new Set(allProjections.flatMap((projection) => Object.keys(projection.patientRows ?? {})));
    const { rows } = await hub.service.db.query(
      "select distinct table_name from information_schema.columns where table_schema = 'read' and column_name in ('patient_ref', 'ward') order by 1",
    );
    expect(rows.map((row) => row.table_name).filter((table) => !declared.has(table))).to.deep.equal([]);
  });
});
