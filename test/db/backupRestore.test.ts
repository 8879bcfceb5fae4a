import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { sealPending } from "../../db/ledger.ts";
import { createPool, type Db } from "../../db/pool.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { cli } from "../support/cliProcess.ts";
import { ingestionTenant, labReport, LI_SI } from "../support/ingestion.ts";
import { holdTable } from "../support/heldTable.ts";
import { startPrivatePostgres } from "../support/privatePostgres.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, until, useTestService } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { tableDigest } from "../support/tableDigests.ts";

/*
 * Backup while pushes run, restore into a fresh database, replay: the command line as an operator
 * runs it, with PostgreSQL's own pg_dump and pg_restore. Tenant north's history is finished before
 * the backup, so each of its read tables must come back row for row; tenant live pushes during
 * the backup, so what it gets back must be whole pushes, including every push answered before
 * the backup began.
 */

const tablesOf = allProjections.flatMap((projection) =>
  projection.tables.map((table) => ({ table, shared: projection.sharedTables?.includes(table) ?? false })),
);

/**
 * Row count and a digest of the ordered rows of each read table: north's rows, or all of a shared
 * table. Transaction ids (xid8) are the cluster's own: a restore gives out new ones in the same
 * order, so they are left out.
 */
async function northDigests(db: Db): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const { table, shared } of tablesOf) {
    const { rows: columns } = await db.query(
      "select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as list from " +
        "information_schema.columns where table_schema = 'read' and table_name = $1 and udt_name <> 'xid8'",
      [table],
    );
    const where = shared ? "" : "where tenant = 'north'";
    const { rows } = await db.query(
      `select count(*) || ':' || md5(coalesce(string_agg(r::text, E'\\n' order by r::text), '')) as digest ` +
        `from (select ${columns[0].list} from read.${table} ${where}) r`,
    );
    digests[table] = rows[0].digest;
  }
  return digests;
}

/** pg_dump must be of the server's major version or newer; this machine may have only older client programs. */
function pgDumpTooOld(serverMajor: number): string | null {
  try {
    const major = Number(/(\d+)/.exec(execFileSync("pg_dump", ["--version"], { encoding: "utf8" }))![1]);
    return major >= serverMajor ? null : `pg_dump ${major} cannot dump a PostgreSQL ${serverMajor} server`;
  } catch {
    return "pg_dump is not installed";
  }
}

