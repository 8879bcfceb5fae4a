import type { Db } from "../db/pool.ts";
import { receivedReports } from "../projections/ingestion/labReports.ts";
import { insertItemRowsSql } from "../projections/ingestion/labResults.ts";

/*
 * The least work a full rebuild must do (#35, deliverable 4), measured on the store just rebuilt:
 * every received report's item rows written by one statement from the stored payloads into a bare
 * table, then the item table's indexes built over them, each as the live generation defines it.
 * That is what report SQL needs and what no design can skip; every other read model is smaller.
 */

const FLOOR_SCHEMA = "bench_rebuild_floor";

export interface RebuildFloor {
  /** Reading every received payload decompressed, and nothing else (a part of the item rows' statement). */
  decompressSeconds: number;
  itemRowsSeconds: number;
  itemRows: number;
  /** Each index of the live item table, built over the loaded rows: name -> seconds. */
  indexSeconds: Record<string, number>;
  /** The floor: the item rows and their indexes. */
  seconds: number;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, (performance.now() - started) / 1000];
}

export async function measureRebuildFloor(db: Db): Promise<RebuildFloor> {
  const client = await db.connect();
  try {
    const { rows: live } = await client.query(
      "select schema_name from projection_generations where name = 'lab_results' and state = 'live'",
    );
    const liveTable = `${live[0].schema_name}.lab_results`;
    const floorTable = `${FLOOR_SCHEMA}.lab_results`;
    // As the projection's finishLoad sets them for its index builds.
    await client.query("set work_mem = '256MB'; set maintenance_work_mem = '512MB'");
    await client.query(`drop schema if exists ${FLOOR_SCHEMA} cascade; create schema ${FLOOR_SCHEMA}`);
    // Columns and not-null constraints alone: the indexes are built after the load.
    await client.query(`create table ${floorTable} (like ${liveTable})`);
    // The growth store holds first versions only; a second would fail the primary key below, loudly.
    const [, decompressSeconds] = await timed(() =>
      client.query(
        "select count(*) from events where type = 'LabReportReceived' and (data || '{}'::jsonb) is not null",
      ),
    );
    const [inserted, itemRowsSeconds] = await timed(() =>
      client.query(insertItemRowsSql(floorTable, receivedReports("e.type = 'LabReportReceived'"))),
    );
    const { rows: indexes } = await client.query(
      "select c.relname as name, pg_get_indexdef(i.indexrelid) as definition from pg_index i join pg_class c " +
        "on c.oid = i.indexrelid where i.indrelid = $1::regclass order by c.relname",
      [liveTable],
    );
    const indexSeconds: Record<string, number> = {};
    for (const { name, definition } of indexes as Array<{ name: string; definition: string }>) {
      const onFloor = definition.replace(` ON ${liveTable} `, ` ON ${floorTable} `);
      if (onFloor === definition) throw new Error(`cannot read the index definition ${definition}`);
      [, indexSeconds[name]] = await timed(() => client.query(onFloor));
    }
    const seconds = itemRowsSeconds + Object.values(indexSeconds).reduce((sum, s) => sum + s, 0);
    return { decompressSeconds, itemRowsSeconds, itemRows: inserted.rowCount ?? 0, indexSeconds, seconds };
  } finally {
    await client.query(`drop schema if exists ${FLOOR_SCHEMA} cascade`).catch(() => {});
    client.release();
  }
}
