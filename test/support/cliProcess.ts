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

/** `node <args>` with the test's environment and `env` besides, to its exit: its code and what it printed. */
export function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
