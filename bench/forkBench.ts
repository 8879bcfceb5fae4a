import { fork, type ChildProcess } from "node:child_process";

/**
 * Starts a benchmark module in a child process of its own, with an IPC channel for its figures.
 * `--cpu-prof…` flags are passed on, so `node --cpu-prof --import tsx bench/run.ts <group>`
 * profiles the children too (and the service the ingest group starts).
 */
export function forkBench(modulePath: string, args: readonly string[] = []): ChildProcess {
  return fork(modulePath, args, {
    execArgv: [...profilingFlags(), "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** This process's `--cpu-prof…` flags, for the processes it starts. */
export function profilingFlags(): string[] {
  return process.execArgv.filter((arg) => arg.startsWith("--cpu-prof"));
}
