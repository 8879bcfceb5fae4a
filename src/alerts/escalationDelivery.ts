import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { Transporter } from "nodemailer";
import {
  ALERT_ESCALATION_ACTOR,
  recordAttemptsDecider,
  targetsDue,
  type AttemptResult,
  type DueTarget,
} from "../../commands/alerts/escalateAlert.ts";
import { evolveCriticalResults, initialCriticalResultsState } from "../../commands/alerts/criticalResults.ts";
import { criticalResultsStreams, type CriticalResultEvent } from "../../commands/alerts/events.ts";
import { handleCommandInTransaction } from "../../commands/kit/handleCommand.ts";
import { readStream } from "../../db/eventStore.ts";
import { withTransaction, type Db, type Tx } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import type { TransactionalJobs } from "../../projections/runtime/projection.ts";
import type { Alert } from "../../queries/alerts/alerts.ts";
import { ALERT_ESCALATION_QUEUE, escalationJobKey, type EscalationJob } from "../../reactors/alertEscalation.ts";
import { listedAlert, postSigned } from "./alertWebhook.ts";
import { escalationMail, smtpReason } from "./escalationMail.ts";

/*
 * Contract G.3: sends each due step of a critical alert's escalation, once, across every worker
 * process, restart and kill -9. A step's job (one per alert, step and attempt, sent with what it
 * follows from) is worked under a session advisory lock on the alert and step: two processes never
 * send the same step at once, and a process that dies lets its lock go with its connection. What is
 * recorded decides what is sent (commands/alerts/escalateAlert.ts); a failed attempt records
 * `retrying` and sends the next attempt's job in the same transaction, the last one `failed`.
 *
 * A job left active by a process that died is failed by the others (releaseOrphans) as soon as
 * nobody holds its lock, so pg-boss runs it again within seconds instead of at its expiry.
 */

export const ESCALATION_WEBHOOK_EVENT = "critical-result.escalated";

export interface EscalationDeliveryConfig {
  /** Null: SMTP_URL is not set, and a mail step fails saying so. */
  mailer: Transporter | null;
  from: string | null;
  publicUrl: string | undefined;
  /** ALERT_WEBHOOK_SECRET; null: a webhook step fails saying so. */
  webhookSecret: string | null;
  allowPrivate: boolean;
  /** The pauses before each retry, in seconds: attempts are one more than these. */
  retrySeconds: readonly number[];
  pollingIntervalSeconds: number;
}

/** pg-boss's own retries are for a run that died or lost the database, not for a refused mail (recorded instead). */
const QUEUE = { retryLimit: 50, retryDelay: 2, retryBackoff: false, expireInSeconds: 300 } as const;
/** Steps worked side by side by one process: each holds two of the pool's connections at most. */
const STEPS_AT_ONCE = 3;
/** A job active this long whose lock nobody holds was lost with its process. */
const ORPHAN_AFTER_SECONDS = 5;

const lockKey = (job: EscalationJob) => `alert-escalation/${job.tenant}/${job.alertId}/${job.step}`;

export class EscalationDelivery {
  private sweep: NodeJS.Timeout | null = null;

  constructor(
    private readonly boss: PgBoss,
    private readonly db: Db,
    private readonly dictionary: Dictionary,
    private readonly config: EscalationDeliveryConfig,
    private readonly log: Logger,
  ) {}

  /** Starts working the queue; the jobs the reactor sends go through `jobs`. */
  async start(): Promise<TransactionalJobs> {
    await ensureQueue(this.boss);
    const worker = await this.boss.work<EscalationJob>(
      ALERT_ESCALATION_QUEUE,
      { pollingIntervalSeconds: this.config.pollingIntervalSeconds, batchSize: STEPS_AT_ONCE },
      async (jobs) => {
        // pg-boss fetches once a polling interval: a burst of critical values (a laboratory's
        // backlog arriving) would be mailed a few a second. Found work fetches again at once, and a
        // few steps go side by side, each under its own lock, each failing alone.
        if (jobs.length > 0) this.boss.notifyWorker(worker);
        const outcomes = await Promise.allSettled(jobs.map((job) => this.run(job.data)));
        for (const [i, outcome] of outcomes.entries())
          if (outcome.status === "rejected")
            await this.boss.fail(ALERT_ESCALATION_QUEUE, jobs[i]!.id, { message: String(outcome.reason) });
      },
    );
    this.sweep = setInterval(() => void this.releaseOrphans().catch(() => {}), 2000);
    this.sweep.unref();
    return {
      send: async (tx, queue, data, singletonKey, options) => {
        if (queue === ALERT_ESCALATION_QUEUE) await sendJob(this.boss, tx, data, singletonKey, options?.startAfter);
      },
    };
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = null;
  }

