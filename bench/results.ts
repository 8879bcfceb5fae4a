import { writeFileSync } from "node:fs";

/** One figure of `bench/results.json`: ours, and where there is one, the baseline measured beside it. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  note?: string;
}

/**
 * A figure, and the baseline measured beside it where there is one: a number, and the ratio is
 * value / baseline; or `{ value, ratio }` for a ratio of another kind (a time given as baseline /
 * ours, an overhead whose whole time is compared).
 */
export function result(
  name: string,
  value: number,
  unit: string,
  baseline?: number | { value: number; ratio: number },
  note?: string,
): BenchResult {
  const round = (n: number) => Math.round(n * 100) / 100;
  const compared = typeof baseline === "number" ? { value: baseline, ratio: value / baseline } : baseline;
  return {
    name,
    value: round(value),
    unit,
    ...(compared ? { baseline: round(compared.value), ratio: Math.round(compared.ratio * 1000) / 1000 } : {}),
    ...(note ? { note } : {}),
  };
}

export function printTable(results: BenchResult[]): void {
  const rows = results.map((r) => [
    r.name,
    `${r.value}`,
    r.unit,
    r.baseline === undefined ? "" : `${r.baseline}`,
    r.ratio === undefined ? "" : `${r.ratio}`,
  ]);
  const header = ["benchmark", "value", "unit", "baseline", "ratio"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 || i === 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
  for (const r of results.filter((r) => r.note)) console.log(`  ${r.name}: ${r.note}`);
}

export function writeResults(path: string, results: BenchResult[]): void {
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
