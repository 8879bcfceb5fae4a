import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runNode } from "./cliProcess.ts";

/*
 * Which packages a Node process imports: a module resolve hook (node:module `register`) notes
 * every bare specifier that is not a Node built-in in a file, one a line. Written synchronously
 * from the hooks' thread, so a process that ends with process.exit (as commander's --help does)
 * loses none.
 */

const HOOKS = `
import { appendFileSync } from "node:fs";
import { isBuiltin } from "node:module";
export async function resolve(specifier, context, next) {
  if (!/^(\\.|\\/|file:|data:)/.test(specifier) && !isBuiltin(specifier)) {
    const parts = specifier.split("/");
    appendFileSync(process.env.PACKAGES_LOADED_FILE, (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/") + "\\n");
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

export interface RunWithPackages {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The packages the process imported, each once, sorted. */
  packages: string[];
}

export async function runNoting(file: string, args: string[]): Promise<RunWithPackages> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-packages-"));
  const log = path.join(dir, "packages");
  try {
    const { code, stdout, stderr } = await runNode(
      ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, file, ...args],
      { PACKAGES_LOADED_FILE: log },
    );
    let noted = "";
    try {
      noted = readFileSync(log, "utf8");
    } catch {
      // nothing was imported by name
    }
    return { code, stdout, stderr, packages: [...new Set(noted.split("\n").filter(Boolean))].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
