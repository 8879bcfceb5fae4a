import { expect } from "chai";
import { NO_EVENTS_WRITTEN_SQL } from "../../projections/runtime/applyBatch.ts";
import pg from "pg";
import { EVENTS_AFTER_SQL, hasEventsAfter, readAfter, START } from "../../projections/runtime/eventFeed.ts";
import { createPool } from "../../db/pool.ts";
import { createTestDatabase, useTestDatabase } from "../support/database.ts";

describe("event feed", () => {
  const database = useTestDatabase();

  it("orders by transaction id as a number, so transaction 10 comes after transaction 9", async () => {
    // Explicit, long-finished transaction ids: 9 and 10 sort the other way round as text.
    await database.db.query(
      `insert into events (transaction_id, tenant, stream_id, stream_version, type, data, metadata)
       values ('10', 't', 'late', 1, 'Counted', '{"n": 10}', '{"actor": "test"}'),
              ('9', 't', 'early', 1, 'Counted', '{"n": 9}', '{"actor": "test"}')`,
    );
    const all = (await readAfter(database.db, START, 10, ["Counted"])).events;
    expect(all.map((event) => event.transactionId)).to.deep.equal(["9", "10"]);
    const afterNine = (
      await readAfter(database.db, { transactionId: "9", position: all[0]!.position }, 10, ["Counted"])
    ).events;
    expect(afterNine.map((event) => (event.data as { n: number }).n)).to.deep.equal([10]);
  });

  it("passes over events the reader does not handle, returning only the last one read, without its payload", async () => {
    await database.db.query(
      `insert into events (transaction_id, tenant, stream_id, stream_version, type, data, metadata)
       values ('11', 't', 'other', 1, 'Ignored', '{"big": "payload"}', '{"actor": "test"}'),
              ('12', 't', 'other', 2, 'Ignored', '{"big": "payload"}', '{"actor": "test"}')`,
    );
    const page = await readAfter(database.db, START, 10, ["Counted"]);
    expect(page.scanned).to.equal(4);
    expect(page.events.map((event) => [event.transactionId, event.type, event.data])).to.deep.equal([
      ["9", "Counted", { n: 9 }],
      ["10", "Counted", { n: 10 }],
      ["12", "Ignored", null],
    ]);
    expect(page.passed).to.deep.equal([1, 2, 4]);
    // A page ending on a handled event needs no extra row.
    expect(
      (await readAfter(database.db, START, 2, ["Counted"])).events.map((event) => event.transactionId),
    ).to.deep.equal(["9", "10"]);
  });

  it("reads of a handled event only the part of its payload the reader names", async () => {
    const { events } = await readAfter(
      database.db,
      START,
      10,
      ["Counted"],
      "jsonb_build_object('twice', (data->>'n')::int * 2)",
    );
    expect(events.filter((event) => event.type === "Counted").map((event) => event.data)).to.deep.equal([
      { twice: 18 },
      { twice: 20 },
    ]);
  });

  it("looks for events past a checkpoint in the index, not the whole store, even before the store was ever analyzed", async () => {
    // Issue #35: `exists (…)` scanned every event when none lay past the point (7 ms at 100,000).
    const db = createPool(await createTestDatabase(), { max: 1 });
    try {
      await db.query(
        `insert into events (tenant, stream_id, stream_version, type, data, metadata)
         select 't', 's' || g, 1, 'Counted', jsonb_build_object('n', g), '{"actor": "test"}' from generate_series(1, 20000) g`,
      );
      const { rows } = await db.query(
        "select transaction_id::text as tx, max(position) as position from events group by 1",
      );
      const last = { transactionId: rows[0].tx as string, position: Number(rows[0].position) };
      const plan = (await db.query(`explain ${EVENTS_AFTER_SQL}`, [last.transactionId, last.position])).rows
        .map((row) => row["QUERY PLAN"])
        .join("\n");
      expect(plan).to.include("events_transaction_order").and.not.include("Seq Scan");
      expect(await hasEventsAfter(db, last)).to.equal(false);
      expect(await hasEventsAfter(db, { ...last, position: last.position - 1 })).to.equal(true);
    } finally {
      await db.end();
    }
  });

  describe("the horizon: which open transactions hold the reader back", () => {
    const probe = (label: string) =>
      `insert into events (tenant, stream_id, stream_version, type, data, metadata) values ('t', '${label}', 1, 'Probe', '{}', '{"actor": "test"}')`;
    const probesRead = async () =>
      (await readAfter(database.db, START, 100, ["Probe"])).events
        .filter((e) => e.type === "Probe")
        .map((e) => e.streamId);

    it("is not held back by a transaction open in another database of the same server", async () => {
      // Another application's database: a batch job's transaction that has written (so holds an xid).
      const elsewhere = new pg.Client({ connectionString: await createTestDatabase() });
      await elsewhere.connect();
      try {
        await elsewhere.query("begin");
        await elsewhere.query("create table batch_rows (n int); insert into batch_rows values (1)");
        await database.db.query(probe("after-foreign-begin"));
        expect(await probesRead()).to.deep.equal(["after-foreign-begin"]);
      } finally {
        await elsewhere.query("rollback").catch(() => {});
        await elsewhere.end();
      }
    });

    it("is held back by an open transaction of its own database, then reads both in commit-safe order", async () => {
      const writer = await database.db.connect();
      try {
        await writer.query("begin");
        await writer.query(probe("opened-first"));
        await database.db.query(probe("committed-meanwhile"));
        // The open writer holds a lower transaction id: reading past it would skip its event for good.
        expect(await probesRead()).to.deep.equal(["after-foreign-begin"]);
        await writer.query("commit");
        expect(await probesRead()).to.deep.equal(["after-foreign-begin", "opened-first", "committed-meanwhile"]);
      } finally {
        writer.release();
      }
    });

    it("is not held back by an open transaction that declared it writes no events, as a projection's batch does; is by its backend's next one", async () => {
      const before = ["after-foreign-begin", "opened-first", "committed-meanwhile"];
      const projector = await database.db.connect();
      try {
        await projector.query("begin");
        await projector.query(
          `${NO_EVENTS_WRITTEN_SQL}create table read_rows (n int); insert into read_rows values (1)`,
        );
        await database.db.query(probe("past-a-projector"));
        expect(await probesRead()).to.deep.equal([...before, "past-a-projector"]);
        await projector.query("commit");
        // The same connection's next transaction declares nothing, and writes an event.
        await projector.query("begin");
        await projector.query(probe("same-backend-next"));
        await database.db.query(probe("behind-it"));
        expect(await probesRead()).to.deep.equal([...before, "past-a-projector"]);
        await projector.query("commit");
        expect(await probesRead()).to.deep.equal([...before, "past-a-projector", "same-backend-next", "behind-it"]);
      } finally {
        await projector.query("rollback").catch(() => {});
        projector.release();
      }
    });
  });
});
