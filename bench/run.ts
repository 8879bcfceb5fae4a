import { fileURLToPath } from "node:url";
import { dropTestDatabases } from "../test/support/database.ts";
import { appendBenchmarks } from "./append.ts";
import { docxExportBenchmarks } from "./docxExport.ts";
import { embedBenchmarks } from "./embed.ts";
import { ingestBenchmarks } from "./ingest.ts";
import { projectionBenchmarks } from "./projection.ts";
import { reportBenchmarks } from "./reports.ts";
import { xlsxExportBenchmarks } from "./xlsxExport.ts";
import { printTable, writeResults, type BenchResult } from "./results.ts";

/** `npm run bench [-- group …]`: every group unless some are named. */
const groups: Record<string, () => Promise<BenchResult[]>> = {
  append: appendBenchmarks,
  projection: projectionBenchmarks,
  ingest: ingestBenchmarks,
  reports: reportBenchmarks,
  docx: docxExportBenchmarks,
  xlsx: xlsxExportBenchmarks,
  embed: embedBenchmarks,
};

const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = chosen.filter((name) => !(name in groups));
if (unknown.length) {
  console.error(`unknown benchmark group ${unknown.join(", ")}; known: ${Object.keys(groups).join(", ")}`);
  process.exit(2);
}

const results: BenchResult[] = [];
try {
  for (const [name, run] of Object.entries(groups)) {
    if (chosen.length && !chosen.includes(name)) continue;
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
