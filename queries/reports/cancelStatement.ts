import pg from "pg";

type CancellableClient = pg.PoolClient & { host: string; port: number; processID: number; secretKey: number };
interface CancelConnection {
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
  on(event: "connect" | "error", listener: () => void): void;
}

/**
 * Stops what a report connection runs, for a caller that has gone (E.5): asks PostgreSQL to cancel
 * the statement and cuts the connection. Either suffices alone only most of the time: a cancel that
 * lands while the server reads the next message of a pipeline (between BEGIN and the statement) is
 * dropped, and a cut connection is noticed only at client_connection_check_interval (1 s, set in
 * every report transaction) or when the statement next writes. Cut, not ended politely: a
 * Terminate message waits behind the running statement. The caller releases it as broken.
 */
export function stopAndDrop(client: pg.PoolClient): void {
  cancelStatement(client);
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

/**
 * Asks PostgreSQL to cancel the statement a report connection is running, with the protocol's
 * CancelRequest on a connection of its own (as libpq's PQcancel does): no pool connection is
 * needed, so a full pool cannot delay it, and the server acts on it before any authentication.
 * The statement then fails with 57014 and the connection stays usable. Best effort: a request
 * that cannot be delivered leaves the statement timeout and client_connection_check_interval to
 * end the statement.
 */
export function cancelStatement(client: pg.PoolClient): void {
  const target = client as CancellableClient;
  const connection = new (pg as unknown as { Connection: new () => CancelConnection }).Connection();
  connection.on("error", () => {});
  // The server closes the connection once it has read the request.
  connection.on("connect", () => connection.cancel(target.processID, target.secretKey));
  if (target.host?.startsWith("/")) connection.connect(`${target.host}/.s.PGSQL.${target.port}`);
  else connection.connect(target.port, target.host);
}

/**
 * Calls `over` once when more than `maxBytes` have come in on the connection since this was
 * called (or since the last `reset()`); `stop()` ends the count. Counted on the socket, before pg
 * parses a message: a row of one 100 MB field is stopped after the first `maxBytes` of it, not
 * held whole (E.5, the byte cap).
 */
export function meterBytes(client: pg.PoolClient, maxBytes: number, over: () => void): { stop(): void; reset(): void } {
  const stream = (client as unknown as { connection: { stream: NodeJS.EventEmitter } }).connection.stream;
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) {
      stream.off("data", count);
      over();
    }
  };
  stream.on("data", count);
  return {
    stop: () => stream.off("data", count),
    reset: () => {
      received = 0;
    },
  };
}

/**
 * Stops the client's statement (stopAndDrop) when `signal` aborts or `stop()` is called; `stopped`
 * tells whether it was, so the caller releases the connection as broken. `dispose()` once done.
 */
export function stopOnAbort(
  client: pg.PoolClient,
  signal: AbortSignal | undefined,
): { stop(): void; readonly stopped: boolean; dispose(): void } {
  let stopped = false;
  const stop = () => {
    stopped = true;
    stopAndDrop(client);
  };
  signal?.addEventListener("abort", stop, { once: true });
  return {
    stop,
    get stopped() {
      return stopped;
    },
    dispose: () => signal?.removeEventListener("abort", stop),
  };
}
