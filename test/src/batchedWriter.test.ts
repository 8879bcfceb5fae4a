import { expect } from "chai";
import { BatchedWriter, type BatchedWriterHooks, type RefusedBecause } from "../../src/batchedWriter.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A database that keeps what is written, and can hold a write until released or refuse every write. */
function fakeDatabase() {
  const written: string[][] = [];
  let hold: Promise<void> | null = null;
  let release = () => {};
  let refusing = false;
  return {
    written,
    async insert(batch: readonly string[]) {
      await hold;
      if (refusing) throw new Error("no space");
      written.push([...batch]);
    },
    holdWrites() {
      hold = new Promise((resolve) => (release = () => resolve()));
    },
    releaseWrites() {
      hold = null;
      release();
    },
    refuse(yes: boolean) {
      refusing = yes;
    },
  };
}

function heard() {
  const heard = { failures: 0, outages: 0, again: 0, lost: 0 };
  const hooks: BatchedWriterHooks<string> = {
    written: () => {},
    writeFailed: (_error, _queued, outageBegins) => {
      heard.failures += 1;
      if (outageBegins) heard.outages += 1;
    },
    writingAgain: () => (heard.again += 1),
    lost: (count) => (heard.lost += count),
  };
  return { heard, hooks };
}

describe("the batched writer (the access log's and the message store's, contracts E.4 and G.5)", () => {
  it("makes the next item wait for room when its queue is full, and takes it once a write made room", async () => {
    const database = fakeDatabase();
    const writer = new BatchedWriter({
      insert: (batch) => database.insert(batch),
      sizeOf: (item: string) => item.length,
      batchSize: 100,
      flushAfterMs: 20,
      maxQueueBytes: 10,
      whenFull: "wait",
      hooks: heard().hooks,
    });
    database.holdWrites();
    await writer.add("aaaaaa");
    let taken = false;
    const second = writer.add("bbbbbb").then(() => (taken = true));
    await pause(60);
    expect(taken, "waits while the first is being written").to.equal(false);
    expect(writer.queued).to.equal(1);
    database.releaseWrites();
    await second;
    expect(writer.queued).to.equal(1);
    await writer.stop(1000);
    expect(database.written).to.deep.equal([["aaaaaa"], ["bbbbbb"]]);
  });

  it("drops an item that does not fit, and one that comes after stop, saying why, without waiting", async () => {
    const database = fakeDatabase();
    const dropped: RefusedBecause[] = [];
    const writer = new BatchedWriter({
      insert: (batch) => database.insert(batch),
      sizeOf: (item: string) => item.length,
      batchSize: 100,
      flushAfterMs: 20,
      maxQueueBytes: 10,
      whenFull: { drop: (because) => dropped.push(because) },
      hooks: heard().hooks,
    });
    await writer.add("aaaaaa");
    await writer.add("bbbbbb");
    expect(dropped).to.deep.equal(["queue_full"]);
    await writer.stop(1000);
    await writer.add("cccccc");
    expect(dropped).to.deep.equal(["queue_full", "shutdown"]);
    expect(database.written).to.deep.equal([["aaaaaa"]]);
  });

  it("tries a refused write again, tells of the outage once, and at stop counts what the grace period left as lost", async () => {
    const database = fakeDatabase();
    const { heard: told, hooks } = heard();
    const writer = new BatchedWriter({
      insert: (batch) => database.insert(batch),
      sizeOf: (item: string) => item.length,
      batchSize: 100,
      flushAfterMs: 10,
      maxQueueBytes: 100,
      whenFull: "wait",
      hooks,
    });
    database.refuse(true);
    await writer.add("a");
    await pause(700); // the first try and two more, 200 and 400 ms apart
    expect(told.failures).to.be.at.least(2);
    expect(told.outages).to.equal(1);
    database.refuse(false);
    await pause(900);
    expect(database.written).to.deep.equal([["a"]]);
    expect(told.again).to.equal(1);
    database.refuse(true);
    await writer.add("b");
    await writer.stop(100);
    expect(told.lost).to.equal(1);
    expect(writer.queued).to.equal(0);
  });
});
