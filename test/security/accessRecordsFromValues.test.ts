import { expect } from "chai";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "../support/http.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { tableReportSpec } from "../support/reports.ts";
import { until } from "../support/service.ts";

/**
 * Issue #51, item 3: a report answer is recorded by the patients its values name, not by a column
 * called patient_ref. Before, renaming the column (`patient_ref as pr`), showing names only or
 * wrapping them in json_agg left no record, a literal `'…' as patient_ref` recorded a look at a
 * patient no row showed, and a request id the caller sent was written into the records.
 */
describe("security: access records from what a report answer shows (E.4)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  let nurse3A: string;

  before(async () => {
    const { call, authorToken } = hub.tenant;
    for (const [ref, name, ward, his, n] of [
      ["AR-3A", "王小明", "3A", "HIS-31", 71],
      ["AR-5B", "李大红", "5B", "HIS-52", 72],
    ] as const) {
      const saved = await call("PUT", `/api/patients/${ref}`, {
        token: authorToken,
        body: { name, idCard: makeIdCard("110105", "19580101", n), ward, hisPatientId: his },
      });
      expect(saved.status).to.equal(200);
    }
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Author of 3A", tenant: "h1", roles: ["author"], wards: ["3A"] },
    });
    nurse3A = made.body.token;
  });

  /** Runs `sql` as the draft of a report of its own, as the 3A author, sending a request id of its own choosing: the access record of the answer, or null. */
  async function recordOfQuery(
    reportId: string,
    sql: string,
  ): Promise<{ patientRefs: string[]; requestId: string } | null> {
    const { call } = hub.tenant;
    expect(
      (
        await call("PUT", `/api/reports/${reportId}/draft`, {
          token: nurse3A,
          body: { spec: tableReportSpec(reportId, { q: sql }) },
        })
      ).status,
    ).to.equal(200);
    const answer = await call("POST", `/api/reports/${reportId}/data`, {
      token: nurse3A,
      body: { version: "draft" },
      headers: { "x-request-id": `chosen-${reportId}` },
    });
    expect(answer.status).to.equal(200);
    expect(answer.body.queries.q, sql).not.to.have.property("error");
    const requestId = answer.headers.get("x-request-id")!;
    expect(requestId, "the service's own request id").to.not.equal(`chosen-${reportId}`);
    // A later call's record written means this one's is too, if there is one (records are written in order).
    const marker = await call("GET", "/api/patients/AR-3A", { token: nurse3A });
    const markerId = marker.headers.get("x-request-id")!;
    const records = await until(
      async () => {
        const log = await call("GET", "/api/admin/access-log?who=Author%20of%203A&limit=1000", { token: ADMIN });
        const all = log.body.records as Array<{ requestId: string; patientRefs: string[] }>;
        return all.some((record) => record.requestId === markerId) && all;
      },
      10_000,
      100,
    );
    expect(
      records.map((record) => record.requestId),
      "no record carries the id the caller chose",
    ).not.to.include(`chosen-${reportId}`);
    return records.find((record) => record.requestId === requestId) ?? null;
  }

  it("records a patient whose ref stands in a column of another name", async () => {
    expect(
      await recordOfQuery("renamed", "select patient_ref as pr from patients where patient_ref = 'AR-3A'"),
    ).to.deep.include({ patientRefs: ["AR-3A"] });
  });

  it("records a patient shown by name only, or by HIS id only", async () => {
    expect(
      await recordOfQuery("names-only", "select name from patients where ward = '3A' and name = '王小明'"),
    ).to.deep.include({ patientRefs: ["AR-3A"] });
    expect(
      await recordOfQuery("his-only", "select his_patient_id as h from patients where his_patient_id = 'HIS-31'"),
    ).to.deep.include({ patientRefs: ["AR-3A"] });
  });

  it("records patients named inside a JSON value or among other words", async () => {
    expect(
      await recordOfQuery(
        "json-agg",
        "select json_agg(json_build_object('p', patient_ref)) as refs from patients where patient_ref like 'AR-%'",
      ),
    ).to.deep.include({ patientRefs: ["AR-3A"] });
    expect(
      await recordOfQuery(
        "concatenated",
        "select name || ' (' || ward || ')' as who from patients where patient_ref = 'AR-3A'",
      ),
    ).to.deep.include({ patientRefs: ["AR-3A"] });
  });

  it("records no look at a patient of another ward that a literal names, and none for an answer that names nobody", async () => {
    expect(await recordOfQuery("forged", "select 'AR-5B' as patient_ref, '李大红' as name")).to.equal(null);
    expect(await recordOfQuery("counting", "select count(*) as n, 42 as answer from patients")).to.equal(null);
  });
});
