import { createHash } from "node:crypto";
import pg from "pg";
import { REPORT_RUNNER_ROLE } from "./clinicalViews.ts";
import { RESEARCH_RUNNER_ROLE } from "./researchViews.ts";
import { firstHostUrl, hostsOf, urlWithHosts } from "./primaryHosts.ts";
import { withTransaction, type Db } from "./pool.ts";

/**
 * The report role's password is derived from the service's own database credentials, so every
 * process of one deployment arrives at the same one without sharing another secret, and nobody
 * who lacks the service's credentials can compute it.
 */
function runnerPassword(appUrl: string, role: ReportRole): string {
  const url = new URL(firstHostUrl(appUrl));
  const identity = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}@${url.hostname}:${url.port}`;
  // The clinical role's label is the one it always had: its password stays what it was.
  const label = role === REPORT_RUNNER_ROLE ? "dialysis-hub report runner" : `dialysis-hub ${role}`;
  return createHash("sha256").update(`${label}|${identity}`).digest("base64url");
}

/** The login roles of the built-in data sources: `clinical` (dh_report_runner) and `research` (dh_research_runner, contract G.1). */
export type ReportRole = typeof REPORT_RUNNER_ROLE | typeof RESEARCH_RUNNER_ROLE;
const REPORT_ROLES: readonly ReportRole[] = [REPORT_RUNNER_ROLE, RESEARCH_RUNNER_ROLE];

/**
 * The service's database URL, logged in as the report role; or another server's (a streaming
 * replica of it: the role and its password are replicated with everything else).
 */
export function reportRunnerUrl(appUrl: string, serverUrl = appUrl, role: ReportRole = REPORT_RUNNER_ROLE): string {
  const hosts = hostsOf(serverUrl);
  const url = new URL(firstHostUrl(serverUrl));
  url.username = role;
  url.password = runnerPassword(appUrl, role);
  return hosts.length > 1 ? urlWithHosts(url.toString(), hosts) : url.toString();
}

/**
 * What the report role is held to (contract E.5): REPORT_ROLE_CONNECTION_LIMIT, REPORT_WORK_MEM and
 * REPORT_TEMP_FILE_LIMIT. The values come from the service's validated configuration.
 */
export interface ReportRoleLimits {
  /** The role's connections at once, on the whole PostgreSQL server (every process of the deployment); -1: none. */
  connectionLimit: number;
  /** Memory of each sort or hash of a report query before it spills to temporary files (e.g. "8MB"). */
  workMem: string;
  /** Temporary file space one report session may use at once (e.g. "256MB"); "-1": none. */
  tempFileLimit: string;
}

/** A setting of the report role the service's database user could not make, with the database's error code. */
export interface UnsetRoleSetting {
  setting: string;
  code: string | undefined;
}

/**
 * The report role's settings, one statement each. A role belongs to the whole server and its
 * connection limit counts there; the other settings are made for the service's database only
 * (`in database`), so that another database of the same server keeps its own (a test's, another
 * deployment's), and a streaming replica of this one has them too.
 */
function roleSettings(
  reportRole: ReportRole,
  database: string,
  limits: ReportRoleLimits | undefined,
): Array<[setting: string, statement: string]> {
  const role = pg.escapeIdentifier(reportRole);
  const inDatabase = (setting: string, value: string): [string, string] => [
    setting,
    `alter role ${role} in database ${pg.escapeIdentifier(database)} set ${setting} = ${pg.escapeLiteral(value)}`,
  ];
  return [
    // Every tenant's report connections share this role, and a role sees the text of its own
    // sessions' queries in pg_stat_activity: one tenant's report SQL could read another's while it
    // runs. Without activity tracking nothing is shown.
    ["track_activities", `alter role ${role} set track_activities = off`],
    ...(limits
      ? [
          ["connection limit", `alter role ${role} connection limit ${Math.trunc(limits.connectionLimit)}`] as [
            string,
            string,
          ],
          inDatabase("work_mem", limits.workMem),
          inDatabase("temp_file_limit", limits.tempFileLimit),
        ]
      : []),
  ];
}

/**
 * Sets the report role's password and, with `limits`, its limits (idempotent; serialised, as ALTER
 * ROLE conflicts with itself). The password needs a user with CREATEROLE; track_activities and
 * temp_file_limit need a superuser (or, from PostgreSQL 15, `grant set on parameter`). A setting
 * that cannot be made is left as it is and returned, for the caller to tell (operations.md, The
 * report role); the others are made all the same.
 */
export async function prepareReportRunner(
  db: Db,
  appUrl: string,
  limits?: ReportRoleLimits,
): Promise<UnsetRoleSetting[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await prepareReportRunnerOnce(db, appUrl, limits);
    } catch (error) {
      if (!isConcurrentRoleUpdate(error) || attempt >= ROLE_UPDATE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 20 * (1 + Math.random())));
    }
  }
}

/*
 * The advisory lock serialises the services of one database only: the role is the server's, and a
 * service of another database on the same server (a second installation, a test suite's next
 * database) may alter it at the same instant. PostgreSQL then fails one of the two ALTER ROLEs with
 * "tuple concurrently updated" (XX000, an internal error rather than a serialization failure), and
 * the service failed to start; the one that lost tries again on the role as the other left it.
 */
const ROLE_UPDATE_ATTEMPTS = 5;

function isConcurrentRoleUpdate(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "XX000" && /tuple concurrently updated/.test((error as Error).message);
}

function prepareReportRunnerOnce(db: Db, appUrl: string, limits?: ReportRoleLimits): Promise<UnsetRoleSetting[]> {
  return withTransaction(db, async (tx) => {
    await tx.query("select pg_advisory_xact_lock(hashtext('dh_report_runner password'))");
    const unset: UnsetRoleSetting[] = [];
    for (const role of REPORT_ROLES) {
      const { rows } = await tx.query(
        "select format('alter role %I with login password %L', $1::text, $2::text) as sql, current_database() as database",
        [role, runnerPassword(appUrl, role)],
      );
      await tx.query(rows[0].sql);
      for (const [setting, statement] of roleSettings(role, rows[0].database, limits)) {
        await tx.query("savepoint role_setting");
        try {
          await tx.query(statement);
          await tx.query("release savepoint role_setting");
        } catch (error) {
          await tx.query("rollback to savepoint role_setting");
          // Told once: both roles fail a setting for the same reason.
          if (!unset.some((earlier) => earlier.setting === setting))
            unset.push({ setting, code: (error as { code?: string }).code });
        }
      }
    }
    return unset;
  });
}
