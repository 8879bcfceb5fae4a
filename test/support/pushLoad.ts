import { labReport } from "./ingestion.ts";

/*
 * Several laboratory systems pushing at once, each its own stream of new reports and new versions
 * of reports it sent before. Every push carries a version number in each report (`reportNo`
 * R-<id>-v<n>, and the HGB value), so what is stored can be compared with what was answered.
 */

export interface PushLoadOptions {
  /** Base URLs of API processes; sender i starts on target i and moves to the next on every push. */
  targets: string[];
  key: string;
  senders: number;
  reportsPerPush: number;
  /** The reportedAt day of every report, so one reconciliation call lists them all. */
  day: string;
  /** Distinguishes the externalIds of several loads on one tenant. */
  prefix: string;
  /** Share of each push that re-sends (new version of) a report this sender pushed before. */
  updateShare?: number;
  /** A push not answered within this is recorded as a hang. */
  requestTimeoutMs?: number;
}

export type PushAnswer = number | "transport" | "timeout";

/** The part of a 200 answer that tells what became of each report. */
interface PushResults {
  data: { results: Array<{ externalId: string; status: string }> };
}

export interface PushRecord {
  sender: number;
  target: string;
  startedAt: number;
  ms: number;
  answer: PushAnswer;
  /** The answer's body, for assertions on its shape. */
  body?: unknown;
  /** externalId → version of the reports in this push. */
  versions: Map<string, number>;
}

export interface ReportVersions {
  /** The highest version a push answered CREATED, UPDATED or UNCHANGED for (0: none). */
  acknowledged: number;
  /** The highest version ever sent: one whose push went unanswered may be stored too. */
  sent: number;
}

export class PushLoad {
  readonly pushes: PushRecord[] = [];
  readonly reports = new Map<string, ReportVersions>();
  /** Entries of 200 answers that were neither CREATED, UPDATED nor UNCHANGED (should stay empty). */
  readonly unexpectedEntries: unknown[] = [];
  private stopped = false;
  private running: Promise<void>[] = [];
  private readonly counters: number[];

  constructor(private readonly options: PushLoadOptions) {
    this.counters = Array.from({ length: options.senders }, () => 0);
  }

  /** Starts the senders (again, after `stop`), pushing to these API processes when given. */
  start(targets?: string[]): this {
    if (targets) this.options.targets = targets;
    this.stopped = false;
    this.running = Array.from({ length: this.options.senders }, (_, sender) => this.send(sender));
    return this;
  }

  /** Lets every push in flight finish (or fail) and sends no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  answered(status: number): PushRecord[] {
    return this.pushes.filter((push) => push.answer === status);
  }

  /** Reports some push answered as stored. */
  acknowledgedIds(): string[] {
    return [...this.reports].filter(([, v]) => v.acknowledged > 0).map(([id]) => id);
  }

  /** Pushes whose outcome the sender never learnt: they may or may not be stored. */
  unanswered(): PushRecord[] {
    return this.pushes.filter((push) => push.answer !== 200);
  }

  async waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`push load: ${what} not reached within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  report(externalId: string, version: number): unknown {
    return labReport(externalId, {
      reportNo: `R-${externalId}-v${version}`,
      reportedAt: `${this.options.day} 11:00:00`,
      items: [
        { itemCode: "HGB", itemName: "血红蛋白", value: 100 + version, unit: "g/L" },
        { itemCode: "K", itemName: "钾", value: 4.5, unit: "mmol/L" },
      ],
    });
  }

  private nextBatch(sender: number): Map<string, number> {
    const own = [...this.reports.keys()].filter((id) => id.startsWith(`${this.options.prefix}-${sender}-`));
    const updates = Math.min(own.length, Math.floor(this.options.reportsPerPush * (this.options.updateShare ?? 0.2)));
    const versions = new Map<string, number>();
    // New versions of this sender's own earlier reports: its pushes go one after another, so the
    // versions of one report are sent in order and the stored one can be told from the answers.
    while (versions.size < updates) {
      const id = own[Math.floor(Math.random() * own.length)]!;
      versions.set(id, this.reports.get(id)!.sent + 1);
    }
    while (versions.size < this.options.reportsPerPush)
      versions.set(`${this.options.prefix}-${sender}-${this.counters[sender]!++}`, 1);
    for (const [id, version] of versions) {
      const known = this.reports.get(id) ?? { acknowledged: 0, sent: 0 };
      known.sent = Math.max(known.sent, version);
      this.reports.set(id, known);
    }
    return versions;
  }

  private async send(sender: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const target = this.options.targets[(sender + n) % this.options.targets.length]!;
      const record = await this.post(sender, target, this.nextBatch(sender));
      this.pushes.push(record);
      // A sender that got no good answer backs off a little, as a real one would.
      if (record.answer !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends an earlier push's reports again to `target`: what a sender does after getting no answer. */
  async resend(push: PushRecord, target: string): Promise<PushRecord & { results: PushResults["data"]["results"] }> {
    const record = await this.post(push.sender, target, push.versions);
    return { ...record, results: record.answer === 200 ? (record.body as PushResults).data.results : [] };
  }

  private async post(sender: number, target: string, versions: Map<string, number>): Promise<PushRecord> {
    const body = JSON.stringify({ reports: [...versions].map(([id, version]) => this.report(id, version)) });
    const record: PushRecord = { sender, target, startedAt: Date.now(), ms: 0, answer: "transport", versions };
    try {
      const response = await fetch(`${target}/open/v1/lab/reports`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.options.key}`, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000),
      });
      record.body = await response.json();
      record.answer = response.status;
      if (response.status === 200) this.acknowledge(versions, record.body as PushResults);
    } catch (error) {
      record.answer = (error as Error).name === "TimeoutError" ? "timeout" : "transport";
    }
    record.ms = Date.now() - record.startedAt;
    return record;
  }

  private acknowledge(versions: Map<string, number>, answer: PushResults): void {
    for (const entry of answer.data.results) {
      if (!["CREATED", "UPDATED", "UNCHANGED"].includes(entry.status)) {
        this.unexpectedEntries.push(entry);
        continue;
      }
      const known = this.reports.get(entry.externalId)!;
      known.acknowledged = Math.max(known.acknowledged, versions.get(entry.externalId)!);
    }
  }
}
