import { readFileSync } from "node:fs";
import type pg from "pg";
import { projectFile } from "../../db/projectFiles.ts";
import type { Tx } from "../../db/pool.ts";
import { deferredIndexSteps, completeDeferredIndexes } from "./deferredIndexes.ts";
import type { Checkpoint } from "./eventFeed.ts";
import { TENANT_READER_ROLE } from "../../db/tenantScope.ts";
import type { Projection } from "./projection.ts";

export type GenerationState = "building" | "live" | "retired";

export interface Generation {
  name: string;
  generation: number;
  version: number;
  schemaName: string;
  state: GenerationState;
  checkpoint: Checkpoint;
  appliedCount: number;
  error: string | null;
  errorPosition: number | null;
  /** Tenants held back in this generation (projection_quarantines): the feed passes over their events. */
  quarantined: Quarantine[];
}

/** A tenant held back in a generation since one of its events failed for good (migration 0019). */
export interface Quarantine {
  tenant: string;
  /** The tenant's events after this point wait (the failed one first). */
  after: Checkpoint;
  /** Its retry is due: the runner applies the tenant's waiting events before its next batch. */
  due: boolean;
}

const GENERATION_COLUMNS = `name, generation, version, schema_name, state, last_tx::text as last_tx, last_position,
  applied_count, error, error_position,
  (select coalesce(json_agg(json_build_object('tenant', q.tenant, 'tx', q.after_tx::text, 'position', q.after_position, 'due', q.retry_at <= now())
                            order by q.retry_at), '[]')
   from projection_quarantines q where q.name = projection_generations.name and q.generation = projection_generations.generation) as quarantined`;

function toGeneration(row: Record<string, unknown>): Generation {
  return {
    name: row.name as string,
    generation: row.generation as number,
    version: row.version as number,
    schemaName: row.schema_name as string,
    state: row.state as GenerationState,
    checkpoint: { transactionId: row.last_tx as string, position: Number(row.last_position) },
    appliedCount: Number(row.applied_count),
    error: (row.error as string | null) ?? null,
    errorPosition: row.error_position == null ? null : Number(row.error_position),
    quarantined: (
      (row.quarantined as { tenant: string; tx: string; position: number; due: boolean }[] | undefined) ?? []
    ).map((q) => ({
      tenant: q.tenant,
      after: { transactionId: q.tx, position: Number(q.position) },
      due: q.due,
    })),
  };
}

type Queryable = Pick<pg.ClientBase, "query">;

/**
 * Takes the right to apply events to a generation for this transaction: an advisory lock (one
 * key for whichever generation is live, one per building generation). `skipLocked` is for the
 * live runner: another process holding it is already applying, so there is nothing to wait for.
 * An advisory lock, unlike SELECT … FOR UPDATE, assigns no transaction id: the transaction
 * holds one only from its first write, so it holds back the readers' horizon
 * (projections/runtime/eventFeed.ts) for as short a time as possible.
 */
