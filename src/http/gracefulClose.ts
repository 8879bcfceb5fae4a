import type { IncomingMessage, Server, ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** How often a closing server looks for connections that have become idle. */
const IDLE_LOOK_MS = 25;

/**
 * Closes an HTTP server for a stop as soon as nothing is under way, within a grace period.
 *
 * `server.close()` alone is not enough with browsers: it closes the keep-alive connections idle at
 * that moment, but one still answering a request when the stop began stays open once its answer
 * is sent, the browser sends its next request on it (an open page's stream reconnecting), and the
 * server is held until the grace period cuts it. So while it closes, connections are closed as
 * they become idle, and an answer begun meanwhile says `Connection: close`.
 *
 * A connection is not a request either: a client that gives up (the demo loader, aborted at the
 * stop) closes its connection while its handler still runs, and that handler would then meet a
 * database pool that has ended. So the close also waits for every handler to return.
 */
export class GracefulClose {
  private readonly handling = new Set<Promise<unknown>>();
  private closing = false;

  /** The server's request handler, counted until it returns (also after its client went away). */
  track(handler: Handler): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      if (this.closing) res.setHeader("connection", "close");
      const running: Promise<unknown> = Promise.resolve(handler(req, res))
        .catch(() => {}) // the handler answers its own failures; here only its end matters
        .finally(() => this.handling.delete(running));
      this.handling.add(running);
    };
  }

  /**
   * Stops accepting connections, lets the requests in flight finish (for up to `graceMs`), ends
   * each keep-alive connection as soon as it is idle, and cuts what is left when the grace is over.
   */
  async close(server: Server, graceMs: number): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // No listener on each answer for this: an export's answer already has as many as Node allows
    // without a warning (stalledResponses.ts).
    const idle = setInterval(() => server.closeIdleConnections(), IDLE_LOOK_MS);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([closed, this.handlersReturned()]), graceOver]);
    clearInterval(idle);
    clearTimeout(timer);
    server.closeAllConnections();
    await closed;
  }

  private async handlersReturned(): Promise<void> {
    // A request that arrived on a connection still open meanwhile is waited for too.
    while (this.handling.size > 0) await Promise.all([...this.handling]);
  }
}
