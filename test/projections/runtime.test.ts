import { expect } from "chai";
import { appendToStream, type StoredEvent } from "../../db/eventStore.ts";
import { withTransaction, type Db, type Tx } from "../../db/pool.ts";
import type { ApplyContext } from "../../projections/runtime/projection.ts";
import { clearError, findLive } from "../../projections/runtime/generations.ts";
import { prepareProjections } from "../../projections/runtime/rebuild.ts";
import { ProjectionRunner } from "../../projections/runtime/runner.ts";
import { silentLogger } from "../../src/logger.ts";
import { useTestDatabase } from "../support/database.ts";
import { until } from "../support/service.ts";
import { prepareRecording, recordingProjection } from "../support/projections.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The real pool, counting the transactions a runner opens on it (each takes a connection). */
function countingTransactions(db: Db): Db & { transactions: number } {
  let transactions = 0;
  return new Proxy(db, {
    get: (target, key) =>
      key === "connect"
        ? () => (transactions++, target.connect())
        : key === "transactions"
          ? transactions
          : Reflect.get(target, key),
  }) as Db & { transactions: number };
}

describe("projection runtime", () => {
  const database = useTestDatabase({ max: 20, eachTest: true });

  it("applies every event exactly once while 8 writers commit out of position order", async function () {
    this.timeout(120_000);
    const { runner } = await prepareRecording(database.db, "gapless", { batchSize: 300, waitingRetryMs: 2 });

    const writers = 8;
    const eventsPerWriter = 2000;
    const perTransaction = 10;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        await runner.wake();
        await sleep(1);
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        (async () => {
          for (let t = 0; t < eventsPerWriter / perTransaction; t++) {
            await withTransaction(database.db, async (tx) => {
              await appendToStream(tx, {
                tenant: "t1",
                streamId: `writer-${w}`,
                expectedVersion: t * perTransaction,
                events: Array.from({ length: perTransaction }, (_, i) => ({
                  type: "Counted",
                  data: { n: t * perTransaction + i },
                })),
                metadata: { actor: `writer-${w}` },
              });
              // Hold the transaction open so that later positions commit first.
              await sleep(Math.random() * 12);
            });
          }
        })(),
      ),
    );
    writing = false;
    await reader;
    await runner.settle(60_000);
    await runner.stop();
    expect((await findLive(database.db, "gapless"))?.error ?? null, "no event may be applied twice").to.equal(null);

    const overtaken = await database.db.query(
      `select count(*)::int as n from events e where exists (
         select 1 from events later where later.transaction_id < e.transaction_id and later.position > e.position)`,
    );
    expect(overtaken.rows[0].n, "the workload must commit positions out of order to mean anything").to.be.greaterThan(
      0,
    );
    expect(await seenCount(database.db, "gapless")).to.equal(writers * eventsPerWriter);
    const missing = await database.db.query(
      "select count(*)::int as n from events e where not exists (select 1 from read.gapless_seen s where s.position = e.position)",
    );
    expect(missing.rows[0].n).to.equal(0);
    const live = await findLive(database.db, "gapless");
    expect(live?.appliedCount).to.equal(writers * eventsPerWriter);
  });

  it("looks again less and less often while an open transaction holds events back, and applies them once it commits", async function () {
    this.timeout(30_000);
    const db = database.db;
    const projection = recordingProjection("held");
    await prepareProjections(db, [projection], silentLogger);
    const counting = countingTransactions(db);
    const runner = new ProjectionRunner(counting, projection, silentLogger);
    const append = (tx: Parameters<typeof appendToStream>[0], streamId: string) =>
      appendToStream(tx, {
        tenant: "t1",
        streamId,
        expectedVersion: 0,
        events: [{ type: "Counted", data: { n: 1 } }],
        metadata: { actor: "test" },
      });

    const holder = await db.connect();
    try {
      await holder.query("begin");
      await append(holder, "held-open");
      await withTransaction(db, (tx) => append(tx, "committed-behind"));
      await runner.wake();
      await sleep(3000);
      // Every 20 ms would be about 150 looks in 3 s; doubling up to a second is about 9.
      expect(counting.transactions, "looks while held for 3 s").to.be.within(3, 20);
      expect(await seenCount(db, "held")).to.equal(0);
      await holder.query("commit");
    } finally {
      holder.release();
    }
    await runner.settle();
    await runner.stop();
    expect(await seenCount(db, "held")).to.equal(2);
  });

  it("looks soon again when new events of its own arrive while another writer has held it back long", async function () {
    this.timeout(30_000);
    const db = database.db;
    const projection = recordingProjection("heldlong");
    await prepareProjections(db, [projection], silentLogger);
    const counting = countingTransactions(db);
    const runner = new ProjectionRunner(counting, projection, silentLogger);
    const append = (tx: Parameters<typeof appendToStream>[0], streamId: string, type: string) =>
      appendToStream(tx, {
        tenant: "t1",
        streamId,
        expectedVersion: 0,
        events: [{ type, data: { n: 1 } }],
        metadata: { actor: "test" },
      });

    const holder = await db.connect();
    try {
      await holder.query("begin");
      // Another writer's event, of a type this projection does not apply, held open.
      await append(holder, "other-writer", "Other");
      await withTransaction(db, (tx) => append(tx, "first", "Counted"));
      await runner.wake();
      await sleep(2500); // the pauses between looks have grown to a second
      const before = counting.transactions;
      await withTransaction(db, (tx) => append(tx, "second", "Counted"));
      await runner.wakeForNewEvents();
      await sleep(400);
      // 20, 40, 80 and 160 ms after the first look: 5 looks; a pause of a second kept: 1.
      expect(counting.transactions - before, "looks in the 400 ms after its new event").to.be.at.least(3);
      await holder.query("commit");
    } finally {
      holder.release();
    }
    await runner.settle();
    await runner.stop();
    expect(await seenCount(db, "heldlong")).to.equal(2);
  });

  it("applies a wake-up's events in one transaction when they fit in a batch, and still notices events held back behind it", async function () {
    this.timeout(30_000);
    const db = database.db;
    const projection = recordingProjection("onepass");
    await prepareProjections(db, [projection], silentLogger);
    const counting = countingTransactions(db);
    const runner = new ProjectionRunner(counting, projection, silentLogger, { waitingRetryMs: 5 });
    const append = (tx: Parameters<typeof appendToStream>[0], streamId: string, n: number) =>
      appendToStream(tx, {
        tenant: "t1",
        streamId,
        expectedVersion: 0,
        events: Array.from({ length: n }, (_, i) => ({ type: "Counted", data: { n: i } })),
        metadata: { actor: "test" },
      });

    await withTransaction(db, (tx) => append(tx, "a", 10));
    await runner.wake();
    // Issue #35: a second transaction only to find nothing more was a third of a projection's round trips under load.
    expect(counting.transactions, "one transaction for a batch short of full").to.equal(1);
    expect(await seenCount(db, "onepass")).to.equal(10);

    // Events that commit behind an open transaction are still looked for again, and applied once it ends.
    const holder = await db.connect();
    try {
      await holder.query("begin");
      await append(holder, "held", 1);
      await withTransaction(db, (tx) => append(tx, "behind", 1));
      await runner.wake();
      expect(await seenCount(db, "onepass")).to.equal(10);
      await holder.query("commit");
    } finally {
      holder.release();
    }
    await until(async () => (await seenCount(db, "onepass")) === 12, 5_000);
    await runner.stop();
  });

  it("ends a batch after each event of a type that asks for its own transaction, and applies every event once", async function () {
    this.timeout(30_000);
    const db = database.db;
    const recording = recordingProjection("cut", ["Counted", "Heavy"]);
    const batches: string[][] = [];
    const projection = {
      ...recording,
      batchEndsAfter: ["Heavy"],
      async applyBatch(tx: Tx, events: StoredEvent[], context?: ApplyContext) {
        batches.push(events.map((event) => event.type));
        await recording.applyBatch!(tx, events, context);
      },
    };
    await prepareProjections(db, [projection], silentLogger);
    const runner = new ProjectionRunner(db, projection, silentLogger);
    const types = ["Counted", "Counted", "Heavy", "Counted", "Heavy", "Heavy", "Counted", "Other", "Counted"];
    await withTransaction(db, (tx) =>
      appendToStream(tx, {
        tenant: "t1",
        streamId: "mixed",
        expectedVersion: 0,
        events: types.map((type, n) => ({ type, data: { n } })),
        metadata: { actor: "test" },
      }),
    );
    await runner.wake();
    expect(batches).to.deep.equal([
      ["Counted", "Counted", "Heavy"],
      ["Counted", "Heavy"],
      ["Heavy"],
      ["Counted", "Counted"],
    ]);
    expect(await seenCount(db, "cut")).to.equal(8);
    expect((await findLive(db, "cut"))?.appliedCount, "every event passed, handled or not").to.equal(types.length);
    await runner.stop();
  });

  it("holds back only the tenant of an event it cannot apply, applies every other tenant's, and catches that tenant up in order on retry", async () => {
    let poisoned = true;
    const fragile = recordingProjection(
      "fragile",
      ["Counted"],
      (event) => poisoned && event.tenant === "t1" && (event.data as { n: number }).n === 3,
    );
    const sturdy = recordingProjection("sturdy");
    await prepareProjections(database.db, [fragile, sturdy], silentLogger);
    const append = (tenant: string, from: number, to: number) =>
      appendToStream(database.db, {
        tenant,
        streamId: "s",
        expectedVersion: from - 1,
        events: Array.from({ length: to - from + 1 }, (_, i) => ({ type: "Counted", data: { n: from + i } })),
        metadata: { actor: "test" },
      });
    await append("t1", 1, 5);
    await append("t2", 1, 5);
    const fragileRunner = new ProjectionRunner(database.db, fragile, silentLogger);
    const sturdyRunner = new ProjectionRunner(database.db, sturdy, silentLogger);
    await Promise.all([fragileRunner.settle(), sturdyRunner.settle()]);

    expect(await seenOf(database.db, "fragile", "t1"), "t1 stops before its third event").to.deep.equal([1, 2]);
    expect(await seenOf(database.db, "fragile", "t2"), "t2 goes on").to.deep.equal([1, 2, 3, 4, 5]);
    expect(await seenValues(database.db, "sturdy")).to.have.length(10);
    const live = await findLive(database.db, "fragile");
    expect(live?.error, "the projection as a whole is not stopped").to.equal(null);
    expect(live?.quarantined.map((held) => held.tenant)).to.deep.equal(["t1"]);
    const third = await database.db.query("select position from events where tenant = 't1' and data->>'n' = '3'");
    const { rows: held } = await database.db.query(
      "select error_position, error_code, error from projection_quarantines where name = 'fragile'",
    );
    expect(held).to.deep.equal([
      {
        error_position: third.rows[0].position,
        error_code: null,
        error: `cannot apply event ${third.rows[0].position}`,
      },
    ]);

    // Both tenants push on: t2's new events are applied, t1's wait behind its held-back one.
    await append("t1", 6, 6);
    await append("t2", 6, 6);
    await fragileRunner.settle();
    expect(await seenOf(database.db, "fragile", "t1")).to.deep.equal([1, 2]);
    expect(await seenOf(database.db, "fragile", "t2")).to.deep.equal([1, 2, 3, 4, 5, 6]);

    // A retry that fails again keeps it held back, with a longer pause.
    expect(await clearError(database.db, "fragile")).to.equal(true);
    await fragileRunner.settle();
    expect(await seenOf(database.db, "fragile", "t1")).to.deep.equal([1, 2]);
    expect(
      (
        await database.db.query(
          "select tries, retry_at > now() + interval '90 seconds' as later from projection_quarantines",
        )
      ).rows,
    ).to.deep.equal([{ tries: 2, later: true }]);

    poisoned = false; // the fix is deployed
    expect(await clearError(database.db, "fragile")).to.equal(true);
    await fragileRunner.settle();
    expect(await seenOf(database.db, "fragile", "t1"), "every waiting event once, in order").to.deep.equal([
      1, 2, 3, 4, 5, 6,
    ]);
    expect((await findLive(database.db, "fragile"))?.quarantined).to.deep.equal([]);
    await append("t1", 7, 7);
    await fragileRunner.settle();
    expect(await seenOf(database.db, "fragile", "t1"), "and it is applied with everyone's again").to.deep.equal([
      1, 2, 3, 4, 5, 6, 7,
    ]);
  });
});

async function seenCount(db: Db, name: string): Promise<number> {
  return (await db.query(`select count(*)::int as n from read.${name}_seen`)).rows[0].n;
}

async function seenOf(db: Db, name: string, tenant: string): Promise<number[]> {
  return (await db.query(`select n from read.${name}_seen where tenant = $1 order by position`, [tenant])).rows.map(
    (row) => row.n,
  );
}

async function seenValues(db: Db, name: string): Promise<number[]> {
  return (await db.query(`select n from read.${name}_seen order by n`)).rows.map((row) => row.n);
}
