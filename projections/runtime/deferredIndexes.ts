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
 */
export async function deferIndexes(tx: Tx, tables: readonly string[]): Promise<void> {
  // A constraint's index goes with the constraint; the others by name. pg_get_*def name the table
  // with its schema, so they build the same indexes again whatever the search path.
  const { rows } = await tx.query(
    `select i.indexrelid::regclass::text as name,
            format('alter table %s drop constraint %I', i.indrelid::regclass, c.conname) as drop_sql,
            format('alter table %s add constraint %I %s', i.indrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) as build_sql
     from pg_index i join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid and c.contype in ('p', 'u', 'x')
     where i.indrelid = any($1::regclass[])
     union all
     select i.indexrelid::regclass::text, format('drop index %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid)
     from pg_index i
     where i.indrelid = any($1::regclass[])
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid and c.contype in ('p', 'u', 'x'))`,
    [tables],
  );
  await tx.query(`create table if not exists ${DEFERRED_INDEXES} (name text primary key, build_sql text not null)`);
  for (const index of rows as Array<{ name: string; drop_sql: string; build_sql: string }>) {
    await tx.query(`insert into ${DEFERRED_INDEXES} values ($1, $2)`, [index.name, index.build_sql]);
    await tx.query(index.drop_sql);
  }
}

/** The index builds a load deferred in the generation's schema `schemaName` (deferIndexes), as finish steps; each forgets its own once built. */
export async function deferredIndexSteps(tx: Tx, schemaName: string): Promise<FinishStep[]> {
  const { rows: found } = await tx.query("select to_regclass($1) is not null as held", [`${schemaName}.${DEFERRED_INDEXES}`]);
  if (!found[0].held) return [];
  const { rows } = await tx.query(`select name, build_sql from ${schemaName}.${DEFERRED_INDEXES} order by name`);
  return (rows as Array<{ name: string; build_sql: string }>).map(({ name, build_sql }) => ({
    name,
    async run(tx: Tx) {
      await tx.query(LOAD_MEMORY_SQL);
      await tx.query(build_sql);
      await tx.query(`delete from ${schemaName}.${DEFERRED_INDEXES} where name = $1`, [name]);
    },
  }));
}

/** Drops the record of deferred builds once every one is built (deferredIndexSteps' steps have run). */
export async function forgetDeferredIndexes(tx: Tx, schemaName: string): Promise<void> {
  await tx.query(`drop table if exists ${schemaName}.${DEFERRED_INDEXES}`);
}
