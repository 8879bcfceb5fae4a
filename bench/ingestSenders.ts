import { forkBench } from "./forkBench.ts";
import { fileURLToPath } from "node:url";
import { httpJson } from "./httpJson.ts";
import { checkCharOf } from "../commands/patients/nationalId.ts";
import { mulberry32 } from "../src/demo/demoData.ts";
import { ZHANG_SAN } from "../test/support/ingestion.ts";

/*
 * The laboratory systems of the ingestion benchmark: 4 concurrent senders, each pushing batches of
 * 100 reports x 20 items one after the other, and a poller timing when sampled batches become
 * visible in reconciliation. `ingest.ts` runs them in a child process (runSenders); the reports
 * are generated deterministically, so the baseline can insert the very same content.
 */

export const SENDERS = 4;
export const REPORTS_PER_BATCH = 100;
const PATIENTS = 200;
export const MATCHED_SHARE = 0.9;
/**
 * Every SAMPLE_EVERY-th batch (counted across senders) is checked for visibility in reconciliation
 * by one poller, oldest sampled batch first, one request at a time: the polling adds at most one
 * client's load to the service however far behind the read model falls.
 */
export const SAMPLE_EVERY = 5;
const VISIBLE_TIMEOUT_MS = 120_000;
export const POLL_MS = 5;

// ---------------------------------------------------------------------------------------------
// The reports: generated deterministically from (run, sender, batch), so the baseline inserts the
// very same content without holding 20,000 reports in memory (the service shares this process's RSS).

/** A valid GB 11643 identity number: region, birth date, sequence, check character. */
function nationalId(region: string, birth: string, sequence: number): string {
  const first17 = `${region}${birth}${String(sequence).padStart(3, "0")}`;
  return first17 + checkCharOf(first17);
}

const SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗";
const GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超兰霞平刚桂华建国玉梅";
const REGIONS = ["110105", "310104", "440305", "510107", "330106", "320102", "370102", "210102"];

interface Person {
  idCard: string;
  name: string;
  hisPatientId: string;
}

function person(i: number, region: string): Person {
  const rand = mulberry32(7919 * (i + 1) + region.charCodeAt(3));
  const year = 1940 + Math.floor(rand() * 50);
  const month = 1 + Math.floor(rand() * 12);
  const day = 1 + Math.floor(rand() * 28);
  const birth = `${year}${String(month).padStart(2, "0")}${String(day).padStart(2, "0")}`;
  const pick = (chars: string) => chars[Math.floor(rand() * chars.length)]!;
  const name = pick(SURNAMES) + pick(GIVEN) + (rand() < 0.6 ? pick(GIVEN) : "");
  return { idCard: nationalId(region, birth, i % 1000), name, hisPatientId: `H-${region}-${i}` };
}

/** Registered dialysis patients: 张三 (P001, registered by ingestionTenant) and 199 more. */
export const registered: Person[] = [
  { ...ZHANG_SAN, hisPatientId: "H-1" },
  ...Array.from({ length: PATIENTS - 1 }, (_, i) => person(i + 1, REGIONS[i % REGIONS.length]!)),
];
/** People with valid identity numbers nobody registered: their reports go to the unmatched queue. */
const strangers: Person[] = Array.from({ length: 50 }, (_, i) => person(i + 1, "420102"));

interface ItemSpec {
  code: string;
  name: string;
  unit: string;
  low: number;
  high: number;
  min: number;
  max: number;
  digits: number;
}

