import { spawn } from "node:child_process";
import { projectFile } from "../db/projectFiles.ts";
import { buildServer, SERVER_ENTRY } from "../src/buildServer.ts";
import { median, result, type BenchResult } from "./results.ts";

/** The target is the p50 of five runs. */
const RUNS = 5;

/**
 * `web.cli_help_ms` (issue #34, target ≤ 500 ms p50 of 5): `node dist/cli.js --help` from spawn
 * to exit, the built command line as `npm run cli` runs it. Baseline, the same run, alternated run
 * by run so that whatever else the machine does falls on both alike: `node -e 0`, the least any
 * Node process costs to start and end here; the ratio is what the help costs beyond that floor.
 * `web.cli_npm_help_ms` (issue #53, target ≤ 2× the first): `npm run cli -- --help` on an
 * unchanged tree (it builds only when a source changed, src/app/freshCli.mjs), beside it; the note
 * adds `npm run` of a script that only starts node, npm's own share.
 */
export async function cliHelpBenchmarks(): Promise<BenchResult[]> {
  await buildServer();
  const help = () => timed(process.execPath, [SERVER_ENTRY, "--help"]);
  const floor = () => timed(process.execPath, ["-e", "0"]);
  await help(); // warm-up: the files read once into the page cache
  await floor();
  const helps: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    helps.push(await help());
    floors.push(await floor());
  }
  const npmRuns: number[] = [];
  const npmFloors: number[] = [];
  await timed("npm", ["run", "--silent", "cli", "--", "--help"]); // builds now if a source changed
  for (let i = 0; i < RUNS; i++) {
    npmRuns.push(await timed("npm", ["run", "--silent", "cli", "--", "--help"]));
    npmFloors.push(await timed("npm", ["run", "--silent", "env"]));
  }
  const ms = (values: number[]) => values.map((value) => Math.round(value)).join(", ");
  const note =
    `\`node dist/cli.js --help\` spawn to exit, p50 of ${RUNS} after a warm-up (runs ${ms(helps)} ms); baseline ` +
    `\`node -e 0\` alternated with it (runs ${ms(floors)} ms); target <= 500 ms (issue #34)`;
  const npmNote =
    `\`npm run cli -- --help\` on an unchanged tree, p50 of ${RUNS} (runs ${ms(npmRuns)} ms); baseline the help ` +
    `above; npm's own share, \`npm run env\` (a script npm runs itself, no node started): p50 ` +
    `${Math.round(median(npmFloors))} ms (runs ${ms(npmFloors)}); target <= 2x the baseline (issue #53)`;
  return [
    result("web.cli_help_ms", median(helps), "ms", median(floors), note),
    result("web.cli_npm_help_ms", median(npmRuns), "ms", median(helps), npmNote),
  ];
}

/** Milliseconds from spawning the command until it exits; a failing command fails the benchmark. */
async function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: projectFile(), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const elapsed = performance.now() - started;
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}: ${stderr}`);
  return elapsed;
}
