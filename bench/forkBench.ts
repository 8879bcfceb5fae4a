import { fork, type ChildProcess } from "node:child_process";

/**
 * Starts a benchmark module in a child process of its own, with an IPC channel for its figures.
 * `--cpu-prof…` flags are passed on, so `node --cpu-prof --import tsx bench/run.ts <group>`
 * profiles the children too.
 */
export function forkBench(modulePath: string, args: readonly string[] = []): ChildProcess {
  const profiling = process.execArgv.filter((arg) => arg.startsWith("--cpu-prof"));
  return fork(modulePath, args, { execArgv: [...profiling, "--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
}
