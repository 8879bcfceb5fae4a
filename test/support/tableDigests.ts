import type pg from "pg";

/*
 * What a restore must give back, compared as row counts and digests of the ordered rows. The
 * transaction ids (xid8 columns) are each cluster's own: a restore gives out new ones in the same
 * order, so they are left out.
 */

type Queryable = Pick<pg.Pool, "query">;

/** "count:md5" of the rows of `schema.table` (its xid8 columns left out), of those `where` keeps. */
export async function tableDigest(db: Queryable, schema: string, table: string, where = ""): Promise<string> {
  const { rows: columns } = await db.query(
    "select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as list from " +
      "information_schema.columns where table_schema = $1 and table_name = $2 and udt_name <> 'xid8'",
    [schema, table],
  );
  if (!columns[0].list) throw new Error(`${schema}.${table} has no columns to compare: does it exist?`);
  const { rows } = await db.query(
    `select count(*) || ':' || md5(coalesce(string_agg(r::text, E'\\n' order by r::text), '')) as digest from ` +
      `(select ${columns[0].list} from ${schema}.${table} ${where}) r`,
  );
  return rows[0].digest;
}

/** The digests of several tables of one schema, by name. */
export async function tableDigests(
  db: Queryable,
  schema: string,
  tables: readonly string[],
  where: (table: string) => string = () => "",
): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const table of tables) digests[table] = await tableDigest(db, schema, table, where(table));
  return digests;
}
