import { createHmac } from "node:crypto";
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { RaisedAlert } from "../../commands/alerts/events.ts";
import type { Db } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import type { TransactionalJobs } from "../../projections/runtime/projection.ts";
import { alertById, type Alert } from "../../queries/alerts/alerts.ts";
import { ALERT_WEBHOOK_QUEUE } from "../../reactors/criticalResults.ts";
import { checkTarget } from "./webhookTarget.ts";

/*
 * ALERT_WEBHOOK_URL (contract D.7): each new alert is POSTed there as a pg-boss job, sent by the
 * critical-results reactor in the transaction that raises the alert, so there is a job exactly
 * for each alert raised. A delivery that fails (no answer in 10 s, or not 2xx) is tried again with
 * growing pauses, about a day in all. The receiver checks
 *   X-Dialysis-Hub-Signature: sha256=<hex HMAC-SHA256 of "<X-Dialysis-Hub-Timestamp>.<body>">
 * with the shared ALERT_WEBHOOK_SECRET, and refuses an old timestamp (a replayed request).
 */

export const WEBHOOK_EVENT = "critical-result.raised";
/** Contract F.3: a receiver written for critical results alone tells a delta alert by its event name, before reading `alert.kind`. */
export const DELTA_WEBHOOK_EVENT = "delta-alert.raised";
const DELIVERY_TIMEOUT_MS = 10_000;
/** 5 s doubling each time: the last of 14 tries comes about 11 hours after the alert. */
const RETRIES = { retryLimit: 13, retryDelay: 5, retryBackoff: true } as const;

interface WebhookJob {
  tenant: string;
  alert: RaisedAlert;
}

export interface AlertWebhookConfig {
  url: string;
  secret: string;
  /** ALERT_WEBHOOK_ALLOW_PRIVATE: a receiver on this host or a link-local address is meant. */
  allowPrivate?: boolean;
}

export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Starts delivering, and gives the reactor its way to send delivery jobs; `dictionary` names each alert's item as GET /api/alerts does. */
export async function startAlertWebhook(
  boss: PgBoss,
  db: Db,
  config: AlertWebhookConfig,
  log: Logger,
  pollingIntervalSeconds: number,
  dictionary: Dictionary,
): Promise<TransactionalJobs> {
  await boss.createQueue(ALERT_WEBHOOK_QUEUE, { name: ALERT_WEBHOOK_QUEUE, ...RETRIES, expireInSeconds: 60 });
  await boss.work<WebhookJob>(ALERT_WEBHOOK_QUEUE, { pollingIntervalSeconds }, async ([job]) => {
    if (!job) return;
    const alert = await listedAlert(db, dictionary, job.data.tenant, job.data.alert.alertId);
    await deliver(config, alert, job.data.tenant).catch((err: Error) => {
      log.warn({ err, alertId: job.data.alert.alertId }, "alert webhook not delivered; trying again later");
      throw err;
    });
  });
  return {
    async send(tx, queue, data, singletonKey) {
      if (queue !== ALERT_WEBHOOK_QUEUE) return;
      await boss.send(queue, data, {
        ...RETRIES,
        singletonKey,
        db: { executeSql: (text, values) => tx.query(text, values) },
      });
    },
  };
}

/** The alert as GET /api/alerts lists it; the alerts projection may be a moment behind the reactor. */
export async function listedAlert(db: Db, dictionary: Dictionary, tenant: string, alertId: string): Promise<Alert> {
  for (let waited = 0; waited < 2000; waited += 50) {
    const listed = await readAsTenant(db, tenant, (reader) => alertById(reader, dictionary, alertId));
    if (listed) return listed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`alert ${alertId} is not listed yet`);
}

async function deliver(config: AlertWebhookConfig, alert: Alert, tenant: string): Promise<void> {
  const event = alert.kind === "DELTA" ? DELTA_WEBHOOK_EVENT : WEBHOOK_EVENT;
  await postSigned(config, { event, delivery: alert.alertId, body: JSON.stringify({ event, tenant, alert }) });
}

/**
 * POSTs a body signed as the alert webhook signs (contract D.7, G.3), refusing a target that
 * resolves to this machine, link-local or a metadata service unless allowed, following no
 * redirect; throws with the receiver's answer when it is not 2xx.
 */
export async function postSigned(
  config: AlertWebhookConfig,
  { event, delivery, body }: { event: string; delivery: string; body: string },
): Promise<void> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  if (!config.allowPrivate) await checkTarget(config.url);
  const answer = await fetch(config.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-dialysis-hub-event": event,
      "x-dialysis-hub-delivery": delivery,
      "x-dialysis-hub-timestamp": timestamp,
      "x-dialysis-hub-signature": signature(config.secret, timestamp, body),
    },
    body,
    // A redirect would carry the signed body, a patient's name and value, wherever it points.
    redirect: "manual",
    signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
  });
  await answer.body?.cancel();
  if (answer.status >= 300 && answer.status < 400)
    throw new Error(
      `the webhook answered ${answer.status}, a redirect, which is not followed: set the URL to where it points`,
    );
  if (!answer.ok) throw new Error(`the webhook answered ${answer.status}`);
}
