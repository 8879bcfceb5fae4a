import type { BenchResult } from "./results.ts";

/**
 * The `quality` group (issue #55): the month's quality figures on a big store, a restatement after
 * late results, and what closing months costs ingestion. Each file of the group gives its figures
 * by one function, listed here; they run one after another in the group's process, each starting
 * and stopping its own services.
 */
const parts: Array<() => Promise<BenchResult[]>> = [
  async () => (await import("./qualityMonths.ts")).qualityMonthBenchmarks(),
  async () => (await import("./qualityCloseCost.ts")).qualityCloseCostBenchmarks(),
  async () => (await import("./qualityBulk.ts")).qualityBulkBenchmarks(),
];

export async function qualityBenchmarks(): Promise<BenchResult[]> {
  const figures: BenchResult[] = [];
  for (const part of parts) {
    const got = await part();
    // Each part takes minutes to an hour: its figures are shown as it ends, lest a later part's failure lose them.
    for (const figure of got) console.error(`  ${JSON.stringify(figure)}`);
    figures.push(...got);
  }
  return figures;
}
