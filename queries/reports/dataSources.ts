import pg from "pg";
import { CONNECT_TIMEOUT_MS, deadPeerLimits, surviveLostConnections, type Db } from "../../db/pool.ts";
import { connectionToPrimary } from "../../db/primaryHosts.ts";
import type { Wards } from "../../db/wardScope.ts";

/**
 * Whom a report query answers (contract G.1): the tenant, and the wards of the caller (null: every
 * ward). The clinical views keep to both; a configured data source is the deployment's own and is
 * read as its configured user.
 */
export interface ReportScope {
  tenant: string;
  wards: Wards;
}

/**
 * Where report SQL runs. `clinical` is the service's own database, reached as the report role
 * (db/reportRunner.ts) through the tenant-filtered views of schema `clinical`; others are configured
 * PostgreSQL databases (DATASOURCE_<NAME>_URL) read as their configured user. Each has its own
 * small pool, which also bounds how many report queries run at once.
 */
export interface DataSource {
  name: string;
  pool: pg.Pool;
  /** Binds a checked-out connection to the tenant and wards it is about to serve. */
  bind(client: pg.PoolClient, scope: ReportScope): Promise<void>;
  /** BEGIN READ ONLY and the report transaction's settings, one statement each (see beginReadOnly). */
  begin(timeoutMs: number, timeZone: string): string[];
}

export interface DataSourceSettings {
  /** The service's own pool: it records which tenant each report connection serves. */
  serviceDb: Db;
  /** The service's database, logged in as the report role. */
  clinicalUrl: string;
  /** The same server, logged in as the research role (contract G.1); unset: no research source. */
  researchUrl?: string;
  others: Record<string, string>;
  poolSize: number;
  /**
   * How long a query waits for a connection of a pool (all in use, or a new one being opened)
   * before it fails; unset: CONNECT_TIMEOUT_MS.
   */
  connectionTimeoutMs?: number;
  /** Client-side bound of a report statement (see deadPeerLimits); unset: none. */
  queryTimeoutMs?: number;
  /** The report role's limits (REPORT_WORK_MEM, REPORT_TEMP_FILE_LIMIT), for the configured sources' sessions too; unset: none. */
  limits?: ReportSessionLimits;
}

/** What a report session may use (contract E.5): the report role's work_mem and temp_file_limit. */
export interface ReportSessionLimits {
  /** e.g. "8MB" */
  workMem: string;
  /** e.g. "256MB"; "-1": none */
  tempFileLimit: string;
}

/** A limit a configured data source's user may not set, with the database's error code; or the source could not be reached to find out. */
export interface UnsetSourceLimit {
  source: string;
  setting: "temp_file_limit" | "track_activities" | "unreachable";
  code: string | undefined;
}

const rawText = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

export class DataSources {
  private readonly sources = new Map<string, DataSource>();
  private readonly limits: ReportSessionLimits | undefined;
  /** The names of the configured (DATASOURCE_<NAME>_URL) sources. */
  private readonly others: string[];

  constructor(settings: DataSourceSettings) {
    this.sources.set("clinical", {
      name: "clinical",
      pool: reportPool(settings.clinicalUrl, settings),
      bind: (client, scope) => bindToScope(settings, client, scope),
      begin: (timeoutMs, timeZone) => beginReadOnly(timeoutMs, timeZone, "clinical"),
    });
    if (settings.researchUrl) {
      this.sources.set("research", {
        name: "research",
        pool: reportPool(settings.researchUrl, settings),
        bind: (client, scope) => bindToScope(settings, client, scope),
        begin: (timeoutMs, timeZone) => beginReadOnly(timeoutMs, timeZone, "research"),
      });
    }
    for (const [name, url] of Object.entries(settings.others)) {
      const limits = settings.limits ? sessionLimits(settings.limits) : [];
      this.sources.set(name, {
        name,
        pool: reportPool(url, settings),
        bind: async () => {},
        begin: (timeoutMs, timeZone) => [...beginReadOnly(timeoutMs, timeZone, null), ...limits],
      });
    }
    this.limits = settings.limits;
    this.others = Object.keys(settings.others);
  }

  /**
   * The limits that each configured source's user may not set (sessionLimits leaves them as the
   * server has them): one transaction on each source, for the service to tell at start.
   */
  async unsetLimits(): Promise<UnsetSourceLimit[]> {
    if (!this.limits) return [];
    const unset: UnsetSourceLimit[] = [];
    for (const source of this.others) {
      let client: pg.PoolClient;
      try {
        client = await this.sources.get(source)!.pool.connect();
      } catch (error) {
        unset.push({ source, setting: "unreachable", code: (error as { code?: string }).code });
        continue;
      }
      try {
        await client.query("begin transaction read only");
        for (const [setting, value] of [
          ["temp_file_limit", this.limits.tempFileLimit],
          ["track_activities", "off"],
        ] as const) {
          await client.query("savepoint limit_setting");
          try {
            await client.query(`set local ${setting} = ${literal(value)}`);
          } catch (error) {
            unset.push({ source, setting, code: (error as { code?: string }).code });
            await client.query("rollback to savepoint limit_setting");
          }
        }
        await client.query("rollback");
      } finally {
        client.release();
      }
    }
    return unset;
  }

  get(name: string): DataSource | undefined {
    return this.sources.get(name);
  }

  names(): string[] {
    return [...this.sources.keys()];
  }

  /** Each data source's connection pool, by the source's name. */
  pools(): Array<[string, pg.Pool]> {
    return [...this.sources.values()].map((source) => [source.name, source.pool]);
  }

  async end(): Promise<void> {
    await Promise.all([...this.sources.values()].map((source) => source.pool.end()));
  }
}

