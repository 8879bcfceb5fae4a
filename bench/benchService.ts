import { allProjections } from "../src/app/allProjections.ts";
import { configSchema } from "../src/app/config.ts";
import { ADEQUACY_REPORT_ID } from "../src/demo/demoReports.ts";
import { loadDemo } from "../src/demo/loadDemo.ts";
import { silentLogger } from "../src/logger.ts";
import { startService, type RunningService } from "../src/app/service.ts";
import { createTestDatabase } from "../test/support/database.ts";

export const BENCH_ADMIN_TOKEN = "bench-admin-token-0123456789";
const ADMIN_TOKEN = BENCH_ADMIN_TOKEN;

/** The whole service in this process on a database of its own, as production runs it with --role all. */
export async function startBenchService(
  env: Record<string, string> = {},
  options: { recordAccess?: boolean } = {},
): Promise<RunningService> {
  const config = configSchema.parse({
    PORT: "0",
    DATABASE_URL: await createTestDatabase(false),
    LOG_LEVEL: "silent",
    ADMIN_TOKEN,
    ...env,
  });
  return startService({ config, role: "all", log: silentLogger, projections: allProjections, ...options });
}

/** The bench service with the demo loaded (its tenant, patients, results and two reports). */
export async function startDemoBenchService(): Promise<RunningService> {
  const service = await startBenchService();
  const demo = await loadDemo(service.url!, ADMIN_TOKEN).catch(() => null);
  if (!demo?.reports.includes(ADEQUACY_REPORT_ID)) {
    await service.stop();
    throw new Error("the demo did not load");
  }
  return service;
}

/** Headers of the bench tenant's calls, as its administrator. */
export const benchHeaders = {
  authorization: `Bearer ${ADMIN_TOKEN}`,
  "content-type": "application/json",
  "x-service-tenant": "bench",
};

/** Saves the spec as a draft of the bench tenant (or another) and publishes it as a dynamic version. */
export async function publishBenchReport(
  service: Pick<RunningService, "url">,
  reportId: string,
  spec: unknown,
  tenant = "bench",
): Promise<void> {
  const headers = { ...benchHeaders, "x-service-tenant": tenant };
  const draft = await fetch(`${service.url}/api/reports/${reportId}/draft`, {
    method: "PUT",
    headers,
    body: JSON.stringify({ spec }),
  });
  if (draft.status !== 200) throw new Error(`draft not saved: ${await draft.text()}`);
  const published = await fetch(`${service.url}/api/reports/${reportId}/publish`, {
    method: "POST",
    headers,
    body: JSON.stringify({ mode: "dynamic" }),
  });
  if (published.status !== 201) throw new Error(`report not published: ${await published.text()}`);
}
