import { expect } from "chai";
import { appendToStream } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import type { Projection } from "../../projections/runtime/projection.ts";
import { prepareProjections } from "../../projections/runtime/rebuild.ts";
import { silentLogger } from "../../src/logger.ts";
import { useTestDatabase } from "../support/database.ts";
import { prepareRecording, recordingProjection } from "../support/projections.ts";

describe("tenant scope", () => {
  const database = useTestDatabase();
  before(async () => {
    const { runner } = await prepareRecording(database.db, "scoped");
    for (const tenant of ["north", "south"]) {
      await appendToStream(database.db, {
        tenant,
        streamId: "s",
        expectedVersion: 0,
        events: [1, 2, 3].map((n) => ({ type: "Counted", data: { n: tenant === "north" ? n : n * 100 } })),
        metadata: { actor: "test" },
      });
    }
    await runner.settle(60_000);
  });

  it("shows a tenant its own rows only, with no tenant filter in the query", async () => {
    const north = await readAsTenant(
      database.db,
      "north",
      async (reader) => (await reader.query("select n from read.scoped_seen order by n")).rows,
    );
    expect(north.map((row) => row.n)).to.deep.equal([1, 2, 3]);
    const south = await readAsTenant(
      database.db,
      "south",
      async (reader) => (await reader.query("select count(*)::int as n from read.scoped_seen")).rows[0].n,
    );
    expect(south).to.equal(3);
    const nobody = await readAsTenant(
      database.db,
      "west",
      async (reader) => (await reader.query("select count(*)::int as n from read.scoped_seen")).rows[0].n,
    );
    expect(nobody).to.equal(0);
  });

  for (const [what, sql] of <Array<[string, string]>>[
    ["the event store", "select count(*) from events"],
    ["PostgreSQL's password table", "select count(*) from pg_authid"],
  ]) {
    it(`cannot read ${what}`, async () => {
      const error = await readAsTenant(database.db, "north", (reader) => reader.query(sql)).catch((e: Error) => e);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.match(/permission denied/);
    });
  }

  it("is filtered to its tenant even when it names a generation's table directly", async () => {
    const n = await readAsTenant(
      database.db,
      "north",
      async (reader) => (await reader.query("select count(*)::int as n from proj_scoped_g1.scoped_seen")).rows[0].n,
    );
    expect(n).to.equal(3);
  });

  it("cannot write to the read tables", async () => {
    const error = await readAsTenant(database.db, "north", (reader) =>
      reader.query("delete from read.scoped_seen"),
    ).catch((e: Error) => e);
    expect((error as Error).message).to.match(/permission denied/);
    expect((await database.db.query("select count(*)::int as n from read.scoped_seen")).rows[0].n).to.equal(6);
  });

  it("refuses a read model table without a tenant column", async () => {
    const leaky: Projection = {
      ...recordingProjection("leaky"),
      setup: async (tx) => void (await tx.query("create table leaky_seen (position bigint)")),
    };
    const error = await prepareProjections(database.db, [leaky], silentLogger).catch((e: Error) => e);
    expect((error as Error).message).to.match(/needs a tenant column/);
  });
});
