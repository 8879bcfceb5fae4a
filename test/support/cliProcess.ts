import { spawn } from "node:child_process";
import { SERVER_ENTRY } from "../../src/buildServer.ts";

/* The real command line, as an operator runs it, against a database of the test's choosing. */

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(databaseUrl: string, ...args: string[]): Promise<CliRun> {
  return runNode([SERVER_ENTRY, ...args], { DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" });
}

/**
 * The command line of a default install (`npm install && npm start`): no DATABASE_URL, the
 * embedded PostgreSQL kept in `dataDir` on `port` (the running service's, else one the command starts).
 */
export function cliOnEmbedded(dataDir: string, port: number, ...args: string[]): Promise<CliRun> {
  return runNode([SERVER_ENTRY, ...args], {
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(port),
    LOG_LEVEL: "warn",
  });
}

/**
 * `node <args>` with the test's environment and `env` besides (a name set to undefined is left
 * out), to its exit: its code and what it printed. Killed after `timeoutMs` when given (code null).
 */
export function runNode(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<CliRun> {
  const merged = { ...process.env, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const child = spawn(process.execPath, args, { env: merged, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = timeoutMs ? setTimeout(() => child.kill("SIGKILL"), timeoutMs) : null;
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
