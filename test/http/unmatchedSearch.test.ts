import { expect } from "chai";
import pg from "pg";
import { allPages, examReport, labReport, LI_SI, nextPageOf, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Issue #54 deliverable 5, the API part: the unmatched queue newest first, of one kind, searched by
 * name, externalId and id card (a whole number compared by its keyed hash only, so that it reaches
 * no database statement), still a page at a time; and a summary whose tag changes with the queue,
 * for an open page to read the queue again only then. All additive: the list's default is as before.
 */

const WANG_WU = { name: "王 五", idCard: "110101199003070011" };

describe("the unmatched queue searched, newest first (issue #54)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const get = (path: string) => hub.tenant.call("GET", path, { token: hub.tenant.authorToken });
  const ids = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.externalId as string);

  before(async () => {
    // One at a time: each is received after the one before.
    await hub.tenant.push("lab", [labReport("S-1", { patient: LI_SI })]);
    await hub.tenant.push("lab", [labReport("S-2", { patient: WANG_WU })]);
    await hub.tenant.push("exam", [examReport("S-3", { patient: { name: "赵六", hisPatientId: "H-9" } })]);
    await hub.tenant.push("lab", [labReport("S-4", { patient: { ...WANG_WU, idCard: LI_SI.idCard } })]);
    await until(async () => (await hub.tenant.unmatched()).length === 4, 15_000);
  });

  it("answers oldest first by default, as before, and newest first when asked", async () => {
    expect(ids(await allPages(hub.tenant.call, "/api/unmatched", hub.tenant.authorToken))).to.deep.equal([
      "S-1",
      "S-2",
      "S-3",
      "S-4",
    ]);
    expect(ids(await allPages(hub.tenant.call, "/api/unmatched?order=newest", hub.tenant.authorToken))).to.deep.equal([
      "S-4",
      "S-3",
      "S-2",
      "S-1",
    ]);
  });

  it("pages newest first, the next page's Link keeping the order and the search", async () => {
    const first = await get("/api/unmatched?order=newest&limit=1&q=%E7%8E%8B%E4%BA%94");
    expect(ids(first.body)).to.deep.equal(["S-4"]);
    const next = nextPageOf(first.headers)!;
    expect(next).to.include("order=newest").and.include("q=");
    expect(ids(await allPages(hub.tenant.call, next, hub.tenant.authorToken))).to.deep.equal(["S-2"]);
  });

  it("finds reports by name (spaces aside), externalId, kind and the masked id card's digits", async () => {
    expect(ids((await get(`/api/unmatched?q=${encodeURIComponent("王五")}`)).body)).to.deep.equal(["S-2", "S-4"]);
    expect(ids((await get("/api/unmatched?q=s-3")).body)).to.deep.equal(["S-3"]);
    expect(ids((await get(`/api/unmatched?q=${encodeURIComponent("赵")}`)).body)).to.deep.equal(["S-3"]);
    // The last four digits anyone sees in the masked number.
    expect(ids((await get("/api/unmatched?q=0011")).body)).to.deep.equal(["S-2"]);
    expect(ids((await get("/api/unmatched?kind=exam")).body)).to.deep.equal(["S-3"]);
    expect(ids((await get("/api/unmatched?kind=lab&order=newest")).body)).to.deep.equal(["S-4", "S-2", "S-1"]);
    expect((await get("/api/unmatched?q=nobody")).body).to.deep.equal([]);
  });

  it("finds the reports sent with a whole id card by its keyed hash: the number reaches no statement sent to the database", async () => {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      sent.push(JSON.stringify(args[0]), JSON.stringify(args[1] ?? null));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    let found: Array<{ externalId: string; patient: { idCard: string } }>;
    try {
      found = (await get(`/api/unmatched?q=${LI_SI.idCard}`)).body as typeof found;
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(ids(found).sort()).to.deep.equal(["S-1", "S-4"]);
    expect(found[0]!.patient.idCard).to.equal("440524********0014");
    expect(sent.length, "the search was read from the database").to.be.greaterThan(0);
    expect(sent.filter((text) => text.includes(LI_SI.idCard))).to.deep.equal([]);
    // Lower case x and spaces around are the same number; another number finds nothing.
    expect(ids((await get(`/api/unmatched?q=%20${WANG_WU.idCard}%20`)).body)).to.deep.equal(["S-2"]);
    expect((await get("/api/unmatched?q=11010519491231002x")).body).to.deep.equal([]);
  });

  it("says how to fix a bad order, kind or parameter", async () => {
    for (const [query, words] of [
      ["order=latest", "order is oldest (the default) or newest"],
      ["kind=xray", "kind is lab or exam"],
      ["search=x", "The query parameters are limit, cursor, order (oldest or newest), kind (lab or exam) and q"],
    ] as const) {
      const answer = await get(`/api/unmatched?${query}`);
      expect(answer.status, query).to.equal(400);
      expect(answer.body.error, query).to.include(words);
    }
  });

  it("summarises the queue with a tag that changes when a report arrives and when one is claimed", async () => {
    const summary = async () => {
      const answer = await get("/api/unmatched/summary");
      expect(answer.status).to.equal(200);
      return answer.body as { waiting: number; tag: string };
    };
    const before = await summary();
    expect(before.waiting).to.equal(4);
    await hub.tenant.push("lab", [labReport("S-5", { patient: LI_SI })]);
    const arrived = await until(async () => {
      const now = await summary();
      return now.tag !== before.tag ? now : undefined;
    });
    expect(arrived.waiting).to.equal(5);
    const claimed = await hub.tenant.call("POST", "/api/unmatched/lab/S-5/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });
    expect(claimed.status).to.equal(200);
    const after = await summary();
    expect(after.waiting).to.equal(4);
    expect(after.tag).to.not.equal(arrived.tag);
    expect((await get("/api/unmatched/summary?x=1")).status).to.equal(400);
  });
});
