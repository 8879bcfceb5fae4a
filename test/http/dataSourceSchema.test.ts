import { expect } from "chai";
import { useIngestionService } from "../support/ingestion.ts";

/*
 * Issue #54: the report editor's schema browser reads what report SQL of a data source can read —
 * for `clinical` the relations of contract C.5 and their columns, nothing more — for authors only.
 */

describe("a data source's schema (GET /api/datasources/{name}/schema)", function () {
  this.timeout(30_000);
  const hub = useIngestionService();

  it("lists the clinical relations with their columns in order, and no table report SQL cannot read", async () => {
    const answer = await hub.tenant.call("GET", "/api/datasources/clinical/schema", { token: hub.tenant.authorToken });
    expect(answer.status).to.equal(200);
    const { datasource, relations } = answer.body as {
      datasource: string;
      relations: Array<{ name: string; kind: string; columns: Array<{ name: string; type: string }> }>;
    };
    expect(datasource).to.equal("clinical");
    expect(relations.map((relation) => relation.name)).to.include.members([
      "exam_reports",
      "lab_reports",
      "lab_results",
      "patients",
    ]);
    const patients = relations.find((relation) => relation.name === "patients")!;
    expect(patients.kind).to.equal("view");
    expect(patients.columns.map((column) => column.name)).to.deep.equal([
      "patient_ref",
      "name",
      "his_patient_id",
      "ward",
      "active",
    ]);
    const results = relations.find((relation) => relation.name === "lab_results")!;
    expect(results.columns.find((column) => column.name === "std_value")?.type).to.equal("double precision");
    expect(JSON.stringify(relations)).to.not.include("id_card");
  });

  it("says which data sources there are for an unknown one, and is for authors only", async () => {
    const unknown = await hub.tenant.call("GET", "/api/datasources/billing/schema", { token: hub.tenant.authorToken });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error).to.include('There is no data source "billing"; the data sources are clinical');
    expect((await hub.tenant.call("GET", "/api/datasources/clinical/schema")).status).to.equal(401);
  });
});
