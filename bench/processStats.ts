import { readFileSync, writeFileSync } from "node:fs";

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

/**
 * Starts a new peak for `peakResidentBytes` (Linux ≥ 4.0: writing 5 to clear_refs resets VmHWM);
 * false where that is not allowed.
 */
export function resetPeakResident(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** The highest resident set size since the process started or since `resetPeakResident` (VmHWM), in bytes. */
export function peakResidentBytes(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmHWM for process ${pid}`);
  return Number(kb) * 1024;
}