// Twenty items of a monthly dialysis panel; HGB and ALB sent in g/dL to exercise unit conversion.
export const ITEMS: ItemSpec[] = [
  { code: "HGB", name: "血红蛋白", unit: "g/dL", low: 11.5, high: 15, min: 8, max: 13.5, digits: 1 },
  { code: "ALB", name: "白蛋白", unit: "g/dL", low: 3.5, high: 5.2, min: 3, max: 4.6, digits: 1 },
  { code: "K", name: "钾", unit: "mmol/L", low: 3.5, high: 5.3, min: 3.4, max: 6.6, digits: 2 },
  { code: "NA", name: "钠", unit: "mmol/L", low: 137, high: 147, min: 131, max: 146, digits: 0 },
  { code: "CA", name: "钙", unit: "mmol/L", low: 2.11, high: 2.52, min: 1.9, max: 2.7, digits: 2 },
  { code: "P", name: "磷", unit: "mmol/L", low: 0.85, high: 1.51, min: 0.9, max: 2.8, digits: 2 },
  { code: "IPTH", name: "全段甲状旁腺激素", unit: "pg/mL", low: 15, high: 65, min: 80, max: 900, digits: 1 },
  { code: "FER", name: "铁蛋白", unit: "µg/L", low: 30, high: 400, min: 80, max: 900, digits: 1 },
  { code: "TSAT", name: "转铁蛋白饱和度", unit: "%", low: 20, high: 50, min: 12, max: 48, digits: 1 },
  { code: "CRP", name: "C反应蛋白", unit: "mg/L", low: 0, high: 8, min: 0.3, max: 25, digits: 1 },
  { code: "UREA_PRE", name: "透析前尿素", unit: "mmol/L", low: 2.9, high: 8.2, min: 15, max: 35, digits: 1 },
  { code: "UREA_POST", name: "透析后尿素", unit: "mmol/L", low: 2.9, high: 8.2, min: 4, max: 12, digits: 1 },
  { code: "CREA", name: "肌酐", unit: "µmol/L", low: 57, high: 111, min: 500, max: 1300, digits: 0 },
  { code: "ALT", name: "丙氨酸氨基转移酶", unit: "U/L", low: 9, high: 50, min: 5, max: 60, digits: 0 },
  { code: "AST", name: "天冬氨酸氨基转移酶", unit: "U/L", low: 15, high: 40, min: 8, max: 55, digits: 0 },
  { code: "GLU", name: "葡萄糖", unit: "mmol/L", low: 3.9, high: 6.1, min: 4, max: 12, digits: 1 },
  { code: "TC", name: "总胆固醇", unit: "mmol/L", low: 0, high: 5.2, min: 2.8, max: 6.5, digits: 2 },
  { code: "TG", name: "甘油三酯", unit: "mmol/L", low: 0, high: 1.7, min: 0.6, max: 3.5, digits: 2 },
  { code: "PLT", name: "血小板计数", unit: "10^9/L", low: 125, high: 350, min: 90, max: 320, digits: 0 },
  { code: "WBC", name: "白细胞计数", unit: "10^9/L", low: 3.5, high: 9.5, min: 3, max: 11, digits: 2 },
];

function dayAfter(start: string, days: number): string {
  const [y, m, d] = start.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

const two = (n: number) => String(n).padStart(2, "0");

interface Batch {
  day: string;
  reports: Array<Record<string, unknown> & { items: Array<Record<string, unknown>> }>;
  matched: number;
}

/** Batch `batch` of sender `sender` in run `run`: 100 distinct reports of one day. */
export function makeBatch(run: string, sender: number, batch: number, day: string): Batch {
  const rand = mulberry32((run.charCodeAt(0) << 24) ^ (sender << 20) ^ (batch + 1));
  let matched = 0;
  const reports = Array.from({ length: REPORTS_PER_BATCH }, (_, r) => {
    const isMatched = rand() < MATCHED_SHARE;
    if (isMatched) matched++;
    const who = isMatched
      ? registered[Math.floor(rand() * registered.length)]!
      : strangers[Math.floor(rand() * strangers.length)]!;
    const externalId = `LIS-${run}-${sender}-${batch}-${r}`;
    const minute = Math.floor(rand() * 60);
    return {
      externalId,
      reportNo: `R${day.replaceAll("-", "")}${sender}${String(batch).padStart(4, "0")}${String(r).padStart(3, "0")}`,
      patient: { idCard: who.idCard, name: who.name, hisPatientId: who.hisPatientId },
      panelName: "透析月度检查",
      specimen: "SERUM",
      collectedAt: `${day} 07:${two(minute)}:00`,
      reportedAt: `${day} 11:${two(minute)}:${two(r % 60)}`,
      status: "FINAL",
      labName: "Central lab",
      reporter: "检验科 王医生",
      reviewer: "检验科 李主任",
      items: ITEMS.map((spec) => {
        const value = Number((spec.min + rand() * (spec.max - spec.min)).toFixed(spec.digits));
        const flag = value < spec.low ? "L" : value > spec.high ? "H" : "N";
        return {
          itemCode: spec.code,
          itemName: spec.name,
          value,
          unit: spec.unit,
          refLow: spec.low,
          refHigh: spec.high,
          abnormalFlag: flag,
          resultType: "NUMERIC",
        };
      }),
    };
  });
  return { day, reports, matched };
}

/** The day of a batch not sampled; a sampled batch has a day of its own, from 2025 on, that no other batch uses. */
function ordinaryDay(run: string, sender: number, batch: number): string {
  return dayAfter(run === "W" ? "2021-01-01" : "2022-01-01", (batch * SENDERS + sender) % 1000);
}

// ---------------------------------------------------------------------------------------------
// The senders: pushes over HTTP, in a process of their own (forked by ingest.ts) so that the
// service's process holds only the service, as in production.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function getJson(url: string, key: string): Promise<{ status: number; body: any }> {
  const { status, answer } = await httpJson("GET", url, { authorization: `Bearer ${key}` }, null);
  return { status, body: answer };
}

