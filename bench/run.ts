import { forkBench } from "./forkBench.ts";
import { fileURLToPath } from "node:url";
import { chromiumMissing } from "../test/browser/chromiumPath.ts";
import { postgresBinaries } from "../test/support/replicatedPostgres.ts";
import { dropTestDatabases } from "../test/support/database.ts";
import { printTable, writeResults, type BenchResult } from "./results.ts";

/**
 * `npm run bench [-- group …]`: every group unless some are named. Each group runs in a process of
 * its own, so one group's libraries and leftovers (playwright-core, echarts, exceljs, a heap grown
 * by an earlier group) do not count in another's RSS figures. A group whose tools this machine
 * lacks is skipped with the reason, and one that fails does not take the others' figures with it.
 */
interface Group {
  run: () => Promise<BenchResult[]>;
  /** Why the group cannot run on this machine, or null. Checked before its process starts. */
  cannotRunBecause?: () => string | null;
}

const groups: Record<string, Group> = {
  append: { run: async () => (await import("./append.ts")).appendBenchmarks() },
  projection: { run: async () => (await import("./projection.ts")).projectionBenchmarks() },
  ingest: { run: async () => (await import("./ingest.ts")).ingestBenchmarks() },
  bulk: { run: async () => (await import("./bulk.ts")).bulkBenchmarks() },
  floor: { run: async () => (await import("./floor.ts")).floorBenchmarks() },
  growth: { run: async () => (await import("./growth.ts")).growthBenchmarks() },
  remap: { run: async () => (await import("./remap.ts")).remapBenchmarks() },
  derived: { run: async () => (await import("./derived.ts")).derivedBenchmarks() },
  reports: { run: async () => (await import("./reports.ts")).reportBenchmarks() },
  reconcile: { run: async () => (await import("./reconcile.ts")).reconcileBenchmarks() },
  ledger: { run: async () => (await import("./ledger.ts")).ledgerBenchmarks() },
  docx: { run: async () => (await import("./docxExport.ts")).docxExportBenchmarks() },
  xlsx: { run: async () => (await import("./xlsxExport.ts")).xlsxExportBenchmarks() },
  embed: { run: async () => (await import("./embed.ts")).embedBenchmarks(), cannotRunBecause: chromiumMissing },
  editor: { run: async () => (await import("./editor.ts")).editorBenchmarks(), cannotRunBecause: chromiumMissing },
  soak: { run: async () => (await import("./soak.ts")).soakBenchmarks() },
  hl7: { run: async () => (await import("./hl7.ts")).hl7Benchmarks() },
  fhir: { run: async () => (await import("./fhir.ts")).fhirBenchmarks() },
  alerts: { run: async () => (await import("./alerts.ts")).alertBenchmarks(), cannotRunBecause: chromiumMissing },
  /** Issue #56: escalation mail latency and what a policy costs ingestion (alerts.* figures, no chromium needed). */
  escalation: { run: async () => (await import("./escalation.ts")).escalationBenchmarks() },
  defence: {
    run: async () => [
      ...(await (await import("./defence.ts")).defenceBenchmarks()),
      ...(await (await import("./defenceReadersKeepUp.ts")).readersKeepUpBenchmarks()),
    ],
  },
  /** The part of `defence` on readers keeping up (issue #52), alone. */
  "defence-readers": { run: async () => (await import("./defenceReadersKeepUp.ts")).readersKeepUpBenchmarks() },
  /** The part of `defence` on paged lists (issue #52), alone. */
  "defence-lists": { run: async () => (await import("./defenceLists.ts")).unmatchedUnderCallers() },
  identity: { run: async () => (await import("./identity.ts")).identityBenchmarks() },
  access: { run: async () => (await import("./access.ts")).accessBenchmarks() },
  quality: { run: async () => (await import("./quality.ts")).qualityBenchmarks() },
  cli: { run: async () => (await import("./cliHelp.ts")).cliHelpBenchmarks() },
  failover: {
    run: async () => (await import("./failover.ts")).failoverBenchmarks(),
    cannotRunBecause: () =>
      postgresBinaries() ? null : "no PostgreSQL server binaries with pg_basebackup (apt-get install postgresql)",
  },
};
/**
 * Groups that run only when named: the soak takes ten minutes, growth and quality build a store of
 * two million reports (hours on two cores); defence-readers and defence-lists are parts of defence, alone.
 */
const onlyWhenNamed = new Set(["soak", "growth", "quality", "defence-readers", "defence-lists"]);

const self = fileURLToPath(import.meta.url);
const GROUP_FLAG = "--group-process";

/** Runs one group in a child process of this script and resolves with its figures. */
function runInOwnProcess(name: string): Promise<BenchResult[]> {
  const child = forkBench(self, [GROUP_FLAG, name]);
  return new Promise((resolve, reject) => {
    let figures: BenchResult[] | null = null;
    child.on("message", (message) => (figures = message as BenchResult[]));
    child.on("error", reject);
    child.on("exit", (code) =>
      figures && code === 0
        ? resolve(figures)
        : reject(new Error(`benchmark group ${name} failed (exit code ${code})`)),
    );
  });
}

async function runGroupHere(name: string): Promise<void> {
  try {
    const figures = await groups[name]!.run();
    await new Promise<void>((resolve) => process.send!(figures, () => resolve()));
  } finally {
    await dropTestDatabases();
  }
}

async function main(): Promise<void> {
  const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
  const unknown = chosen.filter((name) => !(name in groups));
  if (unknown.length) {
    console.error(`unknown benchmark group ${unknown.join(", ")}; known: ${Object.keys(groups).join(", ")}`);
    process.exit(2);
  }
  const results: BenchResult[] = [];
  const notRun: string[] = [];
  for (const name of Object.keys(groups)) {
    if (chosen.length ? !chosen.includes(name) : onlyWhenNamed.has(name)) continue;
    const reason = groups[name]!.cannotRunBecause?.();
    if (reason) {
      console.error(`skipping ${name}: ${reason}`);
      notRun.push(`${name} skipped: ${reason}`);
      continue;
    }
    console.error(`running ${name} …`);
    try {
      results.push(...(await runInOwnProcess(name)));
    } catch (error) {
      console.error((error as Error).message);
      notRun.push(`${name} failed: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
  printTable(results);
  for (const line of notRun) console.log(`  ${line}`);
  const out = process.env.BENCH_RESULTS ?? fileURLToPath(new URL("./results.json", import.meta.url));
  writeResults(out, results);
  console.log(`\nwritten to ${out}`);
}

const groupIndex = process.argv.indexOf(GROUP_FLAG);
if (groupIndex >= 0) await runGroupHere(process.argv[groupIndex + 1]!);
else await main();
