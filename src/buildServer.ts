import { build } from "esbuild";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { projectFile } from "../db/projectFiles.ts";
import { WORKER_ENTRIES } from "./reports/export/workerPool.ts";

/*
 * The service runs from a build, `dist/cli.js`: the TypeScript sources bundled into plain
 * JavaScript, packages left to node_modules. Run from the sources through tsx, every process also
 * carried tsx's loader thread and its transformed modules: about 40 MB more resident memory
 * (90 MB against 130 MB for an idle service) and a slower start. The export modules stay chunks of
 * their own, loaded on the first export as before.
 *
 * `npm start` and `npm run cli` build first when a source the build read changed since it began
 * (src/app/freshCli.mjs reads dist/build-inputs.json); tests and benchmarks that start the service
 * as a process build before they start it.
 */

export const SERVER_ENTRY = projectFile("dist", "cli.js");

export async function buildServer(): Promise<void> {
  // Before any source is read: one saved during the build is newer, and the next start builds again.
  const builtAt = Date.now();
  const { metafile } = await build({
    absWorkingDir: projectFile(),
    // Worker threads run modules of their own, found as dist/<name>.js (src/reports/export/workerPool.ts).
    entryPoints: { cli: "src/app/cli.ts", ...WORKER_ENTRIES },
    outdir: "dist",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
    metafile: true,
  });
  // Chunks are named by their content: those of earlier builds would pile up.
  const built = new Set(Object.keys(metafile.outputs).map((file) => path.basename(file)));
  for (const file of readdirSync(projectFile("dist")))
    if (!built.has(file) && file !== BUILD_INPUTS) rmSync(projectFile("dist", file));
  writeFileSync(projectFile("dist", BUILD_INPUTS), JSON.stringify({ builtAt, inputs: Object.keys(metafile.inputs) }));
}

/** What the last build read, and when it began (src/app/freshCli.mjs). */
const BUILD_INPUTS = "build-inputs.json";

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
