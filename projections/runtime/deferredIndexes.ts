import type { Tx } from "../../db/pool.ts";
import type { FinishStep } from "./projection.ts";

/** Memory for the sorts and hashes of statements over every row (a load by set, a finish step). */
export const LOAD_MEMORY_SQL = "set local work_mem = '256MB'; set local maintenance_work_mem = '512MB'";

/** Where a load records the indexes it dropped (deferIndexes), in the generation's own schema. */
const DEFERRED_INDEXES = "rebuild_deferred_indexes";

/**
 * Drops the indexes of `tables` (in the search path, the generation's schema) before a load by
 * set, and records how to build each again: the rebuild builds them once the load has committed,
 * side by side with the projection's finish steps (deferredIndexSteps), one sort each instead of
 * an insertion per row (at two million reports the item rows' primary key took 28 s to build, in
 * the load's transaction, while the server's other core waited). The events that arrive during the
 * load are applied after those builds, so no batch meets a table without its key.
 *
 * A primary key or unique constraint is built as a plain unique index of its name, and made the
 * constraint again (`attach_sql`, completeDeferredIndexes) once every step has ended: adding a
 * constraint locks its table against every reader, so built as one it waited for the finish steps
 * reading the same rows (at two million reports the primary key queued minutes behind the month
 * summaries), where an index build shares the table with them.
 */
export async function deferIndexes(tx: Tx, tables: readonly string[]): Promise<void> {
  // The statements name the table with its schema (pg_get_*def do), so they build the same indexes
  // again whatever the search path. An exclusion constraint cannot be added over an index: it is
  // built as itself.
  const { rows } = await tx.query(
    `select i.indexrelid::regclass::text as name,
            format('alter table %s drop constraint %I', t.name, c.conname) as drop_sql,
            case when c.contype = 'x' then format('alter table %s add constraint %I %s', t.name, c.conname, pg_get_constraintdef(c.oid))
                 else pg_get_indexdef(i.indexrelid) end as build_sql,
            case when c.contype <> 'x' then format('alter table %s add constraint %I %s using index %I', t.name, c.conname,
                                                   case c.contype when 'p' then 'primary key' else 'unique' end, c.conname) end as attach_sql
     from pg_index i join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid and c.contype in ('p', 'u', 'x')
     cross join lateral (select format('%I.%I', n.nspname, r.relname) as name from pg_class r join pg_namespace n
       on n.oid = r.relnamespace where r.oid = i.indrelid) t
     where i.indrelid = any($1::regclass[])
     union all
     select i.indexrelid::regclass::text, format('drop index %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid), null
     from pg_index i
     where i.indrelid = any($1::regclass[])
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid and c.contype in ('p', 'u', 'x'))`,
    [tables],
  );
  await tx.query(
    `create table if not exists ${DEFERRED_INDEXES} (name text primary key, build_sql text not null, attach_sql text)`,
  );
  for (const index of rows as Array<{ name: string; drop_sql: string; build_sql: string; attach_sql: string | null }>) {
    await tx.query(`insert into ${DEFERRED_INDEXES} values ($1, $2, $3)`, [
      index.name,
      index.build_sql,
      index.attach_sql,
    ]);
    await tx.query(index.drop_sql);
  }
}

/** The index builds a load deferred in the generation's schema `schemaName` (deferIndexes), as finish steps. */
export async function deferredIndexSteps(tx: Tx, schemaName: string): Promise<FinishStep[]> {
  if (!(await holdsDeferred(tx, schemaName))) return [];
  const { rows } = await tx.query(`select name, build_sql from ${schemaName}.${DEFERRED_INDEXES} order by name`);
  return (rows as Array<{ name: string; build_sql: string }>).map(({ name, build_sql }) => ({
    name,
    async run(tx: Tx) {
      await tx.query(LOAD_MEMORY_SQL);
      await tx.query(build_sql);
    },
  }));
}

/**
 * Once every deferred build has run (deferredIndexSteps), and no finish step reads the tables any
 * more: makes the constraints' indexes their constraints again (no scan: the index is built, its
 * columns not null), then drops the record of deferred builds.
 */
export async function completeDeferredIndexes(tx: Tx, schemaName: string): Promise<void> {
  if (!(await holdsDeferred(tx, schemaName))) return;
  const { rows } = await tx.query(
    `select attach_sql from ${schemaName}.${DEFERRED_INDEXES} where attach_sql is not null order by name`,
  );
  for (const { attach_sql } of rows as Array<{ attach_sql: string }>) await tx.query(attach_sql);
  await tx.query(`drop table ${schemaName}.${DEFERRED_INDEXES}`);
}

async function holdsDeferred(tx: Tx, schemaName: string): Promise<boolean> {
  const { rows } = await tx.query("select to_regclass($1) is not null as held", [`${schemaName}.${DEFERRED_INDEXES}`]);
  return rows[0].held;
}
