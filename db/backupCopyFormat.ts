import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import type pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";

/*
 * The service's own backup format, for when no pg_dump fits the server (db/backup.ts): the same
 * rows pg_dump would write, taken the same way (COPY in one repeatable-read snapshot), needing
 * nothing but a connection. COPY's text format is the same in every PostgreSQL version since 7.4,
 * so a backup of one server restores into any other.
 *
 * The file is gzip of lines: a first line naming the format, a line of JSON (the server, the
 * tables with their columns and row counts are at the end), then for each table a line
 * `table <name> <columns as JSON>`, its rows as COPY writes them and COPY's end line `\.` (a row
 * never reads `\.`: COPY writes a backslash in a value as two), and last `end <JSON>` with each
 * table's row count. A file cut short has no end line, and gzip notices too.
 */

export const COPY_FORMAT_FIRST_LINE = "dialysis-hub backup 1";
/** The first bytes of any gzip file. */
const GZIP_MAGIC = [0x1f, 0x8b];

export function isCopyFormat(firstBytes: Buffer): boolean {
  return firstBytes[0] === GZIP_MAGIC[0] && firstBytes[1] === GZIP_MAGIC[1];
}

interface Header {
  server: string;
  takenAt: string;
  /** Each identity column's sequence as it stood: a restore carries on numbering from there. */
  sequences: Array<{ table: string; column: string; lastValue: number }>;
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function columnsOf(client: pg.Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum",
    [`public.${table}`],
  );
  return rows.map((row) => row.name);
}

/** Writes `tables` (in that order) to `file`, in one snapshot; the client is in no transaction. */
export async function writeCopyBackup(
  client: pg.Client,
  tables: readonly string[],
  file: string,
  signal?: AbortSignal,
): Promise<void> {
  const gzip = createGzip();
  const written = pipeline(gzip, createWriteStream(file), { signal });
  // The write side fails first when the disk is full or the caller gives up: stop reading then.
  let failure: unknown = null;
  written.catch((error: unknown) => (failure = error));
  const put = async (text: string | Buffer) => {
    if (failure) throw failure;
    if (!gzip.write(text)) await Promise.race([once(gzip, "drain"), written]);
  };
  await client.query("begin isolation level repeatable read read only");
  try {
    // As pg_dump does: no DDL may change a table while it is read.
    await client.query(
      `lock table ${tables.map((table) => `public.${quoteIdent(table)}`).join(", ")} in access share mode`,
    );
    const { rows: server } = await client.query<{ version: string }>(
      "select current_setting('server_version') as version",
    );
    const header: Header = { server: server[0]!.version, takenAt: new Date().toISOString(), sequences: [] };
    const columns = new Map<string, string[]>();
    for (const table of tables) {
      columns.set(table, await columnsOf(client, table));
      for (const column of columns.get(table)!) {
        const { rows } = await client.query<{ seq: string | null }>("select pg_get_serial_sequence($1, $2) as seq", [
          `public.${quoteIdent(table)}`,
          column,
        ]);
        if (!rows[0]!.seq) continue;
        const { rows: last } = await client.query<{ value: string; called: boolean }>(
          `select last_value::text as value, is_called as called from ${rows[0]!.seq}`,
        );
        if (last[0]!.called) header.sequences.push({ table, column, lastValue: Number(last[0]!.value) });
      }
    }
    await put(`${COPY_FORMAT_FIRST_LINE}\n${JSON.stringify(header)}\n`);
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const list = columns.get(table)!;
      await put(`table ${table} ${JSON.stringify(list)}\n`);
      const rows = client.query(
        copyTo(`copy public.${quoteIdent(table)} (${list.map(quoteIdent).join(", ")}) to stdout`),
      );
      for await (const chunk of rows) await put(chunk as Buffer);
      counts[table] = rows.rowCount;
      await put("\\.\n");
    }
    await put(`end ${JSON.stringify({ rows: counts })}\n`);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    gzip.destroy();
    await written.catch(() => {});
    throw error;
  }
  gzip.end();
  await written;
}

export class CopyFormatError extends Error {}

export interface CopyRestoreSummary {
  rows: Record<string, number>;
}

/**
 * Loads a backup of this format into the tables it names, each of which must be in `allowed`,
 * inside the caller's transaction; then sets each identity sequence past what was restored.
 */
export async function readCopyBackup(
  client: pg.Client,
  file: string,
  allowed: readonly string[],
): Promise<CopyRestoreSummary> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity })[
    Symbol.asyncIterator
  ]();
  const next = async (): Promise<string | null> => {
    const { value, done } = await lines.next();
    return done ? null : (value as string);
  };
  if ((await next()) !== COPY_FORMAT_FIRST_LINE)
    throw new CopyFormatError("it is not a backup of this service (its first line is not the format's)");
  const header = JSON.parse((await next()) ?? "{}") as Header;
  const rows: Record<string, number> = {};
  for (;;) {
    const line = await next();
    if (line === null)
      throw new CopyFormatError(
        "it ends before its last line: the file is cut short (a copy still being written, or a full disk)",
      );
    if (line.startsWith("end ")) {
      const expected = (JSON.parse(line.slice(4)) as { rows: Record<string, number> }).rows;
      for (const [table, count] of Object.entries(expected)) {
        if (rows[table] !== count)
          throw new CopyFormatError(
            `its table ${table} holds ${rows[table] ?? 0} rows where the backup counted ${count}`,
          );
      }
      break;
    }
    const section = /^table (\S+) (.*)$/.exec(line);
    if (!section || !allowed.includes(section[1]!))
      throw new CopyFormatError(`it has an unexpected line where a table should start (${line.slice(0, 40)})`);
    const table = section[1]!;
    const columns = JSON.parse(section[2]!) as string[];
    const copy = client.query(
      copyFrom(`copy public.${quoteIdent(table)} (${columns.map(quoteIdent).join(", ")}) from stdin`),
    );
    const loaded = new Promise<void>((resolve, reject) => {
      copy.once("finish", resolve);
      copy.once("error", reject);
    });
    loaded.catch(() => {}); // awaited below; a failure in between must not count as unhandled
    let ended = false;
    for (let row = await next(); row !== null; row = await next()) {
      if (row === "\\.") {
        ended = true;
        break;
      }
      if (!copy.write(`${row}\n`)) await Promise.race([once(copy, "drain"), loaded]);
    }
    copy.end();
    await loaded;
    if (!ended) throw new CopyFormatError(`it ends inside table ${table}: the file is cut short`);
    rows[table] = copy.rowCount;
  }
  for (const { table, column, lastValue } of header.sequences ?? []) {
    if (!allowed.includes(table)) continue;
    await client.query(
      `select setval(pg_get_serial_sequence($1, $2), greatest($3::bigint, (select coalesce(max(${quoteIdent(column)}), 1) from public.${quoteIdent(table)})))`,
      [`public.${quoteIdent(table)}`, column, lastValue],
    );
  }
  return { rows };
}
