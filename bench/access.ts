import type { BenchResult } from "./results.ts";

/**
 * The `access` group (issue #51): who sees what, and how soon it ends. Each file of the group
 * gives its figures by one function, listed here; they run one after another in the group's
 * process, each starting and stopping its own services.
 */
const parts: Array<() => Promise<BenchResult[]>> = [
  async () => (await import("./accessRevocation.ts")).accessRevocationBenchmarks(),
  async () => (await import("./accessWardReport.ts")).accessWardReportBenchmarks(),
];

export async function accessBenchmarks(): Promise<BenchResult[]> {
  const figures: BenchResult[] = [];
  for (const part of parts) figures.push(...(await part()));
  return figures;
}
