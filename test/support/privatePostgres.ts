import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/app/embeddedPostgres.ts";

/*
 * A PostgreSQL server of one test's own, for faults that hit the whole server (a restart): the
 * shared server at 127.0.0.1:5432 serves every other test and must never be stopped.
 */

export interface PrivatePostgres {
  url: string;
  port: number;
  /** Fast shutdown: every connection is terminated, as in a restart or a failover. */
  stop(): Promise<void>;
  /** Starts the server again on the same data and port. */
  start(): Promise<void>;
  /** Stops the server and deletes its data. */
  remove(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-fault-pg-"));
  const dataDir = path.join(dir, "pg");
  const port = await freePort();
  let running: EmbeddedDatabase | null = await startEmbeddedPostgres(dataDir, port);
  const url = running.url;
  const stop = async () => {
    const current = running;
    running = null;
    await current?.stop();
  };
  return {
    url,
    port,
    stop,
    async start() {
      if (!running) running = await startEmbeddedPostgres(dataDir, port);
    },
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address !== "object") throw new Error("no free port");
  return address.port;
}