export async function lockGeneration(
  tx: Queryable,
  name: string,
  which: { state: "live" | "building" } | { generation: number },
  skipLocked: boolean,
): Promise<Generation | null> {
  const key = "state" in which ? `${name}:${which.state}` : `${name}:g${which.generation}`;
  const lock = skipLocked ? "pg_try_advisory_xact_lock" : "pg_advisory_xact_lock";
  const { rows: locked } = await tx.query(`select ${lock}(hashtext('projection'), hashtext($1))::text as ok`, [key]);
  if (skipLocked && locked[0]?.ok !== "true") return null;
  const [condition, value] = "state" in which ? ["state = $2", which.state] : ["generation = $2", which.generation];
  const { rows } = await tx.query(
    `select ${GENERATION_COLUMNS} from projection_generations where name = $1 and ${condition}`,
    [name, value],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

export async function findLive(db: Queryable, name: string): Promise<Generation | null> {
  const { rows } = await db.query(
    `select ${GENERATION_COLUMNS} from projection_generations where name = $1 and state = 'live'`,
    [name],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

export async function saveProgress(tx: Queryable, gen: Generation, to: Checkpoint, applied: number): Promise<void> {
  await tx.query(
    `update projection_generations set last_tx = $3::xid8, last_position = $4, applied_count = applied_count + $5, updated_at = now()
     where name = $1 and generation = $2`,
    [gen.name, gen.generation, to.transactionId, to.position, applied],
  );
}

/** The first pause before a held-back tenant's events are tried again, and the longest (each failed try doubles it). */
export const QUARANTINE_RETRY_FIRST_SECONDS = 60;
export const QUARANTINE_RETRY_MAX_SECONDS = 3600;

export interface EventFailure {
  position: number;
  message: string;
  code: string | null;
}

/**
 * Holds a tenant back in a generation from the event that failed (`at`, its checkpoint) on, or,
 * when it is held back already (a try that failed again), moves its waiting point there and
 * doubles the pause before the next try.
 */
export async function quarantineTenant(
  tx: Queryable,
  gen: Generation,
  tenant: string,
  at: Checkpoint,
  failure: EventFailure,
): Promise<void> {
  // Positions are whole numbers: the point just before the failed event, which comes first after it.
  await tx.query(
    `insert into projection_quarantines as q (name, generation, tenant, after_tx, after_position, error_position, error_code, error, retry_at)
     values ($1, $2, $3, $4::xid8, $5, $6, $7, $8, now() + make_interval(secs => $9::float8))
     on conflict (name, generation, tenant) do update set
       after_tx = excluded.after_tx, after_position = excluded.after_position, error_position = excluded.error_position,
       error_code = excluded.error_code, error = excluded.error, tries = q.tries + 1,
       retry_at = now() + make_interval(secs => least($10::float8, $9::float8 * 2 ^ q.tries))`,
    [
      gen.name,
      gen.generation,
      tenant,
      at.transactionId,
      at.position - 1,
      failure.position,
      failure.code,
      failure.message,
      QUARANTINE_RETRY_FIRST_SECONDS,
      QUARANTINE_RETRY_MAX_SECONDS,
    ],
  );
}

/** A held-back tenant's try got this far without a failure: its waiting point moves on. */
export async function advanceQuarantine(tx: Queryable, gen: Generation, tenant: string, to: Checkpoint): Promise<void> {
  await tx.query(
    "update projection_quarantines set after_tx = $4::xid8, after_position = $5 where name = $1 and generation = $2 and tenant = $3",
    [gen.name, gen.generation, tenant, to.transactionId, to.position],
  );
}

/** A held-back tenant caught up with the generation: it is held back no more. */
export async function liftQuarantine(tx: Queryable, gen: Generation, tenant: string): Promise<void> {
  await tx.query("delete from projection_quarantines where name = $1 and generation = $2 and tenant = $3", [
    gen.name,
    gen.generation,
    tenant,
  ]);
}

/**
 * `projections retry`: a projection stopped whole (before issue #52 an event stopped every tenant)
 * tries its failed event again, and its held-back tenants are tried at once (after a fix was
 * deployed). True when there was anything to retry.
 */
export async function clearError(db: Queryable, name: string): Promise<boolean> {
  const { rowCount: stopped } = await db.query(
    `update projection_generations set error = null, error_position = null, error_code = null, error_at = null, updated_at = now()
     where name = $1 and state = 'live' and error is not null`,
    [name],
  );
  const { rowCount: held } = await db.query(
    `update projection_quarantines q set retry_at = now() from projection_generations g
     where g.name = $1 and g.state = 'live' and q.name = g.name and q.generation = g.generation`,
    [name],
  );
  return (stopped ?? 0) + (held ?? 0) > 0;
}

/** Creates an empty generation in a schema of its own and creates the projection's tables there (setUp). */
export async function createGeneration(
  tx: Tx,
  projection: Projection,
  state: "building" | "live",
): Promise<Generation> {
  const { rows } = await tx.query(
    "select coalesce(max(generation), 0) + 1 as next from projection_generations where name = $1",
    [projection.name],
  );
  const generation = rows[0].next as number;
  const schemaName = `proj_${projection.name}_g${generation}`;
  await tx.query(`create schema ${schemaName}`);
  await tx.query(`set local search_path to ${schemaName}, public`);
  await setUp(tx, projection);
  // A live generation starts empty: nothing to load first.
  if (state === "live") await runFinishSteps(tx, projection);
  await tx.query("set local search_path to default");
  await isolateTenants(tx, projection, schemaName);
  const inserted = await tx.query(
    `insert into projection_generations (name, generation, version, schema_name, state, live_since)
     values ($1, $2, $3, $4, $5, case when $5 = 'live' then now() end)
     returning ${GENERATION_COLUMNS}`,
    [projection.name, generation, projection.version, schemaName, state],
  );
  if (state === "live") await pointReadViews(tx, projection, schemaName);
  return toGeneration(inserted.rows[0]);
}

/** The text of each DDL file, read once per process (every rebuild and test database runs it again). */
const ddlFiles = new Map<string, string>();

function ddlFile(file: string): string {
  let sql = ddlFiles.get(file);
  if (sql === undefined) {
    sql = readFileSync(projectFile(file), "utf8");
    ddlFiles.set(file, sql);
  }
  return sql;
}

/** Creates a projection's tables in the current schema: its DDL files in order, then its setup. */
async function setUp(tx: Tx, projection: Projection): Promise<void> {
  const files = typeof projection.ddl === "string" ? [projection.ddl] : (projection.ddl ?? []);
  for (const file of files) await tx.query(ddlFile(file));
  await projection.setup?.(tx);
}

/**
 * Builds what a generation's load left for its end (Projection.finishLoad, then the indexes a load
 * by set deferred), one step after the other in `tx` (a rebuild runs them side by side:
 * finishSideBySide.ts), then gathers its tables' statistics.
 */
export async function finishLoad(tx: Tx, projection: Projection, gen: Pick<Generation, "schemaName">): Promise<void> {
  await tx.query(`set local search_path to ${gen.schemaName}, public`);
  await runFinishSteps(tx, projection);
  for (const step of await deferredIndexSteps(tx, gen.schemaName)) await step.run(tx);
  await completeDeferredIndexes(tx, gen.schemaName);
  await tx.query("set local search_path to default");
  await analyzeTables(tx, projection, gen);
}

/** A projection's finish steps in their order, in `tx` (search_path set to the generation's schema). */
async function runFinishSteps(tx: Tx, projection: Projection): Promise<void> {
  for (const step of projection.finishLoad ?? []) await step.run(tx);
}

/**
 * Gathers the statistics of a loaded generation's tables. A table loaded in one go has none until
 * autovacuum comes round (never, on a server with it off), and the planner guesses without: the
 * new generation would serve its first queries on plans made for an empty table (issue #35:
 * "ANALYZE after the swap"; done before it, so the generation serves with them from its first query).
 */
export async function analyzeTables(
  tx: Tx,
  projection: Projection,
  gen: Pick<Generation, "schemaName">,
): Promise<void> {
  // A reactor has no tables, and ANALYZE naming none would analyze every table of the database.
  if (projection.tables.length > 0)
    await tx.query(`analyze ${projection.tables.map((table) => `${gen.schemaName}.${table}`).join(", ")}`);
}

/**
 * Tenant isolation lives here, once for every read model: each table gets row-level security
 * keyed on its `tenant` column, readable only by the role queries run as. A table without a
 * tenant column is refused unless the projection declares it shared reference data. The tables
 * of patient rows get the ward scope as a second, restrictive policy.
 */
async function isolateTenants(tx: Tx, projection: Projection, schemaName: string): Promise<void> {
  await tx.query(`grant usage on schema ${schemaName} to ${TENANT_READER_ROLE}`);
  for (const table of projection.tables) {
    await tx.query(`grant select on ${schemaName}.${table} to ${TENANT_READER_ROLE}`);
    if (projection.sharedTables?.includes(table)) continue;
    const { rowCount } = await tx.query(
      "select 1 from information_schema.columns where table_schema = $1 and table_name = $2 and column_name = 'tenant'",
      [schemaName, table],
    );
    if (!rowCount)
      throw new Error(
        `projection ${projection.name}: table ${table} needs a tenant column (or list it in sharedTables)`,
      );
    await tx.query(`alter table ${schemaName}.${table} enable row level security`);
    await tx.query(
      `create policy tenant_isolation on ${schemaName}.${table} using (tenant = current_setting('app.tenant', true))`,
    );
    const owner = projection.patientRows?.[table];
    if (owner)
      await tx.query(`create policy ward_scope on ${schemaName}.${table} as restrictive using (${wardRule(owner)})`);
  }
}

/** A patient table's ward rule (contract E.2; db/wardScope.ts sets app.wards, migration 0013 defines ward_scope_allows). */
function wardRule(owner: { patientRef: string } | { ward: string }): string {
  if ("patientRef" in owner) return `ward_scope_allows(${owner.patientRef})`;
  // nullif: SQL does not promise to skip the cast when the first test is already true.
  return `coalesce(current_setting('app.wards', true), '') = '' or nullif(current_setting('app.wards', true), '')::jsonb ? ${owner.ward}`;
}

/**
 * `read.<table>` views give queries a name that survives rebuilds. They are security_invoker so
 * that row-level security on the generation's tables applies to whoever queries the view.
 */
export async function pointReadViews(tx: Tx, projection: Projection, schemaName: string): Promise<void> {
  for (const table of projection.tables) {
    const body = `view read.${table} with (security_invoker = true) as select * from ${schemaName}.${table}`;
    await tx.query("savepoint point_view");
    try {
      await tx.query(`create or replace ${body}`);
      await tx.query(`grant select on read.${table} to ${TENANT_READER_ROLE}`);
      await tx.query("release savepoint point_view");
    } catch {
      // The new version changed the table's columns: a replaced view must keep them, so recreate it.
      await tx.query("rollback to savepoint point_view");
      await tx.query(`drop view if exists read.${table} cascade`);
      await tx.query(`create ${body}`);
      await tx.query(`grant select on read.${table} to ${TENANT_READER_ROLE}`);
    }
  }
}

/** Makes `next` the live generation in the caller's transaction (then `dropRetiredSchemas` after commit). */
export async function promote(
  tx: Tx,
  projection: Projection,
  next: Generation,
  previous: Generation | null,
): Promise<void> {
  if (previous) {
    await tx.query(
      "update projection_generations set state = 'retired', updated_at = now() where name = $1 and generation = $2",
      [previous.name, previous.generation],
    );
  }
  await tx.query(
    "update projection_generations set state = 'live', live_since = now(), updated_at = now() where name = $1 and generation = $2",
    [next.name, next.generation],
  );
  await pointReadViews(tx, projection, next.schemaName);
}

/**
 * Drops the tables of retired generations, except those of a generation whose tables a view
 * elsewhere (read.*, clinical.*) still shows: when a table moves to another projection (lab_results
 * left lab_reports), the old generation's copy serves until the new projection is built.
 */
export async function dropRetiredSchemas(db: Queryable): Promise<string[]> {
  const { rows } = await db.query(
    `select g.schema_name from projection_generations g
     join pg_namespace n on n.nspname = g.schema_name
     where g.state = 'retired'
       and not exists (
         select 1 from pg_depend d
         join pg_rewrite r on r.oid = d.objid
         join pg_class v on v.oid = r.ev_class
         join pg_class t on t.oid = d.refobjid
         where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
           and t.relnamespace = n.oid and v.relnamespace <> n.oid)`,
  );
  const dropped = rows.map((row) => row.schema_name as string);
  for (const schema of dropped) await db.query(`drop schema if exists ${schema} cascade`);
  return dropped;
}

/** Removes an unfinished rebuild (a crash mid-rebuild leaves one behind). */
export async function discardBuilding(tx: Tx, name: string): Promise<void> {
  const { rows } = await tx.query(
    "select generation, schema_name from projection_generations where name = $1 and state = 'building'",
    [name],
  );
  for (const row of rows) {
    await tx.query(`drop schema if exists ${row.schema_name} cascade`);
    await tx.query(
      "update projection_generations set state = 'retired', updated_at = now() where name = $1 and generation = $2",
      [name, row.generation],
    );
  }
}
