import { fileURLToPath } from "node:url";
import { dropTestDatabases } from "../test/support/database.ts";
import { printTable, writeResults, type BenchResult } from "./results.ts";

/**
 * `npm run bench [-- group …]`: every group unless some are named. Each group's modules are loaded
 * when it runs, so one group's libraries (playwright-core, echarts, exceljs) do not count in
 * another's RSS figures.
 */
const groups: Record<string, () => Promise<BenchResult[]>> = {
  append: async () => (await import("./append.ts")).appendBenchmarks(),
  projection: async () => (await import("./projection.ts")).projectionBenchmarks(),
  ingest: async () => (await import("./ingest.ts")).ingestBenchmarks(),
  reports: async () => (await import("./reports.ts")).reportBenchmarks(),
  docx: async () => (await import("./docxExport.ts")).docxExportBenchmarks(),
  xlsx: async () => (await import("./xlsxExport.ts")).xlsxExportBenchmarks(),
  embed: async () => (await import("./embed.ts")).embedBenchmarks(),
  soak: async () => (await import("./soak.ts")).soakBenchmarks(),
};
/** Groups that run only when named: the soak takes ten minutes. */
const onlyWhenNamed = new Set(["soak"]);

const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = chosen.filter((name) => !(name in groups));
if (unknown.length) {
  console.error(`unknown benchmark group ${unknown.join(", ")}; known: ${Object.keys(groups).join(", ")}`);
  process.exit(2);
}

const results: BenchResult[] = [];
try {
  for (const [name, run] of Object.entries(groups)) {
    if (chosen.length ? !chosen.includes(name) : onlyWhenNamed.has(name)) continue;
    console.error(`running ${name} …`);
    results.push(...(await run()));
  }
} finally {
  await dropTestDatabases();
}
printTable(results);
const out = fileURLToPath(new URL("./results.json", import.meta.url));
writeResults(out, results);
console.log(`\nwritten to ${out}`);
