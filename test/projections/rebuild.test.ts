import { expect } from "chai";
import { appendToStream } from "../../db/eventStore.ts";
import type { Db, Tx } from "../../db/pool.ts";
import { applyNextBatch } from "../../projections/runtime/applyBatch.ts";
import { createGeneration, findLive, lockGeneration } from "../../projections/runtime/generations.ts";
import { projectionsReport } from "../../queries/runtime/projectionStatus.ts";
import { withTransaction } from "../../db/pool.ts";
import { prepareProjections, rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { deferIndexes } from "../../projections/runtime/deferredIndexes.ts";
import { throughParams, upTo } from "../../projections/runtime/loadAtOnce.ts";
import { ProjectionRunner } from "../../projections/runtime/runner.ts";
import { silentLogger } from "../../src/logger.ts";
import { useTestDatabase } from "../support/database.ts";
import type { Projection } from "../../projections/runtime/projection.ts";
import { prepareRecording, recordingProjection } from "../support/projections.ts";

async function appendCounted(db: Db, stream: string, from: number, count: number) {
  await appendToStream(db, {
    tenant: "t1",
    streamId: stream,
    expectedVersion: from,
    events: Array.from({ length: count }, (_, i) => ({ type: "Counted", data: { n: from + i } })),
    metadata: { actor: "test" },
  });
}

/** Records every Counted event in each of its tables. */
function recordingInto(name: string, version: number, tables: string[]): Projection {
  return {
    name,
    version,
    handles: ["Counted"],
    tables,
    async setup(tx) {
      for (const table of tables)
        await tx.query(`create table ${table} (position bigint primary key, tenant text not null, n integer)`);
    },
    async apply(tx, event) {
      for (const table of tables)
        await tx.query(`insert into ${table} values ($1, $2, $3)`, [
          event.position,
          event.tenant,
          (event.data as { n: number }).n,
        ]);
    },
  };
}

const contents = async (db: Db, table: string) =>
  (await db.query(`select position, tenant, n from read.${table} order by position`)).rows;

describe("projection rebuild", () => {
  const database = useTestDatabase({ max: 10, eachTest: true });

  it("completes with a tenant whose event it cannot apply held back, every other tenant's events applied, and goes live", async function () {
    this.timeout(60_000);
    const { runner } = await prepareRecording(database.db, "replayed");
    for (const tenant of ["t1", "t2"]) {
      await appendToStream(database.db, {
        tenant,
        streamId: "s",
        expectedVersion: 0,
        events: Array.from({ length: 50 }, (_, i) => ({ type: "Counted", data: { n: i + 1 } })),
        metadata: { actor: "test" },
      });
    }
    await runner.settle();
    // The next version cannot apply t2's 10th event (a change of code meeting an old event).
    const poisoned = {
      ...recordingProjection(
        "replayed",
        ["Counted"],
        (event) => event.tenant === "t2" && (event.data as { n: number }).n === 10,
      ),
      version: 2,
    };
    const result = await rebuildProjection(database.db, poisoned, silentLogger, { batchSize: 20 });
    expect(result).to.deep.include({ status: "rebuilt", heldBack: ["t2"] });
    const counts = await database.db.query(
      "select tenant, count(*)::int as n, max(n) as last from read.replayed_seen group by tenant order by tenant",
    );
    expect(counts.rows).to.deep.equal([
      { tenant: "t1", n: 50, last: 50 },
      { tenant: "t2", n: 9, last: 9 },
    ]);
    expect((await findLive(database.db, "replayed"))?.quarantined.map((held) => held.tenant)).to.deep.equal(["t2"]);
  });

  it("replays into fresh tables while the old ones serve, then switches to identical contents", async function () {
    this.timeout(60_000);
    const { projection, runner } = await prepareRecording(database.db, "rebuilt");
    await appendCounted(database.db, "a", 0, 3000);
    await runner.settle();
    const original = await contents(database.db, "rebuilt_seen");
    expect(original).to.have.length(3000);

    // Readers and writers carry on during the rebuild.
    let rebuilding = true;
    const servedCounts: number[] = [];
    const reader = (async () => {
      while (rebuilding)
        servedCounts.push((await database.db.query("select count(*)::int as n from read.rebuilt_seen")).rows[0].n);
    })();
    const writer = (async () => {
      for (let i = 0; i < 10; i++) {
        await appendCounted(database.db, "b", i * 10, 10);
        await runner.wake();
      }
    })();
    const result = await rebuildProjection(database.db, projection, silentLogger, { batchSize: 250 });
    await writer;
    rebuilding = false;
    await reader;
    await runner.settle();

    expect(result.status).to.equal("rebuilt");
    expect(servedCounts.length, "reads went on during the rebuild").to.be.greaterThan(0);
    expect(Math.min(...servedCounts), "the old tables never looked empty").to.be.at.least(3000);
    const live = await findLive(database.db, "rebuilt");
    expect(live?.generation).to.equal(2);
    const after = await contents(database.db, "rebuilt_seen");
    expect(after).to.have.length(3100);
    expect(after.slice(0, 3000)).to.deep.equal(original);
    const oldSchema = await database.db.query(
      "select 1 from information_schema.schemata where schema_name = 'proj_rebuilt_g1'",
    );
    expect(oldSchema.rowCount, "the retired generation's tables are dropped").to.equal(0);
    // Issue #35: the new generation serves with its statistics gathered, whatever autovacuum does.
    const stats = await database.db.query(
      "select count(*)::int as columns from pg_stats where schemaname = 'proj_rebuilt_g2' and tablename = 'rebuilt_seen'",
    );
    expect(stats.rows[0].columns, "the rebuilt table's columns have statistics").to.be.greaterThan(0);
  });

  it("holds back a projection whose code changed version until a replay has rebuilt it", async () => {
    const v1 = recordingProjection("evolving");
    await prepareProjections(database.db, [v1], silentLogger);
    await appendCounted(database.db, "a", 0, 5);
    await new ProjectionRunner(database.db, v1, silentLogger).settle();

    const v2 = { ...v1, version: 2 };
    const stale = await prepareProjections(database.db, [v2], silentLogger);
    expect(stale.map((p) => p.name)).to.deep.equal(["evolving"]);
    await appendCounted(database.db, "a", 5, 5);
    await new ProjectionRunner(database.db, v2, silentLogger).settle();
    expect(await contents(database.db, "evolving_seen"), "v2 code must not write into v1 tables").to.have.length(5);

    expect((await rebuildProjection(database.db, v2, silentLogger)).status).to.equal("rebuilt");
    expect((await findLive(database.db, "evolving"))?.version).to.equal(2);
    expect(await contents(database.db, "evolving_seen")).to.have.length(10);
  });

  it("builds a projection that takes a table over from another before it serves it, the old copy serving until then", async function () {
    this.timeout(60_000);
    await prepareProjections(database.db, [recordingInto("whole", 1, ["whole_seen", "part_seen"])], silentLogger);
    await appendCounted(database.db, "a", 0, 50);
    await new ProjectionRunner(
      database.db,
      recordingInto("whole", 1, ["whole_seen", "part_seen"]),
      silentLogger,
    ).settle();

    const whole = recordingInto("whole", 2, ["whole_seen"]);
    const part = recordingInto("part", 1, ["part_seen"]);
    const toBuild = await prepareProjections(database.db, [whole, part], silentLogger);
    expect(toBuild.map((p) => p.name)).to.deep.equal(["whole", "part"]);
    expect(await findLive(database.db, "part"), "not live before it is built").to.equal(null);
    expect(await contents(database.db, "part_seen")).to.have.length(50);

    expect((await rebuildProjection(database.db, whole, silentLogger)).status).to.equal("rebuilt");
    expect(await contents(database.db, "part_seen"), "the old generation's copy still serves").to.have.length(50);

    await appendCounted(database.db, "a", 50, 5);
    expect((await rebuildProjection(database.db, part, silentLogger)).status).to.equal("rebuilt");
    expect(await contents(database.db, "part_seen")).to.have.length(55);
    const schemas = await database.db.query(
      "select schema_name from information_schema.schemata where schema_name like 'proj_whole_%' or schema_name like 'proj_part_%' order by 1",
    );
    expect(
      schemas.rows.map((row) => row.schema_name),
      "the retired generation is dropped once nothing shows it",
    ).to.deep.equal(["proj_part_g2", "proj_whole_g2"]);
  });
  it("gathers statistics of the rebuilt projection's own tables only: a reactor, which has none, analyzes nothing", async function () {
    this.timeout(60_000);
    const lastAnalyzed = async () =>
      (
        await database.db.query(
          "select relname, last_analyze from pg_stat_user_tables where schemaname = 'public' and relname in " +
            "('events', 'projection_generations') order by relname",
        )
      ).rows;
    await appendCounted(database.db, "a", 0, 10);
    const before = await lastAnalyzed();
    // A table-less reader of the store (as reactors/autoClaim.ts is). An ANALYZE naming no table
    // analyzes the whole database: at two million reports, minutes beside the other rebuilds.
    const reactor: Projection = {
      name: "tableless",
      version: 1,
      handles: ["Counted"],
      tables: [],
      apply: async () => {},
    };
    await prepareProjections(database.db, [reactor], silentLogger);
    expect((await rebuildProjection(database.db, reactor, silentLogger)).status).to.equal("rebuilt");
    expect(await lastAnalyzed()).to.deep.equal(before);
  });

  it("finishes a load with its steps side by side, each in its own transaction, and serves the old generation when a step fails", async function () {
    this.timeout(60_000);
    await prepareProjections(database.db, [recordingInto("finished", 1, ["finished_seen"])], silentLogger);
    await appendCounted(database.db, "a", 0, 20);
    await new ProjectionRunner(database.db, recordingInto("finished", 1, ["finished_seen"]), silentLogger).settle();

    // Each of two steps waits until the other has begun: one after the other, neither would end.
    const begun: Array<() => void> = [];
    const bothBegun = new Promise<void>((resolve) => begun.push(resolve));
    let started = 0;
    const meeting = (tx: Tx) => {
      if (++started === 2) begun[0]!();
      return Promise.race([
        bothBegun,
        new Promise((_, reject) => setTimeout(() => reject(new Error("the other step never began")), 5_000)),
      ]).then(() => tx.query("select count(*) from finished_seen"));
    };
    const sideBySide: Projection = {
      ...recordingInto("finished", 2, ["finished_seen"]),
      finishLoad: [
        { name: "one", run: meeting },
        { name: "two", run: meeting },
        { name: "index", run: (tx) => tx.query("create index finished_by_n on finished_seen (n)") },
      ],
    };
    await prepareProjections(database.db, [sideBySide], silentLogger);
    expect((await rebuildProjection(database.db, sideBySide, silentLogger)).status).to.equal("rebuilt");
    const indexes = await database.db.query(
      "select indexname from pg_indexes where schemaname = 'proj_finished_g2' and tablename = 'finished_seen' order by 1",
    );
    expect(indexes.rows.map((row) => row.indexname)).to.deep.equal(["finished_by_n", "finished_seen_pkey"]);

    const failing: Projection = {
      ...recordingInto("finished", 3, ["finished_seen"]),
      finishLoad: [{ name: "broken", run: (tx) => tx.query("select 1 / 0") }],
    };
    await prepareProjections(database.db, [failing], silentLogger);
    let thrown: unknown = null;
    await rebuildProjection(database.db, failing, silentLogger).catch((error) => (thrown = error));
    expect((thrown as { code?: string } | null)?.code, "division by zero").to.equal("22012");
    expect((await findLive(database.db, "finished"))?.generation, "the generation built before serves on").to.equal(2);
    expect(await contents(database.db, "finished_seen")).to.have.length(20);
  });

  it(
    "after a load by set, builds the indexes it deferred beside the finish steps reading the table, and finishes " +
      "before it applies the events that came meanwhile",
    async function () {
      this.timeout(60_000);
      await appendCounted(database.db, "a", 0, 10);
      const happened: string[] = [];
      // Whether the primary key's index is built while the step asking holds the table open for
      // reading (a finish step counting its rows), seen from another session.
      const keyBuiltBeside = async (tx: Tx) => {
        await tx.query("select count(*) from setloaded_seen");
        const { rows } = await tx.query("select current_schema() as schema");
        for (
          const deadline = Date.now() + 10_000;
          Date.now() < deadline;
          await new Promise((resolve) => setTimeout(resolve, 50))
        ) {
          const built = await database.db.query("select to_regclass($1) is not null as built", [
            `${rows[0].schema}.setloaded_seen_pkey`,
          ]);
          if (built.rows[0].built) return true;
        }
        return false;
      };
      const projection: Projection = {
        name: "setloaded",
        version: 1,
        handles: ["Counted"],
        tables: ["setloaded_seen"],
        async setup(tx) {
          await tx.query(
            "create table setloaded_seen (position bigint primary key, tenant text not null, n integer, loading boolean not null)",
          );
          await tx.query("create index setloaded_by_n on setloaded_seen (n)");
        },
        async loadThrough(tx, through) {
          await deferIndexes(tx, ["setloaded_seen"]);
          await tx.query(
            `insert into setloaded_seen select position, tenant, (data->>'n')::int, true from events e where type = 'Counted' and ${upTo("e")}`,
            throughParams(through),
          );
          const { rows } = await tx.query(
            "select count(*)::int as n from pg_indexes where tablename = 'setloaded_seen' and schemaname = current_schema()",
          );
          happened.push(`load without ${2 - rows[0].n} of 2 indexes`);
          // Appended and committed while the load's transaction is open: past its checkpoint.
          await appendCounted(database.db, "late", 0, 3);
        },
        finishLoad: [
          {
            name: "finish",
            run: async (tx) =>
              happened.push((await keyBuiltBeside(tx)) ? "finish, the key built beside it" : "finish, the key waiting"),
          },
        ],
        async apply(tx, event) {
          await this.applyBatch!(tx, [event]);
        },
        async applyBatch(tx, events, context) {
          happened.push(`batch loading=${context?.loading}`);
          for (const event of events)
            await tx.query("insert into setloaded_seen values ($1, $2, $3, $4)", [
              event.position,
              event.tenant,
              (event.data as { n: number }).n,
              context?.loading ?? false,
            ]);
        },
      };
      expect((await prepareProjections(database.db, [projection], silentLogger)).map((p) => p.name)).to.deep.equal([
        "setloaded",
      ]);
      const result = await rebuildProjection(database.db, projection, silentLogger);
      expect(result).to.include({ status: "rebuilt", loadedAtOnce: 10 });
      expect(happened).to.deep.equal([
        "load without 2 of 2 indexes",
        "finish, the key built beside it",
        "batch loading=false",
      ]);
      const schema = (await findLive(database.db, "setloaded"))!.schemaName;
      const indexes = await database.db.query("select indexname from pg_indexes where schemaname = $1 order by 1", [
        schema,
      ]);
      expect(
        indexes.rows.map((row) => row.indexname),
        "the indexes built again, the record of them gone",
      ).to.deep.equal(["setloaded_by_n", "setloaded_seen_pkey"]);
      const key = await database.db.query("select contype from pg_constraint where conrelid = $1::regclass", [
        `${schema}.setloaded_seen`,
      ]);
      expect(key.rows, "the primary key a constraint again").to.deep.equal([{ contype: "p" }]);
      const rows = await database.db.query(
        "select loading, count(*)::int as n from read.setloaded_seen group by 1 order by 1",
      );
      expect(rows.rows).to.deep.equal([
        { loading: false, n: 3 },
        { loading: true, n: 10 },
      ]);
    },
  );

  it("tells its progress after every batch: events read, unhandled ones included, of about how many", async function () {
    this.timeout(60_000);
    const projection = recordingProjection("paced");
    await prepareProjections(database.db, [projection], silentLogger);
    await appendCounted(database.db, "a", 0, 1000);
    await appendToStream(database.db, {
      tenant: "t1",
      streamId: "other",
      expectedVersion: 0,
      events: [{ type: "NotCounted", data: {} }],
      metadata: { actor: "test" },
    });
    const seen: Array<{ eventsRead: number; lastPosition: number }> = [];
    const result = await rebuildProjection(database.db, projection, silentLogger, {
      batchSize: 300,
      onProgress: (progress) => seen.push(progress),
    });
    expect(result.status).to.equal("rebuilt");
    // 1,001 events (one the projection does not handle, read all the same) in batches of 300.
    expect(seen.map((p) => p.eventsRead)).to.deep.equal([300, 600, 900, 1001]);
    expect(seen.every((p) => p.lastPosition === 1001)).to.equal(true);
  });

  it("shows a building generation's events per second and estimated seconds left in the projections report, a live one's as null", async function () {
    this.timeout(60_000);
    const { projection, runner: live } = await prepareRecording(database.db, "halfway");
    await appendCounted(database.db, "a", 0, 1000);
    await live.settle();
    // A rebuild stopped halfway, as an operator would see it while it runs: a building generation that has read 400 events.
    const building = await withTransaction(database.db, (tx) => createGeneration(tx, { ...projection }, "building"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await withTransaction(database.db, async (tx) => {
      const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
      return applyNextBatch(tx, projection, gen, 400);
    });
    const report = await projectionsReport(database.db);
    const rows = report.projections.filter((p) => p.name === "halfway");
    const liveRow = rows.find((p) => p.state === "live")!;
    const buildingRow = rows.find((p) => p.state === "building")!;
    expect(liveRow).to.include({ eventsPerSecond: null, etaSeconds: null });
    expect(buildingRow).to.include({ appliedEvents: 400, lagEvents: 600 });
    expect(buildingRow.eventsPerSecond).to.be.greaterThan(0);
    expect(buildingRow.etaSeconds).to.equal(Math.round(600 / buildingRow.eventsPerSecond!));
  });
});
