import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { createPool, type Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { clientById } from "../../queries/credentials/credentials.ts";
import { authorByToken, clientByKey } from "../support/credentials.ts";
import { listPatients } from "../../queries/patients/patients.ts";
import { createTestDatabase } from "../support/database.ts";
import { cli } from "../support/cliProcess.ts";

/* The real command line, as an operator runs it, against a database of its own. */

describe("command line", () => {
  let databaseUrl: string;
  let db: Db;
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-cli-"));

  before(async () => {
    databaseUrl = await createTestDatabase();
    db = createPool(databaseUrl, { max: 2 });
  });
  after(async () => {
    await db?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keys create prints a working key once; keys revoke stops it", async function () {
    this.timeout(30_000);
    const created = await cli(databaseUrl, "keys", "create", "--tenant", "north", "--name", "Central lab LIS");
    expect(created.code, created.stderr).to.equal(0);
    const { clientId, key } = JSON.parse(created.stdout) as { clientId: string; key: string };
    expect(await clientByKey(db, key)).to.deep.include({ clientId, name: "Central lab LIS", tenant: "north" });

    const revoked = await cli(databaseUrl, "keys", "revoke", clientId);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.include(clientId);
    expect(await clientByKey(db, key)).to.equal(null);
    expect(await clientById(db, clientId)).to.include({ revoked: true });
  });

  it("keys rotate and authors create, rotate and revoke (contract E.3); a bad number names its option", async function () {
    this.timeout(120_000); // six runs of the command line
    const client = JSON.parse(
      (
        await cli(
          databaseUrl,
          "keys",
          "create",
          "--tenant",
          "north",
          "--name",
          "Rotated LIS",
          "--expires-in-days",
          "30",
        )
      ).stdout,
    ) as { clientId: string; key: string };
    const rotatedKey = await cli(databaseUrl, "keys", "rotate", client.clientId, "--overlap-hours", "0");
    expect(rotatedKey.code, rotatedKey.stderr).to.equal(0);
    const { key } = JSON.parse(rotatedKey.stdout) as { key: string };
    expect(await clientByKey(db, key)).to.include({ clientId: client.clientId });
    expect(await clientByKey(db, client.key), "the former key, with no overlap").to.equal(null);

    const created = await cli(
      databaseUrl,
      "authors",
      "create",
      "--tenant",
      "north",
      "--name",
      "Dr. Lin",
      "--expires-in-days",
      "0.5",
    );
    expect(created.code, created.stderr).to.equal(0);
    const author = JSON.parse(created.stdout) as { authorId: string; token: string };
    expect(await authorByToken(db, author.token)).to.include({ authorId: author.authorId, name: "Dr. Lin" });
    const rotated = await cli(databaseUrl, "authors", "rotate", author.authorId);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stderr).to.include("The former token works 24 hours more");
    const { token } = JSON.parse(rotated.stdout) as { token: string };
    for (const working of [author.token, token])
      expect(await authorByToken(db, working), "both tokens within the overlap").not.to.equal(null);

    const revoked = await cli(databaseUrl, "authors", "revoke", author.authorId);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.include(`Revoked author ${author.authorId} (Dr. Lin, tenant north)`);
    for (const refused of [author.token, token]) expect(await authorByToken(db, refused)).to.equal(null);

    const bad = await cli(
      databaseUrl,
      "authors",
      "create",
      "--tenant",
      "north",
      "--name",
      "x",
      "--expires-in-days",
      "ten",
    );
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include("--expires-in-days: expiresInDays is a number of days greater than 0");
  });

  it("keys list answers on a database no service or command has used yet: it builds the read model first", async function () {
    this.timeout(30_000);
    const fresh = await cli(await createTestDatabase(), "keys", "list", "--tenant", "nobody");
    expect(fresh.code, fresh.stderr).to.equal(0);
    expect(JSON.parse(fresh.stdout)).to.deep.equal([]);
  });

  it("authors create takes roles and wards, and keys list and authors list show a tenant's credentials without their secrets", async function () {
    this.timeout(30_000);
    const made = await cli(
      databaseUrl,
      "authors",
      "create",
      "--tenant",
      "west",
      "--name",
      "Nurse Ma",
      "--roles",
      "clinician, viewer",
      "--wards",
      "3A,5B",
    );
    expect(made.code, made.stderr).to.equal(0);
    const { authorId, token } = JSON.parse(made.stdout) as { authorId: string; token: string };
    expect(await authorByToken(db, token)).to.deep.include({ roles: ["clinician", "viewer"], wards: ["3A", "5B"] });
    const key = JSON.parse(
      (await cli(databaseUrl, "keys", "create", "--tenant", "west", "--name", "West LIS")).stdout,
    ) as { clientId: string; key: string };

    const authors = await cli(databaseUrl, "authors", "list", "--tenant", "west");
    expect(authors.code, authors.stderr).to.equal(0);
    const listed = JSON.parse(authors.stdout) as Array<Record<string, unknown>>;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ authorId, name: "Nurse Ma", lastUsedAt: null });
    const keys = await cli(databaseUrl, "keys", "list", "--tenant", "west");
    expect(JSON.parse(keys.stdout).map((client: { clientId: string }) => client.clientId)).to.deep.equal([
      key.clientId,
    ]);
    expect(authors.stdout + keys.stdout, "no secret printed")
      .not.to.include(token)
      .and.not.to.include(key.key);

    const badRole = await cli(databaseUrl, "authors", "create", "--tenant", "west", "--name", "x", "--roles", "nurse");
    expect(badRole.code).to.equal(1);
    expect(badRole.stderr).to.include("--roles.0: a role is one of admin, author, clinician, viewer");
  });

  it("patients import saves the good rows, names the bad one and exits with 1", async function () {
    this.timeout(30_000);
    const file = path.join(dir, "patients.csv");
    writeFileSync(
      file,
      "\uFEFFpatientRef,name,idCard,hisPatientId,ward,active\r\n" +
        "P1,张三,11010519491231002X,H001,3A,是\r\n" +
        "P2,李四,110105194912310021,,,\r\n" +
        "P3,王五,440524188001010014,,,否\r\n",
    );
    const run = await cli(databaseUrl, "patients", "import", file, "--tenant", "north");
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stdout).to.include("line 3: idCard check digit should be X, not 1 — the number was probably mistyped");
    expect(run.stdout).to.include("imported 2 (created 2, updated 0, unchanged 0), rejected 1");
    const patients = await readAsTenant(db, "north", listPatients);
    expect(patients.map((p) => [p.patientRef, p.active])).to.deep.equal([
      ["P1", true],
      ["P3", false],
    ]);
  });
  it("import submits an NDJSON file (gzip too) as a bulk job, shows its progress and sums it up; exit 1 for rejected lines", async function () {
    this.timeout(60_000);
    const created = await cli(databaseUrl, "keys", "create", "--tenant", "east", "--name", "East LIS");
    expect(created.code, created.stderr).to.equal(0);
    const report = (externalId: string, value: unknown = 11.2) => ({
      externalId,
      patient: { idCard: "11010519491231002X", name: "张三" },
      reportedAt: "2026-03-01 11:00:00",
      items: [{ itemCode: "HGB", value, unit: "g/dL" }],
    });
    const lines = [
      ...Array.from({ length: 1200 }, (_, i) => JSON.stringify(report(`CLI-${i}`))),
      "not json",
      JSON.stringify(report("CLI-BAD", { v: 1 })),
    ];
    const file = path.join(dir, "history.ndjson.gz");
    writeFileSync(file, gzipSync(lines.join("\n")));

    const run = await cli(databaseUrl, "import", "lab", file, "--tenant", "east", "--client", "East LIS");
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stdout).to.match(
      /job [0-9a-f-]{36} queued: 1,202 lab reports from .*history\.ndjson\.gz \(gzip\), sent as East LIS/,
    );
    // Not a terminal: the progress bar writes a line now and then, ending at the total.
    expect(run.stdout + run.stderr).to.match(/1202\/1202 lines/);
    expect(run.stdout).to.include(
      "done: 1,202 of 1,202 lines: 1,200 accepted (created 1,200, updated 0, unchanged 0; 1,200 waiting for a patient in the unmatched queue), 2 rejected",
    );
    expect(run.stdout).to.match(/line 1201: the line is not JSON/);
    expect(run.stdout).to.include("line 1202 (CLI-BAD): items[0].value:");
    const stored = await db.query(
      "select count(*)::int as n from events where tenant = 'east' and stream_id like 'lab-report:CLI-%'",
    );
    expect(stored.rows[0].n).to.equal(1200);

    const plain = path.join(dir, "one.ndjson");
    writeFileSync(plain, `${JSON.stringify(report("CLI-NOWAIT"))}\n`);
    const queued = await cli(
      databaseUrl,
      "import",
      "lab",
      plain,
      "--tenant",
      "east",
      "--client",
      "East LIS",
      "--no-wait",
    );
    expect(queued.code, queued.stderr).to.equal(0);
    expect(queued.stdout.trim().split("\n")).to.have.length(1);
    expect(queued.stdout).to.match(/^job [0-9a-f-]{36} queued: 1 lab report from/);

    const unknown = await cli(databaseUrl, "import", "lab", plain, "--tenant", "east", "--client", "Nobody");
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('tenant east has no client named "Nobody" with a working key');
  });
  it("projections rebuild shows a progress bar of the events read, then the outcome", async function () {
    this.timeout(60_000);
    const run = await cli(databaseUrl, "projections", "rebuild", "lab_reports");
    expect(run.code, run.stderr).to.equal(0);
    const { rows } = await db.query("select max(position)::int as last from events");
    // Not a terminal: the bar writes its first and last states as lines, ending at the total.
    expect(run.stderr).to.include(`${rows[0].last}/${rows[0].last} events`);
    expect(run.stderr).to.match(/events\/s \| ETA/);
    expect(run.stdout).to.match(/^lab_reports \{"status":"rebuilt"/);
  });
});
