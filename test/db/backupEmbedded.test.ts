import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import pg from "pg";
import { KEPT_TABLES } from "../../db/backup.ts";
import { sealPending } from "../../db/ledger.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/app/embeddedPostgres.ts";
import { cliOnEmbedded, runNode } from "../support/cliProcess.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI } from "../support/ingestion.ts";
import { holdTable } from "../support/heldTable.ts";
import { freePort } from "../support/privatePostgres.ts";
import { seedTenant } from "../support/seededTenant.ts";
import { startTestService } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { tableDigests } from "../support/tableDigests.ts";

/*
 * Backups as a new user meets them (issue #52, finding 8): `npm install && npm start` runs the
 * embedded PostgreSQL (18) in a fresh data directory, and `npm run cli -- backup` runs with no
 * DATABASE_URL beside it, on a machine whose pg_dump may be older than the server (Debian 12's is
 * 15). The backup must be written all the same, and restore into another fresh data directory to
 * the same events, ledger, credential uses and read tables.
 */

const readTables = allProjections.flatMap((projection) => projection.tables);

async function everything(url: string): Promise<Record<string, Record<string, string>>> {
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return { kept: await tableDigests(db, "public", KEPT_TABLES), read: await tableDigests(db, "read", readTables) };
  } finally {
    await db.end();
  }
}

/** Each credential's last use, as the store holds it. */
async function lastUses(url: string): Promise<Record<string, string>> {
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await db.query<{ id: string; at: Date }>(
      "select credential_id as id, last_used_at as at from credential_uses where tenant = 'north'",
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.at.toISOString()]));
  } finally {
    await db.end();
  }
}

/** Files in `dir` besides the ones named: a backup's temporary file left behind shows here. */
const othersIn = (dir: string, ...names: string[]) => readdirSync(dir).filter((name) => !names.includes(name));

