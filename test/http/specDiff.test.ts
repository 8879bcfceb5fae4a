import { expect } from "chai";
import { ingestionTenant, useIngestionService } from "../support/ingestion.ts";
import { adequacySpec } from "../support/reports.ts";

/*
 * GET /api/reports/{id}/versions/{a}/diff/{b} (issue #22): what changed between two versions of a
 * report's spec; nodes paired by id and params by name; the SQL for an author of the tenant only.
 */

const SECRET_SQL = "select patient_ref, std_value from lab_results where std_code = 'K' order by 1";

describe("comparing two versions of a report (GET /api/reports/{id}/versions/{a}/diff/{b})", () => {
  const hub = useIngestionService();
  let other: Awaited<ReturnType<typeof ingestionTenant>>;
  const diff = (path: string, token?: string) =>
    hub.tenant.call("GET", `/api/reports/adequacy/versions/${path}`, token ? { token } : {});

  before(async () => {
    other = await ingestionTenant(hub.service, "h2");
    const publish = async (spec: unknown, note: string) => {
      expect(
        (await hub.tenant.call("PUT", "/api/reports/adequacy/draft", { token: hub.tenant.authorToken, body: { spec } }))
          .status,
      ).to.equal(200);
      expect(
        (
          await hub.tenant.call("POST", "/api/reports/adequacy/publish", {
            token: hub.tenant.authorToken,
            body: { mode: "dynamic", note },
          })
        ).status,
      ).to.equal(201);
    };
    await publish(adequacySpec, "first");
    // v2: the nodes re-ordered, the table retitled, the ward list's SQL changed, a param's label changed.
    const [intro, trend, tbl] = adequacySpec.nodes;
    await publish(
      {
        ...adequacySpec,
        title: "Hemoglobin by month and ward",
        params: [{ ...adequacySpec.params[0]!, label: "Months" }, adequacySpec.params[1]!],
        queries: { ...adequacySpec.queries, wardList: { sql: SECRET_SQL } },
        nodes: [tbl && { ...tbl, title: "Every month" }, intro, trend],
      },
      "second",
    );
    // The draft adds a node.
    await hub.tenant.call("PUT", "/api/reports/adequacy/draft", {
      token: hub.tenant.authorToken,
      body: {
        spec: { ...adequacySpec, nodes: [...adequacySpec.nodes, { id: "more", type: "text", markdown: "More" }] },
      },
    });
  });

  it("lists each changed member by path, pairing nodes by id and params by name (a re-ordering is no change)", async () => {
    const answer = await diff("v1/diff/v2");
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ id: "adequacy", from: "v1", to: "v2", sqlIncluded: false });
    const byPath = Object.fromEntries(
      (answer.body.changes as Array<{ path: string }>).map((change) => [change.path, change]),
    );
    expect(Object.keys(byPath).sort()).to.deep.equal([
      "nodes[0].title",
      "params[0].label",
      "queries.wardList.sql",
      "title",
    ]);
    expect(byPath["nodes[0].title"]).to.deep.equal({ path: "nodes[0].title", before: "Detail", after: "Every month" });
    expect(byPath["title"]).to.deep.include({ before: "Hemoglobin by month", after: "Hemoglobin by month and ward" });
  });

  it("shows a viewer that a query's SQL changed, never the SQL; an author of the tenant sees it", async () => {
    const viewer = await diff("v1/diff/v2");
    expect(viewer.body.changes).to.deep.include({
      path: "queries.wardList.sql",
      before: null,
      after: null,
      redacted: true,
    });
    expect(JSON.stringify(viewer.body)).to.not.include("select");
    const otherTenantsAuthor = await diff("v1/diff/v2", other.authorToken);
    expect(otherTenantsAuthor.status, "a token of another tenant only makes a viewer").to.equal(200);
    expect(otherTenantsAuthor.body.sqlIncluded).to.equal(false);
    const author = await diff("v1/diff/v2", hub.tenant.authorToken);
    expect(author.body.sqlIncluded).to.equal(true);
    expect(author.body.changes).to.deep.include({
      path: "queries.wardList.sql",
      before: adequacySpec.queries.wardList.sql,
      after: SECRET_SQL,
    });
  });

  it("compares with the draft, either way round, and says which version does not exist", async () => {
    const toDraft = await diff("v1/diff/draft");
    expect(toDraft.body.changes).to.deep.equal([
      { path: "nodes[3]", before: null, after: { id: "more", type: "text", markdown: "More" } },
    ]);
    const back = await diff("draft/diff/v1");
    expect(back.body.changes).to.deep.equal([
      { path: "nodes[3]", before: { id: "more", type: "text", markdown: "More" }, after: null },
    ]);
    const missing = await diff("v1/diff/v9");
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.match(/has no version v9/);
  });

  it("gives an author a version's or the draft's source with its SQL (GET …/versions/{no}/source), and nobody else", async () => {
    const source = (no: string, token?: string) =>
      hub.tenant.call("GET", `/api/reports/adequacy/versions/${no}/source`, token ? { token } : {});
    const v2 = await source("v2", hub.tenant.authorToken);
    expect(v2.status).to.equal(200);
    expect(v2.body).to.include({
      id: "adequacy",
      version: "v2",
      title: "Hemoglobin by month and ward",
      datasource: "clinical",
    });
    expect(v2.body.spec.queries.wardList.sql).to.equal(SECRET_SQL);
    const draft = await source("draft", hub.tenant.authorToken);
    expect(draft.body.version).to.equal("draft");
    expect(draft.body.spec.nodes.map((node: { id: string }) => node.id)).to.include("more");
    expect((await source("v2")).status, "no token").to.equal(401);
    expect((await source("v2", other.authorToken)).status, "another tenant's author").to.equal(403);
    expect((await source("v9", hub.tenant.authorToken)).status).to.equal(404);
  });
});
