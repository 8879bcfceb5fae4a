// `npm run cli` and `npm start`: the command line from dist/, built first only when a source it
// bundles changed since the last build (dist/build-inputs.json, src/buildServer.ts). Plain
// JavaScript, so that an unchanged tree starts without loading tsx or esbuild: a build on every
// command took 1.7 to 3.8 s where the command itself answers --help in 0.2 s (issue #53).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";

const root = new URL("../../", import.meta.url);
const at = (file) => new URL(file, root);

function outdated() {
  if (!existsSync(at("dist/cli.js")) || !existsSync(at("dist/build-inputs.json"))) return true;
  const { builtAt, inputs } = JSON.parse(readFileSync(at("dist/build-inputs.json"), "utf8"));
  // A source changed, or gone (a rename), since the build began.
  return inputs.some((input) => !existsSync(at(input)) || statSync(at(input)).mtimeMs > builtAt);
}

if (outdated()) {
  const built = spawnSync(process.execPath, ["--import", "tsx", "src/buildServer.ts"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import(at("dist/cli.js").href);
