import pg from "pg";
import { allProjections } from "../../../src/app/allProjections.ts";
import { createLogger } from "../../../src/logger.ts";
import type { RunningService } from "../../../src/app/service.ts";
import { rawHttpClient, type RawHttpClient } from "../../support/rawHttp.ts";
import { seedTenant, type SeededTenant } from "../../support/seededTenant.ts";
import { startTestService } from "../../support/service.ts";
import { createTestDatabase } from "../../support/database.ts";

export interface HostileService {
  service: RunningService;
  tenant: SeededTenant;
  client: RawHttpClient;
  /** The service's error log lines so far (a fault is logged whole, with its stack). */
  faults: () => string[];
  stop(): Promise<void>;
}

/** The service with a seeded tenant h1, a kept-alive raw client, and its fault log captured. */
export async function startHostileService(env: Record<string, string> = {}, connections = 4): Promise<HostileService> {
  const lines: string[] = [];
  const log = createLogger("error", { write: (line: string) => void lines.push(line) });
  // Fuzzing sends thousands of calls a second with one key: the rate limit is not under test here.
  const databaseUrl = await createTestDatabase(false);
  await withoutWaitingForDisk(databaseUrl);
  const service = await startTestService({
    databaseUrl,
    projections: allProjections,
    log,
    env: { OPEN_API_RATE_PER_SECOND: "1000000", OPEN_API_BURST: "1000000", ...env },
  });
  const tenant = await seedTenant(service, "h1");
  const client = rawHttpClient(service.url!, connections);
  return {
    service,
    tenant,
    client,
    faults: () => lines.slice(),
    async stop() {
      client.close();
      await service.stop();
    },
  };
}

/** Thousands of pushes commit one by one: waiting for each commit to reach the disk only slows the test down. */
async function withoutWaitingForDisk(databaseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`alter database ${new URL(databaseUrl).pathname.slice(1)} set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
}