/** A batch ready to send: its body written, and what its answer and its reconciliation must show. */
interface PreparedBatch {
  day: string;
  sampled: boolean;
  body: Buffer;
  matched: number;
  externalIds: string[];
}

function checkAnswer(status: number, body: any, batch: PreparedBatch): void {
  const data = body?.data;
  const problem =
    status !== 200 || body?.code !== 200
      ? `answered ${status} ${JSON.stringify(body).slice(0, 300)}`
      : data.accepted !== REPORTS_PER_BATCH || data.results.length !== REPORTS_PER_BATCH
        ? `accepted ${data.accepted} of ${REPORTS_PER_BATCH}`
        : null;
  if (problem) throw new Error(`push ${problem}`);
  let matched = 0;
  for (const entry of data.results) {
    if (entry.status !== "CREATED") throw new Error(`push answered ${JSON.stringify(entry)} instead of CREATED`);
    if (entry.itemsMapped !== ITEMS.length)
      throw new Error(`push mapped ${entry.itemsMapped} of ${ITEMS.length} items: ${JSON.stringify(entry)}`);
    if (entry.matched) matched++;
  }
  if (matched !== batch.matched) throw new Error(`push matched ${matched} reports, expected ${batch.matched}`);
}

/**
 * Measures, for each sampled batch, the time from its push being answered to all its externalIds
 * being listed by the reconciliation of its day. One poller works through the sampled batches in
 * the order they were answered (the read model applies them in about that order); once the oldest
 * is visible the next is checked at once, so a batch that became visible meanwhile is not delayed.
 */
class VisibilityProbe {
  private readonly queue: Array<{
    day: string;
    externalIds: string[];
    answeredAt: number;
    done: (lag: number) => void;
    fail: (error: unknown) => void;
  }> = [];
  private readonly lags: Array<Promise<number>> = [];
  private running = false;

  constructor(
    private readonly serviceUrl: string,
    private readonly key: string,
  ) {}

  /** Only the day and the ids are kept: holding sampled batches whole would inflate the RSS measured. */
  track(batch: PreparedBatch, answeredAt: number): void {
    const externalIds = [...batch.externalIds].sort();
    const lag = new Promise<number>((done, fail) =>
      this.queue.push({ day: batch.day, externalIds, answeredAt, done, fail }),
    );
    lag.catch(() => {}); // reported by all(); meanwhile not an unhandled rejection
    this.lags.push(lag);
    if (!this.running) void this.work();
  }

  /** Every sampled batch's lag, once all are visible; throws when one never becomes visible. */
  async all(): Promise<number[]> {
    return Promise.all(this.lags);
  }

