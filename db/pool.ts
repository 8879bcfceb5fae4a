import pg from "pg";

const INT8_OID = 20;

/** Positions and counters are bigint in SQL but stay far below 2^53: read them as numbers. */
const serviceTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
} as pg.CustomTypesConfig;

export type Db = pg.Pool;
export type Tx = pg.PoolClient;

export interface PoolOptions {
  max?: number;
  applicationName?: string;
}

export function createPool(connectionString: string, options: PoolOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "dialysis-hub",
    types: serviceTypes,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (database restart) must not crash the process;
  // the pool drops it and the next checkout reconnects.
  pool.on("error", () => {});
  return pool;
}

export async function withTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = await db.connect();
  let broken = false;
  try {
    await tx.query("begin");
    const result = await work(tx);
    await tx.query("commit");
    return result;
  } catch (error) {
    // A connection that cannot even roll back is dead: hand it back for destruction, not reuse.
    await tx.query("rollback").catch(() => (broken = true));
    throw error;
  } finally {
    tx.release(broken);
  }
}
