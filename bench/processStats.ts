import { readFileSync } from "node:fs";

/*
 * Resident memory and CPU time of another process (the service under benchmark), read from Linux's
 * /proc as `ps` and `top` read them.
 */

/** Linux reports CPU times in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** Resident set size in bytes (VmRSS). */
export function residentBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** CPU time spent so far, user and system, in milliseconds. */
export function cpuMilliseconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}
