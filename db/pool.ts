import pg from "pg";
import { connectionToPrimary } from "./primaryHosts.ts";

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

export interface PoolOptions extends DeadPeerLimits {
  max?: number;
  applicationName?: string;
}

/** How long a new connection may take; one that gets no answer (a network gone silent) then fails. */
export const CONNECT_TIMEOUT_MS = 10_000;

export function createPool(connectionString: string, options: PoolOptions = {}): Db {
  const pool = new pg.Pool({
    // Several hosts: each new connection goes to the one that takes writes now (fail-over).
    ...connectionToPrimary(connectionString),
    max: options.max ?? 10,
    application_name: options.applicationName ?? "dialysis-hub",
    types: serviceTypes,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...deadPeerLimits(options),
  });
  return surviveLostConnections(pool);
}

export interface DeadPeerLimits {
  /** A statement not answered within this fails and its connection is discarded (client side). */
  queryTimeoutMs?: number;
  /** The server ends a session left idle inside a transaction this long (its client is gone). */
  idleInTransactionTimeoutMs?: number;
}

/**
 * A connection whose peer vanished without a reset (a network partition, a dead NAT entry, a
 * failed-over address) gets no error: a statement sent on it waits for ever, and with it the push
 * that sent it. TCP keepalive finds such a peer only after minutes (Linux probes for 11 min after
 * the first idle delay), so a statement that goes unanswered for `queryTimeoutMs` fails (a 503
 * for its caller) and its connection is destroyed. On the server the vanished client's backend
 * may sit inside its transaction, holding locks and holding back what projections may read
 * (gap-free reading waits for the oldest open transaction): the server ends it after
 * `idleInTransactionTimeoutMs`.
 */
export function deadPeerLimits(
  limits: DeadPeerLimits,
): Pick<pg.PoolConfig, "keepAlive" | "keepAliveInitialDelayMillis" | "query_timeout" | "options"> {
  const idle = limits.idleInTransactionTimeoutMs
    ? ` -c idle_in_transaction_session_timeout=${Math.trunc(limits.idleInTransactionTimeoutMs)}`
    : "";
  return {
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(limits.queryTimeoutMs ? { query_timeout: limits.queryTimeoutMs } : {}),
    options: `${NO_JIT}${idle}`,
  };
}

/*
 * The service's own statements (appends, projection batches, the job queue) are short, and
 * PostgreSQL's JIT compiles any statement its planner costs above jit_above_cost: the summaries'
 * update of a projection batch spent 15 to 55 ms of its 35 to 90 ms compiling, every batch, on a
 * store of 600,000 item rows (issue #35). Report queries run on their own pools
 * (queries/reports/dataSources.ts) and keep the server's setting.
 */
const NO_JIT = "-c jit=off";

/** pg's error for a statement unanswered within `query_timeout`: its connection is unusable. */
export function isUnansweredStatement(error: unknown): boolean {
  return error instanceof Error && error.message === "Query read timeout";
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
    return await inTransaction(tx, work, begin, () => (broken = true));
  } finally {
    tx.release(broken);
  }
}

/**
 * Runs `work` in a transaction on a connection the caller holds and gives back itself (a session
 * that keeps an advisory lock between transactions); `onBroken` is told when the connection is
 * dead and must not be reused.
 */
export async function inTransaction<T>(
  tx: Tx,
  work: (tx: Tx) => Promise<T>,
  begin = "begin",
  onBroken: () => void = () => {},
): Promise<T> {
  try {
    await tx.query(begin);
    const result = await work(tx);
    await tx.query("commit");
    return result;
  } catch (error) {
    // A connection that cannot even roll back is dead: hand it back for destruction, not reuse.
    // One that left a statement unanswered is dead already; a rollback would only wait as long.
    if (isUnansweredStatement(error)) onBroken();
    else await tx.query("rollback").catch(onBroken);
    throw error;
  }
}
