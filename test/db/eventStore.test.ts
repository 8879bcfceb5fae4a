import { expect } from "chai";
import { appendToStream, appendToStreams, ConcurrencyConflict, readStream } from "../../db/eventStore.ts";
import { useTestDatabase } from "../support/database.ts";

const actor = { actor: "test" };

describe("event store", () => {
  const database = useTestDatabase();

  it("appends many events of one stream in order and numbers them from the expected version", async () => {
    await appendToStream(database.db, {
      tenant: "t1",
      streamId: "s-order",
      expectedVersion: 0,
      events: [1, 2, 3].map((n) => ({ type: "Counted", data: { n } })),
      metadata: actor,
    });
    const result = await appendToStream(database.db, {
      tenant: "t1",
      streamId: "s-order",
      expectedVersion: 3,
      events: [{ type: "Counted", data: { n: 4 } }],
      metadata: actor,
    });
    expect(result.nextVersion).to.equal(4);
    const stream = await readStream(database.db, "t1", "s-order");
    expect(stream.version).to.equal(4);
    expect(stream.events.map((e) => (e.data as { n: number }).n)).to.deep.equal([1, 2, 3, 4]);
    expect(stream.events[0]!.metadata.actor).to.equal("test");
  });

  it("refuses an append with a stale expected version", async () => {
    await appendToStream(database.db, {
      tenant: "t1",
      streamId: "s-stale",
      expectedVersion: 0,
      events: [{ type: "A", data: {} }],
      metadata: actor,
    });
    let error: unknown;
    try {
      await appendToStream(database.db, {
        tenant: "t1",
        streamId: "s-stale",
        expectedVersion: 0,
        events: [{ type: "A", data: {} }],
        metadata: actor,
      });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ConcurrencyConflict);
    expect((await readStream(database.db, "t1", "s-stale")).version).to.equal(1);
  });

  it("lets exactly one of many concurrent writers with the same expected version win", async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        appendToStream(database.db, {
          tenant: "t1",
          streamId: "s-race",
          expectedVersion: 0,
          events: [{ type: "A", data: { i } }],
          metadata: actor,
        }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).to.have.length(1);
    for (const failed of attempts.filter((a) => a.status === "rejected")) {
      expect((failed as PromiseRejectedResult).reason).to.be.instanceOf(ConcurrencyConflict);
    }
  });

  it("keeps streams of different tenants apart", async () => {
    await appendToStream(database.db, {
      tenant: "t1",
      streamId: "shared",
      expectedVersion: 0,
      events: [{ type: "A", data: {} }],
      metadata: actor,
    });
    await appendToStream(database.db, {
      tenant: "t2",
      streamId: "shared",
      expectedVersion: 0,
      events: [{ type: "A", data: {} }],
      metadata: actor,
    });
    expect((await readStream(database.db, "t2", "shared")).version).to.equal(1);
  });

  for (const statement of ["update events set type = 'X'", "delete from events", "truncate events"]) {
    it(`refuses to rewrite history: ${statement.split(" ")[0]}`, async () => {
      await appendToStream(database.db, {
        tenant: "t1",
        streamId: `s-${statement.length}`,
        expectedVersion: 0,
        events: [{ type: "A", data: {} }],
        metadata: actor,
      });
      const before = (await database.db.query("select count(*)::int as n from events")).rows[0].n;
      let message = "";
      await database.db.query(statement).catch((e: Error) => (message = e.message));
      expect(message).to.match(/append-only/);
      expect((await database.db.query("select count(*)::int as n from events")).rows[0].n).to.equal(before);
    });
  }
});

describe("event store: many streams in one statement", () => {
  const database = useTestDatabase();

  it("appends to many streams at once, each from its expected version", async () => {
    await appendToStream(database.db, {
      tenant: "t1",
      streamId: "r-2",
      expectedVersion: 0,
      events: [{ type: "A", data: {} }],
      metadata: { actor: "test" },
    });
    const results = await appendToStreams(
      database.db,
      "t1",
      [
        { streamId: "r-1", expectedVersion: 0, events: [{ type: "A", data: { n: 1 } }] },
        {
          streamId: "r-2",
          expectedVersion: 1,
          events: [
            { type: "A", data: { n: 2 } },
            { type: "B", data: { n: 3 } },
          ],
        },
      ],
      { actor: "test" },
    );
    expect(results.map((r) => r.nextVersion)).to.deep.equal([1, 3]);
    expect((await readStream(database.db, "t1", "r-2")).events.map((e) => e.type)).to.deep.equal(["A", "A", "B"]);
  });

  it("stores nothing of the batch when one stream's expected version is stale", async () => {
    const before = (await database.db.query("select count(*)::int as n from events")).rows[0].n;
    let error: unknown;
    await appendToStreams(
      database.db,
      "t1",
      [
        { streamId: "r-3", expectedVersion: 0, events: [{ type: "A", data: {} }] },
        { streamId: "r-1", expectedVersion: 0, events: [{ type: "A", data: {} }] },
      ],
      { actor: "test" },
    ).catch((e) => (error = e));
    expect(error).to.be.instanceOf(ConcurrencyConflict);
    expect((await database.db.query("select count(*)::int as n from events")).rows[0].n).to.equal(before);
  });
});