describe("backup and restore from the command line", function () {
  this.timeout(180_000);
  const hub = useTestService({ projections: allProjections });
  let north: SeededTenant;
  let lastNorthCall: Date;
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-backup-"));
  let stopServer = async () => {};

  before(async function () {
    const { rows } = await hub.service.db.query("select current_setting('server_version_num')::int / 10000 as major");
    const missing = pgDumpTooOld(rows[0].major);
    if (missing) {
      console.warn(`      skipped: ${missing}`);
      this.skip();
    }
    north = await seedTenant(hub.service, "north");
    // A mixed history: a claim, a dismissal, an update that moves a report, a patient moved to another ward.
    lastNorthCall = new Date();
    for (const [step, answer] of [
      ["claim", await north.asAuthor("POST", "/api/unmatched/lab/NORTH-UNMATCHED/claim", { patientRef: "P001" })],
      [
        "dismiss",
        await north.asAuthor("POST", "/api/unmatched/exam/NORTH-ECG-UNMATCHED/dismiss", {
          reason: "not a dialysis patient",
        }),
      ],
      ["update", await north.push("lab", [labReport("NORTH-DAY", { reportedAt: "2026-03-04 09:00:00" })])],
      ["register", await north.asAuthor("PUT", "/api/patients/P002", { ...LI_SI, ward: "B" })],
    ] as const) {
      if (answer.status >= 300) throw new Error(`${step}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    await projectionsCaughtUp(hub.service.url!);
    expect(await sealPending(hub.service.db)).to.not.be.empty;
  });
  after(async () => {
    await stopServer();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives back every read table of a finished history, whole pushes of a running one, and a ledger that verifies", async () => {
    const live = await ingestionTenant(hub.service, "live");
    const pushes: Array<{ ids: string[]; answeredAt: number }> = [];
    let pushing = true;
    const load = (async () => {
      for (let i = 0; pushing; i++) {
        const ids = Array.from({ length: 20 }, (_, j) => `LIVE-${i}-${j}`);
        const answer = await live.push(
          "lab",
          ids.map((id) => labReport(id)),
        );
        if (answer.status === 200) pushes.push({ ids, answeredAt: Date.now() });
      }
    })();
    await until(async () => pushes.length >= 3, 20_000);
    // North's last uses are written within seconds of its calls (contract E.3 lastUsedAt).
    await until(
      async () =>
        (
          await hub.service.db.query(
            "select max(last_used_at) >= $1 as done from credential_uses where tenant = 'north'",
            [lastNorthCall],
          )
        ).rows[0].done,
      15_000,
      200,
    );
    const file = path.join(dir, "hub.backup");
    const backupStarted = Date.now();
    const backup = await cli(hub.service.databaseUrl, "backup", file);
    expect(backup.code, backup.stderr).to.equal(0);
    expect((statSync(file).mode & 0o777).toString(8), "the backup holds patients' results: its owner's alone").to.equal(
      "600",
    );
    const answeredByBackupEnd = pushes.length;
    await until(async () => pushes.length >= answeredByBackupEnd + 2, 20_000);
    pushing = false;
    await load;
    await projectionsCaughtUp(hub.service.url!);

    // Another PostgreSQL server: its transaction counter is far behind the source's.
    const server = await startPrivatePostgres();
    stopServer = () => server.remove();
    const target = server.url;
    const restore = await cli(target, "restore", file);
    expect(restore.code, restore.stderr).to.equal(0);
    const summary = JSON.parse(restore.stdout) as { events: number; ledger: { ok: boolean; blocksChecked: number } };
    expect(summary.ledger.ok, "the restored ledger verifies").to.equal(true);
    expect(summary.ledger.blocksChecked).to.be.greaterThan(0);

    const restored = createPool(target, { max: 2 });
    try {
      expect(await northDigests(restored)).to.deep.equal(await northDigests(hub.service.db));
      const northUses = "where tenant = 'north'";
      expect(
        await tableDigest(restored, "public", "credential_uses", northUses),
        "each key's and token's last use",
      ).to.equal(await tableDigest(hub.service.db, "public", "credential_uses", northUses));

      const { rows } = await restored.query("select external_id from read.lab_reports where tenant = 'live'");
      const back = new Set(rows.map((row) => row.external_id as string));
      for (const push of pushes) {
        const kept = push.ids.filter((id) => back.has(id)).length;
        expect([0, push.ids.length], "a push comes back whole or not at all").to.include(kept);
        if (push.answeredAt < backupStarted)
          expect(kept, `${push.ids[0]}… was answered before the backup began`).to.equal(push.ids.length);
      }
      expect(back.size, "some pushes answered after the backup began are not in it").to.be.below(pushes.length * 20);

      // The restored store takes new events after the old ones: a service on it projects a new push and seals it.
      const resumed = await startTestService({ projections: allProjections, databaseUrl: target });
      try {
        const again = await ingestionTenant(resumed, "after");
        const answer = await again.push("lab", [labReport("AFTER-RESTORE")]);
        expect(answer.status).to.equal(200);
        await until(
          async () =>
            (
              await restored.query(
                "select 1 from read.lab_results where tenant = 'after' and external_id = 'AFTER-RESTORE'",
              )
            ).rowCount! > 0,
          20_000,
        );
        expect(await sealPending(restored)).to.not.be.empty;
        const verified = await cli(target, "ledger", "verify");
        expect(verified.code, verified.stdout).to.equal(0);
      } finally {
        await resumed.stop();
      }
    } finally {
      await restored.end();
    }
  });

  it("leaves no file when pg_dump fails part-way", async () => {
    const folder = mkdtempSync(path.join(dir, "cut-"));
    const held = await holdTable(hub.service.databaseUrl, "bulk_job_bodies");
    try {
      const failing = cli(hub.service.databaseUrl, "backup", path.join(folder, "cut.backup"));
      await held.terminate(await held.waiter(failing));
      const failed = await failing;
      expect(failed.code).to.equal(1);
      expect(failed.stderr).to.match(/pg_dump.* failed/);
      expect(readdirSync(folder), "neither a partial backup nor its temporary file").to.deep.equal([]);
    } finally {
      await held.release();
    }
  });

  it("refuses a database that is not empty, and says what to do", async () => {
    const restore = await cli(hub.service.databaseUrl, "restore", path.join(dir, "hub.backup"));
    expect(restore.code).to.not.equal(0);
    expect(restore.stderr).to.include("restore needs an empty database");
  });
});
