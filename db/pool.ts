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
  return surviveLostConnections(pool);
}

/**
 * A connection lost to a database restart or failover makes its client emit 'error', and an
 * 'error' event nobody listens to ends the process. The pool listens only while a client is idle;
 * a checked-out client (a transaction between two statements, a cursor) had no listener, so one
 * restart killed every process. Each client now listens for its whole life: the statement in
 * flight fails with the error anyway, and the pool discards a dead client when it comes back.
 */
export function surviveLostConnections(pool: pg.Pool): pg.Pool {
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/** `begin` may name settings to make with it, in one round trip ("begin; select set_config(…)"). */
export async function withTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, begin = "begin"): Promise<T> {
  const tx = await db.connect();
  let broken = false;
  try {
    await tx.query(begin);
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
