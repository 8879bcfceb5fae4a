import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import pg from "pg";
import { freePort } from "../support/privatePostgres.ts";
import { until } from "../support/service.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";

/*
 * What a person gets from `npm start` on a machine with no database configured: an embedded
 * PostgreSQL under DATA_DIR, migrated, serving; and a clean stop on SIGTERM. Contract E.3: the
 * secrets made for it (the ADMIN_TOKEN, the PostgreSQL superuser's password, the demo keys) are
 * in files only this OS user may read, named on the console, and never printed themselves.
 */
describe("npm start without DATABASE_URL", () => {
  let child: ChildProcess;
  let output = "";
  let exited: Promise<number | null>;
  let port: number;
  let pgPort: number;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-start-"));
  // What the child printed, so a start that fails says why instead of only timing out.
  const printed = () => `the service printed:\n${output || "(nothing)"}`;
  const secretFile = (name: string) => {
    const file = path.join(dataDir, name);
    expect(existsSync(file), `${file} exists`).to.equal(true);
    expect(statSync(file).mode & 0o777, `${name} is readable by its owner only`).to.equal(0o600);
    expect(output, `the console names ${name}`).to.include(path.resolve(file));
    return readFileSync(file, "utf8");
  };

  before(async function () {
    this.timeout(5000);
    // Ports the OS says are free now: fixed ones can be taken by anything else on a CI machine.
    port = await freePort();
    pgPort = await freePort();
    // Logging as a newcomer's first start does: at info, no LOG_FORMAT.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
    };
    for (const name of ["DATABASE_URL", "ADMIN_TOKEN", "LOG_LEVEL", "LOG_FORMAT"]) delete env[name];
    child = spawn(process.execPath, [SERVER_ENTRY, "start"], { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  });

  after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is ready within 60 s with its data in DATA_DIR and prints where to find it", async function () {
    this.timeout(70_000);
    await until(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`the service exited with ${child.exitCode} before it was ready; ${printed()}`);
        return (await fetch(`http://localhost:${port}/readyz`).catch(() => null))?.status === 200;
      },
      60_000,
      250,
    ).catch((error: Error) => {
      throw new Error(error.message.includes(printed()) ? error.message : `${error.message}; ${printed()}`);
    });
    expect(existsSync(path.join(dataDir, "pg", "PG_VERSION"))).to.equal(true);
    expect(output).to.include(`http://localhost:${port}/readyz`);
    const token = secretFile("admin-token").trim();
    expect(output, "the ADMIN_TOKEN is not printed").not.to.include(token);
    const projections = await fetch(`http://localhost:${port}/api/admin/projections`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(projections.status).to.equal(200);
  });

  it("generated its PostgreSQL superuser's password, which is never printed; postgres/postgres is refused", async function () {
    this.timeout(10_000);
    const password = secretFile("pg-password").trim();
    expect(password.length, "a generated password").to.be.at.least(20);
    expect(output, "the superuser's password is not printed").not.to.include(password);
    const connect = async (user: string, secret: string) => {
      const client = new pg.Client({
        host: "127.0.0.1",
        port: pgPort,
        user,
        password: secret,
        database: "dialysis_hub",
        connectionTimeoutMillis: 3000,
      });
      try {
        await client.connect();
        return (await client.query<{ who: string }>("select current_user as who")).rows[0]!.who;
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      } finally {
        await client.end().catch(() => {});
      }
    };
    expect(await connect("postgres", password)).to.equal("postgres");
    expect(await connect("postgres", "postgres")).to.match(/^refused: password authentication failed/);
  });

  it("loads the demo, whose reports export as xlsx and docx (the build's lazily loaded parts)", async function () {
    this.timeout(90_000);
    const credentialsFile = path.join(dataDir, "demo-credentials.json");
    await until(async () => existsSync(credentialsFile), 80_000, 250).catch((error: Error) => {
      throw new Error(`${error.message}: no demo credentials; ${printed()}`);
    });
    await until(async () => output.includes("Demo data loaded"), 5000).catch(() =>
      expect.fail(`no line says the demo is loaded; ${printed()}`),
    );
    const { authorToken, clientKey, reports } = JSON.parse(secretFile("demo-credentials.json")) as {
      authorToken: string;
      clientKey: string;
      reports: string[];
    };
    // The demo loader's ~290 requests are its own, logged at debug: the keys and URLs stay in view.
    const ours = /"path":"\/(readyz|api\/admin\/projections)"/; // this test's own calls
    const requestLines = output.split("\n").filter((line) => line.includes('"msg":"request"') && !ours.test(line));
    expect(requestLines, "access-log lines of the demo loader's requests").to.deep.equal([]);
    expect(output.trimEnd().split("\n").length, printed()).to.be.below(40);
    expect(output, "the demo author's token is not printed").not.to.include(authorToken);
    expect(output, "the demo laboratory's key is not printed").not.to.include(clientKey);
    const headers = {
      authorization: `Bearer ${authorToken}`,
      "x-service-tenant": "demo",
      "content-type": "application/json",
    };
    const zipSignature = Buffer.from("PK\x03\x04", "latin1");
    for (const format of ["xlsx", "docx"]) {
      const answer = await fetch(`http://localhost:${port}/api/reports/${reports[0]}/export/${format}`, {
        method: "POST",
        headers,
        body: "{}",
      });
      const body = Buffer.from(await answer.arrayBuffer());
      expect(answer.status, `${format}: ${body.toString("utf8", 0, 300)}`).to.equal(200);
      expect(body.subarray(0, 4).equals(zipSignature), `${format} is an Office (zip) file`).to.equal(true);
    }
  });

  it("stops cleanly on SIGTERM, taking its PostgreSQL with it", async function () {
    this.timeout(30_000);
    expect(child.exitCode, `the service had already stopped; ${printed()}`).to.equal(null);
    child.kill("SIGTERM");
    expect(await exited, printed()).to.equal(0);
    expect(
      existsSync(path.join(dataDir, "pg", "postmaster.pid")),
      "PostgreSQL removed its pid file on a clean stop",
    ).to.equal(false);
  });
});
