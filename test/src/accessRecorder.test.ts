import { expect } from "chai";
import type { EventStore, StreamAppend } from "../../db/eventStore.ts";
import { AccessRecorder, type AnsweredAccess } from "../../src/access/accessRecorder.ts";
import { silentLogger } from "../../src/logger.ts";

/** An event store that keeps what the recorder appends, when, and can hold a write until released. */
function fakeStore() {
  const writes: Array<{ at: number; records: number }> = [];
  let hold: Promise<void> | null = null;
  let release = () => {};
  const store = {
    db: {},
    async appendMany(_tenant: string, appends: StreamAppend[]) {
      writes.push({ at: performance.now(), records: appends.length });
      await hold;
      return [];
    },
  };
  return {
    store: store as unknown as EventStore,
    writes,
    holdWrites() {
      hold = new Promise((resolve) => (release = () => resolve()));
    },
    releaseWrites() {
      hold = null;
      release();
    },
  };
}

const metrics = { accessRecordsWritten() {}, accessWriteFailed() {}, accessRecordsDropped() {} };
const answered = (n: number): AnsweredAccess => ({
  tenant: "h1",
  recordId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  caller: { kind: "known", who: "operator", credential: "admin", roles: ["admin"] },
  record: {
    at: new Date().toISOString(),
    action: "GET /api/patients/{patientRef}/results",
    patientRefs: ["P001"],
    requestId: `r-${n}`,
    outcome: "shown",
  },
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the access log's recorder (contract E.4)", () => {
  const FLUSH_MS = 150;

  it("writes a batch once its first record has waited ACCESS_LOG_FLUSH_MS, in one append", async () => {
    const fake = fakeStore();
    const recorder = new AccessRecorder(fake.store, silentLogger, metrics, {
      flushAfterMs: FLUSH_MS,
      maxQueueBytes: 1 << 20,
    });
    const first = performance.now();
    for (let i = 0; i < 3; i++) recorder.record(answered(i));
    await pause(FLUSH_MS / 2);
    expect(fake.writes, "not before its time").to.have.length(0);
    await pause(FLUSH_MS);
    expect(fake.writes.map((write) => write.records)).to.deep.equal([3]);
    expect(fake.writes[0]!.at - first).to.be.at.least(FLUSH_MS - 2);
    await recorder.stop(1000);
  });

  it("gives the records that come during a write a batch of their own, written when its first has waited, not right after that write", async () => {
    const fake = fakeStore();
    const recorder = new AccessRecorder(fake.store, silentLogger, metrics, {
      flushAfterMs: FLUSH_MS,
      maxQueueBytes: 1 << 20,
    });
    fake.holdWrites();
    recorder.record(answered(0));
    while (fake.writes.length === 0) await pause(5);
    const duringWrite = performance.now();
    recorder.record(answered(1));
    recorder.record(answered(2));
    await pause(20);
    fake.releaseWrites();
    await pause(FLUSH_MS / 3);
    expect(
      fake.writes.map((write) => write.records),
      "not written on the heels of the write before",
    ).to.deep.equal([1]);
    while (fake.writes.length < 2) await pause(5);
    expect(fake.writes.map((write) => write.records)).to.deep.equal([1, 2]);
    expect(fake.writes[1]!.at - duringWrite).to.be.at.least(FLUSH_MS - 2);
    await recorder.stop(1000);
  });

  it("writes the full batches that gathered during a write at once, and the rest when it is due", async () => {
    const fake = fakeStore();
    const recorder = new AccessRecorder(fake.store, silentLogger, metrics, {
      flushAfterMs: FLUSH_MS,
      maxQueueBytes: 1 << 24,
    });
    fake.holdWrites();
    recorder.record(answered(0));
    while (fake.writes.length === 0) await pause(5);
    for (let i = 1; i <= 501; i++) recorder.record(answered(i));
    fake.releaseWrites();
    await pause(FLUSH_MS / 3);
    expect(fake.writes.map((write) => write.records)).to.deep.equal([1, 500]);
    while (fake.writes.length < 3) await pause(5);
    expect(fake.writes.map((write) => write.records)).to.deep.equal([1, 500, 1]);
    await recorder.stop(1000);
  });

  it("writes everything queued at once when it stops, the records behind a write under way too", async () => {
    const fake = fakeStore();
    const recorder = new AccessRecorder(fake.store, silentLogger, metrics, {
      flushAfterMs: 1000,
      maxQueueBytes: 1 << 24,
    });
    fake.holdWrites();
    for (let i = 0; i < 500; i++) recorder.record(answered(i)); // a full batch: written at once
    while (fake.writes.length === 0) await pause(5);
    recorder.record(answered(500));
    recorder.record(answered(501));
    const started = performance.now();
    const stopping = recorder.stop(5000);
    fake.releaseWrites();
    await stopping;
    expect(fake.writes.map((write) => write.records)).to.deep.equal([500, 2]);
    expect(performance.now() - started, "not waiting for the batch's time").to.be.below(500);
    expect(recorder.queued).to.equal(0);
  });
});
