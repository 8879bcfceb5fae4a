import type { RunningService } from "../src/app/service.ts";
import { labReport } from "../test/support/ingestion.ts";
import { BENCH_ADMIN_TOKEN, benchHeaders } from "./benchService.ts";

/*
 * Push-to-visible, as the defence figures measure it: a push of a few reports answered, then the
 * open API's reconciliation polled until it counts them (what a laboratory sees of its reports).
 */

export const PUSHES_PER_ROUND = 80;
export const REPORTS_PER_PUSH = 5;
export const POLL_MS = 5;

export type Push = (reports: unknown[]) => Promise<void>;
export type Listed = (day: string) => Promise<number>;

/** The open API's sender of the bench tenant (or `tenant`): a push, and the count reconciliation lists for a day. */
export async function benchSender(
  service: Pick<RunningService, "url">,
  tenant = "bench",
  adminToken = BENCH_ADMIN_TOKEN,
): Promise<{ push: Push; listed: Listed }> {
  const headers = { ...benchHeaders, authorization: `Bearer ${adminToken}` };
  const created = await fetch(`${service.url}/api/admin/clients`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "bench lab", tenant }),
  });
  const { key } = (await created.json()) as { key: string };
  const open = { authorization: `Bearer ${key}`, "content-type": "application/json", "x-service-tenant": tenant };
  // A service in another process learns of a new key within moments, not at once.
  for (let tries = 0; (await fetch(`${service.url}/open/v1/ping`, { headers: open })).status !== 200; tries++) {
    if (tries > 300) throw new Error("the new client key was not accepted within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    push: async (reports) => {
      const answer = await fetch(`${service.url}/open/v1/lab/reports`, {
        method: "POST",
        headers: open,
        body: JSON.stringify({ reports }),
      });
      if (answer.status !== 200) throw new Error(`push answered ${answer.status}: ${await answer.text()}`);
    },
    listed: async (day) => {
      const answer = await fetch(`${service.url}/open/v1/reconcile/lab?date=${day}`, { headers: open });
      return ((await answer.json()) as { data: { labReportCount: number } }).data.labReportCount;
    },
  };
}

/** The nth day from 2026-02-01: each round counts a day of its own. */
export function dayOf(n: number): string {
  return new Date(Date.UTC(2026, 1, 1 + n)).toISOString().slice(0, 10);
}

/** Pushes one after another; for each, the milliseconds from its answer until reconciliation counts it. */
export async function lagsOfRound(push: Push, listed: Listed, prefix: string, day: string): Promise<number[]> {
  const lags: number[] = [];
  for (let p = 0; p < PUSHES_PER_ROUND; p++) {
    const reports = Array.from({ length: REPORTS_PER_PUSH }, (_, r) =>
      labReport(`${prefix}-${p}-${r}`, { collectedAt: `${day} 07:30:00`, reportedAt: `${day} 11:00:00` }),
    );
    await push(reports);
    const answeredAt = performance.now();
    const expected = (p + 1) * REPORTS_PER_PUSH;
    while ((await listed(day)) < expected) {
      if (performance.now() - answeredAt > 120_000) throw new Error(`push ${prefix}-${p} not visible within 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    lags.push(performance.now() - answeredAt);
  }
  return lags;
}
