import { EventStore } from "../db/eventStore.ts";
import { createPool } from "../db/pool.ts";
import { accessLogProjection } from "../projections/access/accessLog.ts";
import { bulkJobsProjection } from "../projections/bulk/bulkJobs.ts";
import { credentialsProjection } from "../projections/credentials/credentials.ts";
import { itemMappingsProjection } from "../projections/dictionary/itemMappings.ts";
import { standardItemsProjection } from "../projections/dictionary/standardItems.ts";
import { patientsProjection } from "../projections/patients/patients.ts";
import { qualityIndicatorsProjection } from "../projections/quality/indicatorVersions.ts";
import { qualityMonthsProjection } from "../projections/quality/qualityMonths.ts";
import { rebuildProjection } from "../projections/runtime/rebuild.ts";
import { configSchema } from "../src/app/config.ts";
import { startService, type RunningService } from "../src/app/service.ts";
import { generateDemoData } from "../src/demo/demoData.ts";
import { silentLogger } from "../src/logger.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { ADMIN, httpClient } from "../test/support/http.ts";
import { groupReports, insertAsPushed, registerPatients, type Tenant } from "./growth.ts";
import { atStoreHead, until } from "./ingest.ts";

/*
 * The stores of the quality group's month figures (issue #55): the growth group's store (bench/
 * growth.ts: groups of 220 demo patients with five years of monthly panels over eight tenants,
 * each group's reports made by the push's own check and decision and inserted by SQL), at any
 * size. What differs from growth: the measured ward keeps the same patients at every size (group
 * 0's ward A in tenant growth0; every other group's wards are its own, `A-G7`), so that a bigger
 * store means more history beside the ward's month (more wards in its tenant, more tenants), not
 * a bigger month; and only the read models the quality calls and a push need run and are built
 * (`growth` rebuilds every projection; lab_results alone would add most of an hour at 2 M reports).
 */

/** What the service runs for the quality calls: the month's own read model, and what its routes and a push read. */
export const QUALITY_PROJECTIONS = [
  credentialsProjection,
  patientsProjection,
  bulkJobsProjection,
  standardItemsProjection,
  itemMappingsProjection,
  accessLogProjection,
  qualityIndicatorsProjection,
  qualityMonthsProjection,
];

const TENANTS = 8;
export const MEASURED_TENANT = "growth0";
export const MEASURED_WARD = "A";
/** Every group but the first keeps wards of its own. */
const wardOf = (group: number, ward: string) => (group === 0 || ward === "" ? ward : `${ward}-G${group}`);

export interface QualityStore {
  databaseUrl: string;
  tenants: Tenant[];
  reports: number;
  groups: number;
  /** How long the store took to make: patients over HTTP, reports by SQL, quality_months rebuilt. */
  buildSeconds: number;
}

/** The service in this process with the quality read models only; the ledger sealed once a day (not while measured). */
export function startQualityService(databaseUrl: string): Promise<RunningService> {
  const config = configSchema.parse({
    PORT: "0",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "silent",
    ADMIN_TOKEN: ADMIN,
    LEDGER_SEAL_SECONDS: "86400",
  });
  return startService({ config, role: "all", log: silentLogger, projections: QUALITY_PROJECTIONS });
}

/** Reports of one group: five years of the demo's monthly panels. */
export const reportsPerGroup = (now: Date) => generateDemoData(now, 1).labReports.length * 5;

/** A store of about `target` lab reports, its service started on it with every read model at the store's head. */
export async function buildQualityStore(target: number, now: Date, label: string): Promise<QualityStore> {
  const started = performance.now();
  const phase = (what: string) =>
    console.error(`  quality ${label}: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  const databaseUrl = await createTestDatabase(false);
  const groups = Math.max(1, Math.round(target / reportsPerGroup(now)));
  const db = createPool(databaseUrl, { max: 2, applicationName: "bench-quality-store" });
  const service = await startQualityService(databaseUrl);
  let serving = true;
  try {
    const call = httpClient(service.url!);
    const tenants: Tenant[] = [];
    for (let t = 0; t < Math.min(TENANTS, groups); t++) {
      const name = `growth${t}`;
      const client = (
        await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: `LIS of ${name}`, tenant: name } })
      ).body;
      tenants.push({
        name,
        client: { clientId: client.clientId, key: client.key, name: `LIS of ${name}` },
        authorToken: ADMIN,
      });
    }
    phase(`registering ${groups * 220} patients of ${groups} groups`);
    await registerPatients(service.url!, tenants, groups, now, wardOf);
    await until(
      "patients in the read model",
      async () => Number((await db.query("select count(*) from read.patients")).rows[0].count) >= groups * 220 * 0.99,
      300_000,
    );
    await service.stop();
    serving = false;
    phase(`inserting ${groups} groups of reports`);
    const store = new EventStore(db);
    let reports = 0;
    for (let g = 0; g < groups; g++)
      reports += await insertAsPushed(db, store, tenants[g % tenants.length]!, groupReports(g, now));
    phase(`${reports} reports stored; rebuilding quality_months`);
    const rebuildDb = createPool(databaseUrl, { max: 4, applicationName: "bench-quality-rebuild" });
    try {
      const outcome = await rebuildProjection(rebuildDb, qualityMonthsProjection, silentLogger, { batchSize: 5000 });
      if (outcome.status !== "rebuilt") throw new Error(`quality_months not rebuilt: ${JSON.stringify(outcome)}`);
    } finally {
      await rebuildDb.end();
    }
    phase("rebuilt; vacuuming");
    // Measured as a store of years stands day to day: vacuumed and analysed, its writes checkpointed.
    await db.query("vacuum (analyze)");
    await db.query("checkpoint");
    const buildSeconds = (performance.now() - started) / 1000;
    phase("built");
    return { databaseUrl, tenants, reports, groups, buildSeconds };
  } finally {
    if (serving) await service.stop();
    await db.end();
  }
}

/**
 * Starts the service on a built store and waits until every read model stands at its head. Both
 * stores are built before either is served: a service left unused while the other store was built
 * once lost a connection as its first call was measured.
 */
export async function serveQualityStore(store: QualityStore): Promise<RunningService> {
  const service = await startQualityService(store.databaseUrl);
  const db = createPool(store.databaseUrl, { max: 1, applicationName: "bench-quality-watch" });
  try {
    for (const projection of QUALITY_PROJECTIONS)
      await until(`${projection.name} at the store's head`, () => atStoreHead(db, projection.name), 600_000);
    return service;
  } catch (error) {
    await service.stop();
    throw error;
  } finally {
    await db.end();
  }
}
