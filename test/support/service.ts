import type { Logger } from "pino";
import type { Projection } from "../../projections/runtime/projection.ts";
import { configSchema } from "../../src/app/config.ts";
import { silentLogger } from "../../src/logger.ts";
import { startService, type Role, type RunningService } from "../../src/app/service.ts";
import { createTestDatabase } from "./database.ts";

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

export interface TestServiceOptions {
  databaseUrl?: string;
  role?: Role;
  projections?: readonly Projection[];
  safetyNetMs?: number;
  env?: Record<string, string>;
  log?: Logger;
}

/** The real service on a port of its own, over a database of its own (or a shared one). */
export async function startTestService(options: TestServiceOptions = {}): Promise<RunningService> {
  const config = configSchema.parse({
    PORT: "0",
    DATABASE_URL: options.databaseUrl ?? (await createTestDatabase(false)),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: "silent",
    PROJECTION_SAFETY_NET_MS: String(options.safetyNetMs ?? 1000),
    OPEN_API_RATE_PER_SECOND: "1000",
    OPEN_API_BURST: "1000",
    ...options.env,
  });
  return startService({
    config,
    role: options.role ?? "all",
    log: options.log ?? silentLogger,
    projections: options.projections ?? [],
    env: options.env ?? {},
  });
}

/**
 * A suite's fixture: `start` runs in the suite's `before` and fills the object returned here; the
 * `after` stops its service. Tests and later hooks read it (`hub.service.url`) once `before` ran.
 */
export function useService<T extends { service: { stop(): Promise<void> } }>(start: () => Promise<T>): T {
  const started = {} as T;
  before(async () => {
    Object.assign(started, await start());
  });
  after(() => started.service?.stop());
  return started;
}

/** A suite's own service (startTestService with `options`), started before its tests and stopped after them. */
export function useTestService(options: TestServiceOptions = {}): { service: RunningService } {
  return useService(async () => ({ service: await startTestService(options) }));
}

export async function until<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
