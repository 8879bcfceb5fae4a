import { createHash } from "node:crypto";
import { REPORT_RUNNER_ROLE } from "./clinicalViews.ts";
import { firstHostUrl, hostsOf, urlWithHosts } from "./primaryHosts.ts";
import { withTransaction, type Db } from "./pool.ts";

/**
 * The report role's password is derived from the service's own database credentials, so every
 * process of one deployment arrives at the same one without sharing another secret, and nobody
 * who lacks the service's credentials can compute it.
 */
function runnerPassword(appUrl: string): string {
  const url = new URL(firstHostUrl(appUrl));
  const identity = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}@${url.hostname}:${url.port}`;
  return createHash("sha256").update(`dialysis-hub report runner|${identity}`).digest("base64url");
}

/**
 * The service's database URL, logged in as the report role; or another server's (a streaming
 * replica of it: the role and its password are replicated with everything else).
 */
export function reportRunnerUrl(appUrl: string, serverUrl = appUrl): string {
  const hosts = hostsOf(serverUrl);
  const url = new URL(firstHostUrl(serverUrl));
  url.username = REPORT_RUNNER_ROLE;
  url.password = runnerPassword(appUrl);
  return hosts.length > 1 ? urlWithHosts(url.toString(), hosts) : url.toString();
}

/** Sets the report role's password (idempotent; serialised, as ALTER ROLE conflicts with itself). */
export async function prepareReportRunner(db: Db, appUrl: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    await tx.query("select pg_advisory_xact_lock(hashtext('dh_report_runner password'))");
    const { rows } = await tx.query("select format('alter role %I with login password %L', $1::text, $2::text) as sql", [REPORT_RUNNER_ROLE, runnerPassword(appUrl)]);
    await tx.query(rows[0].sql);
    // Every tenant's report connections share this role, and a role sees the text of its own
    // sessions' queries in pg_stat_activity: one tenant's report SQL could read another's while it
    // runs. Without activity tracking nothing is shown. Only a superuser may turn it off; without
    // one the text stays visible (operations.md).
    await tx.query("savepoint track_activities");
    try {
      await tx.query(`alter role ${REPORT_RUNNER_ROLE} set track_activities = off`);
    } catch {
      await tx.query("rollback to savepoint track_activities");
    }
  });
}
