import { readFileSync, writeFileSync } from "node:fs";

/*
 * Another process's resident memory (the service under test), read from Linux's /proc as `ps`
 * reads it. The benchmarks keep their own copy (bench/processStats.ts).
 */

const MB = 1024 * 1024;

function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no ${field} for process ${pid}`);
  return (Number(kb) * 1024) / MB;
}

/** Resident set size now, in MB. */
export function residentMb(pid: number): number {
  return statusField(pid, "VmRSS");
}

/**
 * The process's peak resident set size while `work` runs, in MB: its VmHWM, reset before (Linux ≥ 4.0,
 * writing 5 to clear_refs), or where that is not allowed its RSS sampled every 10 ms.
 */
export async function peakResidentMbDuring<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ value: T; peakMb: number }> {
  let exact = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    exact = false;
  }
  let peak = residentMb(pid);
  const timer = exact ? null : setInterval(() => (peak = Math.max(peak, residentMb(pid))), 10);
  try {
    const value = await work();
    return { value, peakMb: exact ? statusField(pid, "VmHWM") : Math.max(peak, residentMb(pid)) };
  } finally {
    if (timer) clearInterval(timer);
  }
}