  private async work(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const head = this.queue[0]!;
        try {
          head.done(await this.visible(head.day, head.externalIds, head.answeredAt));
          this.queue.shift();
        } catch (error) {
          for (const waiting of this.queue.splice(0)) waiting.fail(error);
        }
      }
    } finally {
      // Synchronously after the last look at the queue: a batch tracked from now on starts a new round.
      this.running = false;
    }
  }

  private async visible(day: string, expected: string[], answeredAt: number): Promise<number> {
    const url = `${this.serviceUrl}/open/v1/reconcile/lab?date=${day}`;
    for (;;) {
      const { status, body } = await getJson(url, this.key);
      const now = performance.now();
      if (status !== 200) throw new Error(`reconcile answered ${status} ${JSON.stringify(body).slice(0, 300)}`);
      const ids: string[] = body.data.externalIds;
      if (ids.length === expected.length && [...ids].sort().every((id, i) => id === expected[i]))
        return now - answeredAt;
      if (ids.length > expected.length)
        throw new Error(`reconcile of ${day} lists ${ids.length} reports, expected ${expected.length}`);
      if (now - answeredAt > VISIBLE_TIMEOUT_MS)
        throw new Error(`batch of ${day} not visible in reconciliation after ${VISIBLE_TIMEOUT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
  }
}

export interface PushRun {
  reportsPerSecond: number;
  pushMs: number[];
  lagMs: number[];
  seconds: number;
  /** The day of each batch, [sender][batch], for the baseline to insert the very same reports. */
  days: string[][];
}

export async function pushAll(
  serviceUrl: string,
  key: string,
  run: string,
  batches: number,
  sample: boolean,
): Promise<PushRun> {
  const url = `${serviceUrl}/open/v1/lab/reports`;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const pushMs: number[] = [];
  const probe = new VisibilityProbe(serviceUrl, key);
  // Every body is written before the clock starts: the senders stand for laboratory systems on
  // other machines, and making reports here would take CPU from the service on the same 2 cores.
  const prepared: PreparedBatch[][] = Array.from({ length: SENDERS }, (_, sender) =>
    Array.from({ length: batches }, (_, b) => {
      const global = b * SENDERS + sender;
      const sampled = sample && global % SAMPLE_EVERY === 0;
      const day = sampled ? dayAfter("2025-01-01", global / SAMPLE_EVERY) : ordinaryDay(run, sender, b);
      const batch = makeBatch(run, sender, b, day);
      const externalIds = sampled ? batch.reports.map((report) => report.externalId as string) : [];
      return {
        day,
        sampled,
        body: Buffer.from(JSON.stringify({ reports: batch.reports })),
        matched: batch.matched,
        externalIds,
      };
    }),
  );
  const days = prepared.map((batchesOfSender) => batchesOfSender.map((batch) => batch.day));
  const started = performance.now();
  await Promise.all(
    prepared.map(async (batchesOfSender) => {
      for (const batch of batchesOfSender) {
        const sent = performance.now();
        const { status, answer } = await httpJson("POST", url, headers, batch.body);
        const answeredAt = performance.now();
        pushMs.push(answeredAt - sent);
        checkAnswer(status, answer, batch);
        if (batch.sampled) probe.track(batch, answeredAt);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const lagMs = await probe.all();
  return { reportsPerSecond: (SENDERS * batches * REPORTS_PER_BATCH) / seconds, pushMs, lagMs, seconds, days };
}

// ---------------------------------------------------------------------------------------------
// The child process.

export interface SendersTask {
  serviceUrl: string;
  key: string;
  run: string;
  batches: number;
  sample: boolean;
}

/** Runs the senders in a child process and resolves with what they measured. */
export function runSenders(task: SendersTask): Promise<PushRun> {
  const child = forkBench(fileURLToPath(import.meta.url));
  return new Promise((resolve, reject) => {
    let answer: { ok: true; run: PushRun } | { ok: false; error: string } | null = null;
    child.on("message", (message) => (answer = message as typeof answer));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (answer?.ok) resolve(answer.run);
      else reject(new Error(answer ? answer.error : `the senders' process exited with ${code}`));
    });
    child.send(task);
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", (task: SendersTask) => {
    pushAll(task.serviceUrl, task.key, task.run, task.batches, task.sample).then(
      (run) => process.send!({ ok: true, run }, () => process.exit(0)),
      (error: Error) => process.send!({ ok: false, error: error.stack ?? String(error) }, () => process.exit(1)),
    );
  });
}