describe("backup and restore on the embedded PostgreSQL of a default install", function () {
  this.timeout(300_000);
  const root = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-embedded-backup-"));
  const source = path.join(root, "source");
  const target = path.join(root, "target");
  const backups = path.join(root, "backups");
  let sourcePort = 0;
  let sourceDb: EmbeddedDatabase | null = null;

  before(async () => {
    sourcePort = await freePort();
    // As `npm start` does with no DATABASE_URL: PostgreSQL in DATA_DIR/pg, made at the first start.
    sourceDb = await startEmbeddedPostgres(path.join(source, "pg"), sourcePort);
    const service = await startTestService({ projections: allProjections, databaseUrl: sourceDb.url });
    try {
      const north = await seedTenant(service, "north");
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
      await projectionsCaughtUp(service.url!);
      expect(await sealPending(service.db)).to.not.be.empty;
    } finally {
      // Its shutdown writes what is still in memory (the access log, the credentials' last uses):
      // from here the store holds still, and the embedded PostgreSQL runs on as under `npm start`.
      await service.stop();
    }
  });
  after(async () => {
    await sourceDb?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("writes a backup with no DATABASE_URL, owner-only and whole, that restores into a fresh data directory to the same events and read tables", async () => {
    const file = path.join(backups, "hub.backup");
    mkdirSync(backups);
    const before = await everything(sourceDb!.url);
    const usesBefore = await lastUses(sourceDb!.url);
    expect(Object.keys(usesBefore), "the laboratory's and the author's uses are on record").to.have.length.of.at.least(
      2,
    );

    const backup = await cliOnEmbedded(source, sourcePort, "backup", file);
    expect(backup.code, backup.stderr).to.equal(0);
    expect(backup.stdout).to.include(`backup written to ${file}`);
    expect((statSync(file).mode & 0o777).toString(8), "the backup holds patients' results: its owner's alone").to.equal(
      "600",
    );
    expect(othersIn(backups, "hub.backup"), "no temporary file is left beside it").to.deep.equal([]);

    // Another fresh data directory, its PostgreSQL started by the restore command itself.
    const targetPort = await freePort();
    const restore = await cliOnEmbedded(target, targetPort, "restore", file);
    expect(restore.code, restore.stderr).to.equal(0);
    const summary = JSON.parse(restore.stdout) as { events: number; ledger: { ok: boolean; blocksChecked: number } };
    expect(summary.ledger.ok, "the restored ledger verifies").to.equal(true);
    expect(summary.ledger.blocksChecked).to.be.greaterThan(0);

    const restored = await startEmbeddedPostgres(path.join(target, "pg"), targetPort);
    try {
      const after = await everything(restored.url);
      expect(after.kept, "events, ledger, bulk job bodies and credential uses").to.deep.equal(before.kept);
      expect(after.read, "every read table, rebuilt by replay").to.deep.equal(before.read);
      // A service on the restored database shows the same last uses (contract E.3 lastUsedAt).
      const resumed = await startTestService({ projections: allProjections, databaseUrl: restored.url });
      try {
        const shown: Record<string, string | null> = {};
        for (const kind of ["authors", "clients"] as const) {
          const answer = await fetch(`${resumed.url}/api/admin/${kind}`, {
            headers: { authorization: `Bearer ${ADMIN}`, "x-service-tenant": "north" },
          });
          for (const entry of (await answer.json()) as Array<{
            authorId?: string;
            clientId?: string;
            lastUsedAt: string | null;
          }>) {
            shown[(entry.authorId ?? entry.clientId)!] = entry.lastUsedAt;
          }
        }
        expect(Object.fromEntries(Object.entries(shown).filter(([, at]) => at !== null))).to.deep.equal(usesBefore);
      } finally {
        await resumed.stop();
      }
    } finally {
      await restored.stop();
    }
  });

  it("refuses a PG_BIN_DIR whose pg_dump is older than the server with a sentence naming the version needed and where to get it", async function () {
    const db = new pg.Pool({ connectionString: sourceDb!.url, max: 1 });
    const major = (await db.query("select current_setting('server_version_num')::int / 10000 as major")).rows[0]
      .major as number;
    await db.end();
    const folders = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql") : [];
    const older = folders.find(
      (version) => Number(version) < major && existsSync(path.join("/usr/lib/postgresql", version, "bin", "pg_dump")),
    );
    if (!older) this.skip();
    rmSync(backups, { recursive: true, force: true });
    mkdirSync(backups);
    const refused = await runNode([SERVER_ENTRY, "backup", path.join(backups, "old.backup")], {
      DATABASE_URL: undefined,
      DATA_DIR: source,
      EMBEDDED_PG_PORT: String(sourcePort),
      PG_BIN_DIR: path.join("/usr/lib/postgresql", older!, "bin"),
    });
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`PG_BIN_DIR holds pg_dump ${older}`);
    expect(refused.stderr).to.include(
      `pg_dump must be of version ${major} or newer; install PostgreSQL ${major}'s client programs (https://www.postgresql.org/download/`,
    );
    expect(othersIn(backups)).to.deep.equal([]);
  });

  it("leaves no file at all when the backup fails part-way, and none when it is stopped with Ctrl-C", async () => {
    rmSync(backups, { recursive: true, force: true });
    mkdirSync(backups);
    // A table the backup must read is held: the backup waits, its file begun.
    const held = await holdTable(sourceDb!.url, "bulk_job_bodies");
    try {
      // 1. The backup's connection is cut (a restart of the server, a network failure).
      const failing = cliOnEmbedded(source, sourcePort, "backup", path.join(backups, "cut.backup"));
      const pid = await held.waiter(failing);
      expect(othersIn(backups), "the backup is being written under a temporary name").to.have.length(1);
      await held.terminate(pid);
      const failed = await failing;
      expect(failed.code, failed.stdout).to.equal(1);
      expect(othersIn(backups), "neither a partial backup nor its temporary file").to.deep.equal([]);

      // 2. The operator presses Ctrl-C.
      const child = spawn(process.execPath, [SERVER_ENTRY, "backup", path.join(backups, "stopped.backup")], {
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL")),
          DATA_DIR: source,
          EMBEDDED_PG_PORT: String(sourcePort),
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      await held.waiter(exited);
      child.kill("SIGINT");
      expect(await exited, stderr).to.equal(130);
      expect(stderr).to.include("backup stopped");
      expect(othersIn(backups)).to.deep.equal([]);
    } finally {
      await held.release();
    }
  });
});
