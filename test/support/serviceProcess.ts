import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createPool, type Db } from "../../db/pool.ts";
import type { Role } from "../../src/app/service.ts";
import { TEST_ADMIN_TOKEN, until } from "./service.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";

/*
 * The service as production runs it: its own operating-system process started by the command
 * line, so that a test can kill it (-9 included) and start it again on the same database.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const KEPT_OUTPUT_LINES = 200;

export interface ServiceProcess {
  role: Role;
  pid: number;
  /** The HTTP base URL; null for a worker-only process. */
  url: string | null;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** The last lines the process wrote, for a failing test's message. */
  output(): string;
  /** kill -9: no shutdown hooks, connections cut as the kernel closes them. */
  kill(): Promise<void>;
  /** SIGTERM and wait: the graceful shutdown an orchestrator would ask for. */
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  databaseUrl: string;
  role?: Role;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Options for node itself, before the script (`--cpu-prof`). */
  nodeOptions?: string[];
}

/** Starts `node dist/cli.js start` (the build, as `npm start` runs it) and resolves once it is ready (/readyz 200, or the worker's welcome line). */
export async function spawnService({
  databaseUrl,
  role = "all",
  env = {},
  readyTimeoutMs = 90_000,
  nodeOptions = [],
}: ServiceProcessOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeOptions, SERVER_ENTRY, "start", "--role", role], {
    cwd: repoRoot,
    env: {
      ...withoutServiceSettings(process.env),
      DATABASE_URL: databaseUrl,
      PORT: "0",
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: "warn",
      PROJECTION_SAFETY_NET_MS: "1000",
      OPEN_API_RATE_PER_SECOND: "100000",
      OPEN_API_BURST: "100000",
      SHUTDOWN_GRACE_MS: "2000",
      // As npm start sets it (operations.md: memory).
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (lines.length > KEPT_OUTPUT_LINES) lines.splice(0, lines.length - KEPT_OUTPUT_LINES);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const output = () => lines.join("\n");

  const welcome = new RegExp(`Dialysis Hub is running \\(role: ${role}\\)`);
  let url: string | null = null;
  try {
    await until(
      async () => {
        if (ended) throw new Error(`the ${role} process exited before it was ready:\n${output()}`);
        if (!welcome.test(output())) return false;
        if (role === "worker") return true;
        url ??= output().match(/Health:\s+(http:\/\/localhost:\d+)\/healthz/)?.[1] ?? null;
        if (!url) return false;
        return (await fetch(`${url}/readyz`).catch(() => null))?.status === 200;
      },
      readyTimeoutMs,
      100,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n--- ${role} process output ---\n${output()}`, { cause: error });
  }

  const signalAndWait = async (signal: NodeJS.Signals) => {
    if (!ended) child.kill(signal);
    await exited;
  };
  return {
    role,
    pid: child.pid!,
    url,
    exited,
    output,
    kill: () => signalAndWait("SIGKILL"),
    stop: () => signalAndWait("SIGTERM"),
  };
}

/** The test process's own service settings (a DATABASE_URL, data sources) must not leak into the child. */
function withoutServiceSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^(DATABASE_URL|DATASOURCE_.*_URL|PORT|LOG_LEVEL|ADMIN_TOKEN)$/.test(name)),
  );
}

/** Ends every process still running: for a suite's `after`, whatever state a failed test left. */
async function stopAll(processes: Array<ServiceProcess | null | undefined>): Promise<void> {
  await Promise.all(processes.flatMap((service) => (service ? [service.kill()] : [])));
}

/** A suite's `afterEach`: when a test failed, prints the last output of each of the processes, to read the failure against. */
function printOutputWhenTestFails(processes: () => Array<ServiceProcess | null | undefined>): void {
  afterEach(function () {
    if (this.currentTest?.state !== "failed") return;
    for (const p of processes()) if (p) console.log(`--- ${p.role} ${p.pid} ---\n${p.output()}`);
  });
}

export interface ServiceProcesses {
  /** The database the processes run on, once the suite's `before` has made it. */
  databaseUrl: string;
  /** A small pool of the test's own on it, to check what the processes stored. */
  db: Db;
  /** Every process spawned, killed or not. */
  processes: ServiceProcess[];
  /** Starts a process on the suite's database (or on `databaseUrl` given, a proxy in front of it). */
  spawn(options?: Partial<ServiceProcessOptions>): Promise<ServiceProcess>;
}

/**
 * A suite's fixture for service processes: `database` (a new test database, a private server)
 * made before its tests, with a pool on it; each process `spawn`ed is kept, its output printed when
 * a test fails, and killed after the suite, before the pool ends.
 */
export function useServiceProcesses(database: () => Promise<string>): ServiceProcesses {
  const fixture: ServiceProcesses = {
    databaseUrl: "",
    db: undefined as unknown as Db,
    processes: [],
    async spawn(options = {}) {
      const started = await spawnService({ databaseUrl: fixture.databaseUrl, ...options });
      fixture.processes.push(started);
      return started;
    },
  };
  before(async () => {
    fixture.databaseUrl = await database();
    fixture.db = createPool(fixture.databaseUrl, { max: 2 });
  });
  printOutputWhenTestFails(() => fixture.processes);
  after(async () => {
    await stopAll(fixture.processes);
    await fixture.db?.end();
  });
  return fixture;
}