  /** One attempt at one step: under the step's lock, what is due is sent and recorded. */
  async run(job: EscalationJob): Promise<void> {
    const session = await this.db.connect();
    let broken = false;
    try {
      const { rows } = await session.query<{ locked: boolean }>(
        "select pg_try_advisory_lock(hashtextextended($1, 0)) as locked",
        [lockKey(job)],
      );
      if (!rows[0]!.locked) return; // another process is at this step now: it records what it sends
      try {
        await this.attempt(job);
      } finally {
        await session
          .query("select pg_advisory_unlock(hashtextextended($1, 0))", [lockKey(job)])
          .catch(() => (broken = true));
      }
    } finally {
      session.release(broken);
    }
  }

  private async attempt(job: EscalationJob): Promise<void> {
    const streamId = criticalResultsStreams.id(job.externalId);
    const stream = await readStream<CriticalResultEvent>(this.db, job.tenant, streamId);
    const state = stream.events.reduce(evolveCriticalResults, initialCriticalResultsState());
    const due = targetsDue(state, job.alertId, job.step, job.attempt);
    if (due.length === 0) return;
    const alert = await listedAlert(this.db, this.dictionary, job.tenant, job.alertId);
    const results: AttemptResult[] = [];
    for (const target of due) results.push({ ...target, failure: await this.deliver(target, alert, job) });
    const pause = this.config.retrySeconds[job.attempt - 1];
    const nextAttemptAt = pause === undefined ? null : new Date(Date.now() + pause * 1000);
    await withTransaction(this.db, async (tx) => {
      const { events } = await handleCommandInTransaction(
        tx,
        { tenant: job.tenant, streamId },
        recordAttemptsDecider,
        { alertId: job.alertId, step: job.step, attempt: job.attempt, results, nextAttemptAt },
        { actor: ALERT_ESCALATION_ACTOR },
      );
      if (
        nextAttemptAt &&
        events.some((event) => event.type === "AlertNotified" && event.data.outcome === "retrying")
      ) {
        const next = { ...job, attempt: job.attempt + 1 };
        await sendJob(this.boss, tx, next, escalationJobKey(next), nextAttemptAt);
      }
    });
  }

  /** Sends one target's notification; null when it was taken, else why not. */
  private async deliver({ notify }: DueTarget, alert: Alert, job: EscalationJob): Promise<string | null> {
    const where = { alertId: job.alertId, step: job.step, attempt: job.attempt, channel: notify.channel };
    if (notify.channel === "email") {
      const { mailer, from } = this.config;
      if (!mailer || !from) return "SMTP_URL and MAIL_FROM are not set: the service cannot send mail";
      const mail = escalationMail(alert, job.step, this.config.publicUrl);
      try {
        await mailer.sendMail({ from, to: notify.to, ...mail });
        return null;
      } catch (error) {
        const reason = smtpReason(error);
        this.log.warn({ ...where, reason }, "escalation mail not taken by the SMTP server");
        return reason;
      }
    }
    if (!this.config.webhookSecret) return "ALERT_WEBHOOK_SECRET is not set: the service cannot sign the webhook";
    try {
      await postSigned(
        { url: notify.url, secret: this.config.webhookSecret, allowPrivate: this.config.allowPrivate },
        {
          event: ESCALATION_WEBHOOK_EVENT,
          delivery: `${job.alertId}.${job.step}`,
          body: JSON.stringify({ event: ESCALATION_WEBHOOK_EVENT, tenant: job.tenant, step: job.step, alert }),
        },
      );
      return null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.warn({ ...where, reason }, "escalation webhook not delivered");
      return reason;
    }
  }

  /** Fails the active jobs whose process died (nobody holds their step's lock): pg-boss runs them again. */
  async releaseOrphans(): Promise<number> {
    const { rows } = await this.db.query<{ id: string; data: EscalationJob }>(
      `select id, data from pgboss.job where name = $1 and state = 'active' and started_on < now() - make_interval(secs => $2)`,
      [ALERT_ESCALATION_QUEUE, ORPHAN_AFTER_SECONDS],
    );
    const orphans: string[] = [];
    for (const { id, data } of rows) {
      const { rows: free } = await this.db.query<{ free: boolean }>(
        // Taken and given back in one statement: only whether someone holds it matters.
        "select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as free",
        [lockKey(data)],
      );
      if (free[0]!.free) orphans.push(id);
    }
    if (orphans.length > 0) {
      await this.boss.fail(ALERT_ESCALATION_QUEUE, orphans);
      this.log.info({ jobs: orphans.length }, "escalation jobs left active by a process that ended were released");
    }
    return orphans.length;
  }
}

async function sendJob(boss: PgBoss, tx: Tx, data: object, singletonKey: string, startAfter?: Date): Promise<void> {
  await boss.send(ALERT_ESCALATION_QUEUE, data, {
    ...QUEUE,
    singletonKey,
    ...(startAfter ? { startAfter } : {}),
    db: { executeSql: (text, values) => tx.query(text, values) },
  });
}

/** Worker processes started together race to create the queue: the one that loses finds it made. */
async function ensureQueue(boss: PgBoss): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(ALERT_ESCALATION_QUEUE)) return;
    try {
      return await boss.createQueue(ALERT_ESCALATION_QUEUE, { name: ALERT_ESCALATION_QUEUE, ...QUEUE });
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 50 * (1 + Math.random())));
    }
  }
}