type BoundClient = pg.PoolClient & {
  processID: number;
  boundScope?: string;
  server?: { started: string; standby: boolean };
};

/** Report connections read every value as text (rawText): a boolean comes as "t" or "f". */
const isTrue = (value: unknown) => value === true || value === "t";

/** How often a report connection on a replica looks whether its binding has arrived. */
const REPLAY_POLL_MS = 5;

/**
 * Binds a clinical connection to the tenant and wards it is about to serve, in report_sessions on
 * the primary (the report role can neither read nor write it). A pooled connection keeps its
 * binding: it is written only when the scope changes. On a replica the binding arrives by
 * replication: the query waits until the replica has replayed it, or it would run under the
 * connection's previous scope.
 */
async function bindToScope(settings: DataSourceSettings, client: pg.PoolClient, scope: ReportScope): Promise<void> {
  const bound = client as BoundClient;
  const key = JSON.stringify([scope.tenant, scope.wards]);
  if (bound.boundScope === key) return;
  if (!bound.server) {
    const { rows } = await client.query(
      "select pg_postmaster_start_time()::text as started, pg_is_in_recovery() as standby",
    );
    bound.server = { started: rows[0].started, standby: isTrue(rows[0].standby) };
  }
  bound.boundScope = undefined;
  await settings.serviceDb.query(
    `insert into report_sessions (pid, server_started, tenant, wards) values ($1, $2, $3, $4)
     on conflict (pid, server_started) do update set tenant = excluded.tenant, wards = excluded.wards, bound_at = now()`,
    [bound.processID, bound.server.started, scope.tenant, scope.wards],
  );
  if (bound.server.standby) {
    // Taken after the commit: the replica holds the binding once it has replayed this far.
    const { rows } = await settings.serviceDb.query("select pg_current_wal_insert_lsn()::text as lsn");
    const deadline = Date.now() + (settings.queryTimeoutMs ?? 10_000);
    for (;;) {
      const { rows: replayed } = await client.query("select pg_last_wal_replay_lsn() >= $1::pg_lsn as done", [
        rows[0].lsn,
      ]);
      if (isTrue(replayed[0].done)) break;
      if (Date.now() > deadline)
        throw new Error("the report replica is too far behind the primary to answer now; try again shortly");
      await new Promise((resolve) => setTimeout(resolve, REPLAY_POLL_MS));
    }
  }
  bound.boundScope = key;
}

/**
 * The report transaction's opening statements. The values are the service's own (a number, a zone
 * name from Intl), never the report author's.
 *
 * A session idle inside the transaction longer than its statement may run is ended by the server:
 * the service sends a report transaction's statements back to back, so only a service process that
 * froze or vanished between two of them leaves one idle, holding a connection of the report role's
 * limit and a snapshot. An export's pauses while a slow client reads are not idle in this sense:
 * its cursor reads without a Sync, the session stays active, and only the statement timeout, which
 * runs across the pauses, bounds them (EXPORT_TIMEOUT_FACTOR). Set for the transaction rather than
 * for a role, so that it holds for every data source, whichever user it logs in as.
 */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The report role's limits (contract E.5) for a configured source's sessions, whose user is not
 * the report role and has no role settings of ours: set in each transaction instead. Any user may
 * set work_mem. temp_file_limit and track_activities are a superuser's (or a user's granted `set on
 * parameter`): each is set where the user may, in a block of its own that lets a refusal pass, so
 * a source whose user may not still answers (unsetLimits tells the operator at start). Report SQL
 * cannot lift them: it may not call set_config (commands/reports/spec/sqlSafety.ts). Off, activity
 * tracking hides a running report's text from another tenant's report on the same user's sessions.
 */
function sessionLimits(limits: ReportSessionLimits): string[] {
  const trySetting = (setting: string, value: string) =>
    `begin perform set_config(${literal(setting)}, ${literal(value)}, true); exception when insufficient_privilege then null; end;`;
  return [
    `set local work_mem = ${literal(limits.workMem)}`,
    `do $limits$ begin ${trySetting("temp_file_limit", limits.tempFileLimit)} ${trySetting("track_activities", "off")} end $limits$`,
  ];
}

function beginReadOnly(timeoutMs: number, timeZone: string, searchPath: string | null): string[] {
  return [
    "begin transaction read only",
    `set local statement_timeout = ${Math.trunc(timeoutMs)}`,
    // A connection dropped mid-statement (its caller gone, the process killed) ends its statement
    // within a second, rather than when the statement next writes to the socket (E.5).
    "set local client_connection_check_interval = 1000",
    `set local idle_in_transaction_session_timeout = ${Math.trunc(timeoutMs)}`,
    `set local timezone = ${literal(timeZone)}`,
    ...(searchPath ? [`set local search_path = ${searchPath}`] : []),
  ];
}

function reportPool(connectionString: string, settings: DataSourceSettings): pg.Pool {
  const pool = new pg.Pool({
    ...connectionToPrimary(connectionString),
    max: settings.poolSize,
    application_name: "dialysis-hub-reports",
    types: rawText,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: settings.connectionTimeoutMs ?? CONNECT_TIMEOUT_MS,
    ...deadPeerLimits({ queryTimeoutMs: settings.queryTimeoutMs }),
  });
  return surviveLostConnections(pool);
}

/** DATASOURCE_<NAME>_URL variables: the name is lower-cased (DATASOURCE_QUALITY_URL → "quality"). */
export function dataSourcesFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    const match = /^DATASOURCE_([A-Z0-9_]+)_URL$/.exec(key);
    if (match && value && match[1] !== "CLINICAL" && match[1] !== "RESEARCH") found[match[1]!.toLowerCase()] = value;
  }
  return found;
}
