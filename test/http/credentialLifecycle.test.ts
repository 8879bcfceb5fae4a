import { createHash, randomBytes, randomUUID } from "node:crypto";
import { expect } from "chai";
import { authorStreams, clientStreams } from "../../commands/credentials/events.ts";
import { EventStore } from "../../db/eventStore.ts";
import { createPool, type Db, type Tx } from "../../db/pool.ts";
import { credentialsProjection } from "../../projections/credentials/credentials.ts";
import type { Projection } from "../../projections/runtime/projection.ts";
import { prepareProjections, rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { CredentialCheck } from "../../src/credentials/credentialCheck.ts";
import { CredentialUses } from "../../src/credentials/credentialUses.ts";
import { silentLogger } from "../../src/logger.ts";
import { loadIdentifierHasher } from "../../src/secrets/identifierKey.ts";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient, type Answer } from "../support/http.ts";
import { startTestService, until, useTestService } from "../support/service.ts";

/*
 * Contract E.3 for client keys and author tokens alike: expiry, the operator's lists with the last
 * use, revocation from the very next call (on every process), rotation with an overlap, and keys
 * issued before (stored as a plain SHA-256) that keep working.
 */

const LIST_FIELDS = ["name", "tenant", "createdAt", "expiresAt", "lastUsedAt", "revokedAt", "formerValidUntil"];
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const sleepUntil = (moment: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, moment - Date.now()) + 50));

/** The calls of one service: the operator's, a sender's and an author's. */
function callsOf(url: string) {
  const call = httpClient(url);
  return {
    call,
    admin: (method: string, path: string, options: { body?: unknown; tenant?: string } = {}) =>
      call(method, path, { token: ADMIN, ...options }),
    /** The open API's connectivity check with this key. */
    ping: (key: string) => call("GET", "/open/v1/ping", { token: key }),
    /** An authoring call (the unmatched queue) with this token, for its tenant. */
    asAuthor: (token: string, tenant: string) => call("GET", "/api/unmatched", { token, tenant }),
    /** A FHIR push with this key: refused before its Bundle is read when the key does not work. */
    fhirPush: (key: string) =>
      call("POST", "/fhir/r4", {
        token: key,
        headers: { "content-type": "application/fhir+json" },
        body: { resourceType: "Bundle", type: "batch", entry: [] },
      }),
  };
}

function expectCreated(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(201);
}

describe("credential lifecycle (contract E.3)", function () {
  this.timeout(60_000);
  const hub = useTestService({ projections: allProjections });
  let calls: ReturnType<typeof callsOf>;
  before(async () => {
    calls = callsOf(hub.service.url!);
    // The first calls of a new service open its connections: the short expiries below leave no time for that.
    const { key } = (await calls.admin("POST", "/api/admin/clients", { body: { name: "Warm-up", tenant: "warm-up" } }))
      .body as { key: string };
    expect((await calls.ping(key)).status).to.equal(200);
  });

  async function newClient(tenant: string, body: Record<string, unknown> = {}) {
    const created = await calls.admin("POST", "/api/admin/clients", {
      body: { name: "Central lab LIS", tenant, ...body },
    });
    expectCreated(created, "a new client");
    return created.body as { clientId: string; key: string };
  }

  async function newAuthor(tenant: string, body: Record<string, unknown> = {}) {
    const created = await calls.admin("POST", "/api/admin/authors", { body: { name: "Dr. Lin", tenant, ...body } });
    expectCreated(created, "a new author");
    return created.body as { authorId: string; token: string };
  }

  const listed = async <T extends "clients" | "authors">(kind: T, tenant: string) => {
    const answer = await calls.admin("GET", `/api/admin/${kind}`, { tenant });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as Array<Record<string, string | null>>;
  };

  describe("expiry", () => {
    it("refuses a key and a token after expiresInDays with 401 saying they expired and when, in each interface's own shape", async () => {
      const days = 0.00002; // 1.7 s
      const client = await newClient("exp", { expiresInDays: days });
      expect((await calls.ping(client.key)).status, "the key works until it expires").to.equal(200);
      const author = await newAuthor("exp", { expiresInDays: days });
      expect((await calls.asAuthor(author.token, "exp")).status, "the token works until it expires").to.equal(200);
      const forever = await newClient("exp");

      const entries = [...(await listed("clients", "exp")), ...(await listed("authors", "exp"))];
      const expiries = entries.filter((entry) => entry.expiresAt !== null).map((entry) => Date.parse(entry.expiresAt!));
      expect(expiries).to.have.length(2);
      for (const entry of entries.filter((entry) => entry.expiresAt !== null)) {
        expect(
          Date.parse(entry.expiresAt!) - Date.parse(entry.createdAt!),
          "1.7 s, less the time the append took",
        ).to.be.within(1000, 1730);
      }
      await sleepUntil(Math.max(...expiries));

      const ping = await calls.ping(client.key);
      expect(ping.status).to.equal(401);
      expect(ping.body).to.include({ code: 401, data: null });
      expect(ping.body.msg).to.match(
        /^This client key expired at \d{4}-\d\d-\d\dT[\d:.]+Z; ask the administrator for a new one\.$/,
      );
      const fhir = await calls.fhirPush(client.key);
      expect(fhir.status).to.equal(401);
      expect(fhir.body.resourceType).to.equal("OperationOutcome");
      expect(fhir.body.issue[0].diagnostics).to.match(/client key expired at/);
      const authoring = await calls.asAuthor(author.token, "exp");
      expect(authoring.status).to.equal(401);
      expect(authoring.body).to.have.all.keys("error", "code");
      expect(authoring.body.code).to.equal("token-expired");
      expect(authoring.body.error).to.match(
        /^This author token expired at .+Z; ask the administrator for a new one\.$/,
      );
      expect((await calls.ping(forever.key)).status, "a key without expiresInDays works on").to.equal(200);
    });

    it("refuses an expiresInDays that is not a positive number of days, saying how to fix it", async () => {
      for (const path of ["/api/admin/clients", "/api/admin/authors"]) {
        for (const expiresInDays of [0, -1, "30", 1e9, null]) {
          const answer = await calls.admin("POST", path, { body: { name: "x", tenant: "exp", expiresInDays } });
          expect(answer.status, `${path} ${expiresInDays}`).to.equal(400);
          expect(answer.body.error, `${path} ${expiresInDays}`).to.match(
            /expiresInDays is a number of days greater than 0/,
          );
        }
      }
    });
  });

  describe("lists", () => {
    it("lists the clients and authors of X-Service-Tenant with their times, and never a key, a token or a digest", async () => {
      const kept = await newClient("list-a");
      const revoked = await newClient("list-a", { expiresInDays: 30 });
      const author = await newAuthor("list-a");
      const elsewhere = await newClient("list-b");
      expect((await calls.admin("DELETE", `/api/admin/clients/${revoked.clientId}`)).status).to.equal(204);

      const clients = await listed("clients", "list-a");
      expect(clients.map((entry) => entry.clientId)).to.deep.equal([kept.clientId, revoked.clientId]);
      for (const entry of clients) expect(Object.keys(entry)).to.have.members(["clientId", ...LIST_FIELDS]);
      expect(clients[0]).to.include({
        name: "Central lab LIS",
        tenant: "list-a",
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      expect(Date.parse(clients[1]!.expiresAt!) - Date.parse(clients[1]!.createdAt!)).to.be.closeTo(
        30 * 86_400_000,
        5000,
      );
      expect(clients[1]!.revokedAt).to.match(/^\d{4}-\d\d-\d\dT.+Z$/);

      const authors = await listed("authors", "list-a");
      expect(authors).to.have.length(1);
      expect(authors[0]).to.include({ authorId: author.authorId, name: "Dr. Lin", tenant: "list-a", revokedAt: null });
      expect(Object.keys(authors[0]!)).to.have.members(["authorId", ...LIST_FIELDS, "roles", "wards"]);

      expect((await listed("clients", "list-b")).map((entry) => entry.clientId)).to.deep.equal([elsewhere.clientId]);
      const defaultTenant = await calls.admin("GET", "/api/admin/clients");
      expect(
        defaultTenant.body
          .map((entry: { tenant: string }) => entry.tenant)
          .filter((tenant: string) => tenant !== "default"),
      ).to.deep.equal([]);

      const text = JSON.stringify([clients, authors]);
      const { rows } = await hub.service.db.query(
        "select data->>'keyDigest' as digest from events where stream_id = $1",
        [clientStreams.id(kept.clientId)],
      );
      for (const secret of [kept.key, revoked.key, author.token, rows[0].digest, "hmac:", sha256(kept.key)])
        expect(text).not.to.include(secret);
    });

    it("shows a key's and a token's last use within a few seconds of it", async () => {
      const client = await newClient("used");
      const author = await newAuthor("used");
      expect((await listed("clients", "used"))[0]!.lastUsedAt).to.equal(null);
      const before = Date.now();
      expect((await calls.ping(client.key)).status).to.equal(200);
      expect((await calls.asAuthor(author.token, "used")).status).to.equal(200);
      const clientUse = await until(async () => (await listed("clients", "used"))[0]!.lastUsedAt, 10_000, 200);
      const authorUse = await until(async () => (await listed("authors", "used"))[0]!.lastUsedAt, 10_000, 200);
      for (const use of [clientUse, authorUse]) expect(Date.parse(use)).to.be.within(before - 1000, Date.now());
    });
  });

  describe("revocation", () => {
    it("refuses a revoked author's token from the very next call; revoking twice is harmless, an unknown author 404", async () => {
      const author = await newAuthor("rev");
      expect((await calls.asAuthor(author.token, "rev")).status).to.equal(200);
      expect((await calls.admin("DELETE", `/api/admin/authors/${author.authorId}`)).status).to.equal(204);
      const refused = await calls.asAuthor(author.token, "rev");
      expect(refused.status).to.equal(401);
      expect(refused.body.error).to.match(/token is not valid/);
      expect(
        (await calls.call("GET", "/fhir/r4/Patient?identifier=x", { token: author.token, tenant: "rev" })).status,
        "FHIR reads too",
      ).to.equal(401);
      expect((await listed("authors", "rev"))[0]!.revokedAt).to.match(/Z$/);
      expect((await calls.admin("DELETE", `/api/admin/authors/${author.authorId}`)).status).to.equal(204);
      const unknown = await calls.admin("DELETE", `/api/admin/authors/${randomUUID()}`);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error).to.match(/GET \/api\/admin\/authors/);
    });
  });

  describe("rotation", () => {
    it("gives a client a new key that works at once, while the former one works through the overlap and is refused after it", async () => {
      const client = await newClient("rot");
      const rotated = await calls.admin("POST", `/api/admin/clients/${client.clientId}/rotate`, {
        body: { overlapHours: 0.0005 },
      }); // 1.8 s
      const answeredAt = Date.now();
      expectCreated(rotated, "rotation");
      expect(rotated.body.clientId).to.equal(client.clientId);
      expect(rotated.body.key).to.match(/^dhk_/).and.not.equal(client.key);
      expect((await calls.ping(rotated.body.key)).status, "the new key at once").to.equal(200);
      expect((await calls.ping(client.key)).status, "the former key within the overlap").to.equal(200);
      // The list says until when the former key works (issue #54), while it does.
      const during = (await listed("clients", "rot"))[0]!;
      expect(Date.parse(during.formerValidUntil!) - answeredAt).to.be.within(0, 1800);

      await sleepUntil(answeredAt + 1800);
      const former = await calls.ping(client.key);
      expect(former.status, "the former key after the overlap").to.equal(401);
      expect(former.body.msg).to.match(
        /^This client key was replaced by a new one and expired at .+Z, when the overlap after the rotation ended; use the new one/,
      );
      expect((await calls.ping(rotated.body.key)).status, "the new key on").to.equal(200);
      expect(
        (await listed("clients", "rot")).map((entry) => [entry.clientId, entry.formerValidUntil]),
        "still one client, its former key no longer working",
      ).to.deep.equal([[client.clientId, null]]);
    });

    it("with overlapHours 0 refuses the former token (and key) from the next call; without a body the overlap is 24 hours", async () => {
      const author = await newAuthor("rot0");
      const rotated = await calls.admin("POST", `/api/admin/authors/${author.authorId}/rotate`, {
        body: { overlapHours: 0 },
      });
      expectCreated(rotated, "rotation");
      expect(rotated.body).to.have.keys(["authorId", "token"]);
      expect(rotated.body.token).to.match(/^dha_/);
      expect((await calls.asAuthor(author.token, "rot0")).status, "the former token").to.equal(401);
      expect((await calls.asAuthor(rotated.body.token, "rot0")).status, "the new token").to.equal(200);

      const client = await newClient("rot0");
      const noOverlap = await calls.admin("POST", `/api/admin/clients/${client.clientId}/rotate`, {
        body: { overlapHours: 0 },
      });
      expect((await calls.ping(client.key)).status, "the former key").to.equal(401);
      expect((await calls.ping(noOverlap.body.key)).status, "the new key").to.equal(200);

      const byDefault = await calls.admin("POST", `/api/admin/authors/${author.authorId}/rotate`);
      expectCreated(byDefault, "a rotation without a body");
      expect((await calls.asAuthor(rotated.body.token, "rot0")).status, "the former token within 24 hours").to.equal(
        200,
      );
      expect((await calls.asAuthor(byDefault.body.token, "rot0")).status).to.equal(200);
    });

    it("refuses a bad overlapHours saying how to fix it, and a revoked, unknown or expired credential", async () => {
      const client = await newClient("rotbad");
      const author = await newAuthor("rotbad");
      for (const path of [
        `/api/admin/clients/${client.clientId}/rotate`,
        `/api/admin/authors/${author.authorId}/rotate`,
      ]) {
        for (const body of [{ overlapHours: -1 }, { overlapHours: "24" }, { overlapHours: 721 }]) {
          const answer = await calls.admin("POST", path, { body });
          expect(answer.status, JSON.stringify(body)).to.equal(400);
          expect(answer.body.error).to.match(/overlapHours is a number of hours from 0/);
        }
        const typo = await calls.admin("POST", path, { body: { overlapHour: 1 } });
        expect(typo.status).to.equal(400);
        expect(typo.body.error).to.match(/one optional field, overlapHours/);
      }
      expect((await calls.ping(client.key)).status, "no bad call rotated the key").to.equal(200);

      for (const kind of ["clients", "authors"]) {
        expect(
          (await calls.admin("POST", `/api/admin/${kind}/${randomUUID()}/rotate`, { body: {} })).status,
          `an unknown one of ${kind}`,
        ).to.equal(404);
      }
      expect((await calls.admin("DELETE", `/api/admin/clients/${client.clientId}`)).status).to.equal(204);
      expect((await calls.admin("DELETE", `/api/admin/authors/${author.authorId}`)).status).to.equal(204);
      for (const path of [
        `/api/admin/clients/${client.clientId}/rotate`,
        `/api/admin/authors/${author.authorId}/rotate`,
      ]) {
        const answer = await calls.admin("POST", path, { body: {} });
        expect(answer.status, path).to.equal(404);
        expect(answer.body.error).to.match(/revoked/);
      }

      const expiring = await newClient("rotbad", { expiresInDays: 0.00001 });
      await sleepUntil(Date.now() + 900);
      const late = await calls.admin("POST", `/api/admin/clients/${expiring.clientId}/rotate`, { body: {} });
      expect(late.status).to.equal(409);
      expect(late.body.error).to.match(/expired at .+; create a new client instead/);
    });
  });

  describe("secrets at rest", () => {
    it("stores a new key and token as digests keyed with the deployment's key, never a plain hash", async () => {
      const client = await newClient("rest");
      const author = await newAuthor("rest");
      const rotated = (await calls.admin("POST", `/api/admin/clients/${client.clientId}/rotate`, { body: {} }))
        .body as { key: string };
      const { rows } = await hub.service.db.query(
        "select type, coalesce(data->>'keyDigest', data->>'tokenDigest') as digest from events where stream_id = any($1) order by position",
        [[clientStreams.id(client.clientId), authorStreams.id(author.authorId)]],
      );
      expect(rows.map((row) => row.type)).to.deep.equal(["ClientRegistered", "AuthorRegistered", "ClientKeyRotated"]);
      for (const [row, secret] of [
        [rows[0], client.key],
        [rows[1], author.token],
        [rows[2], rotated.key],
      ] as const) {
        expect(row.digest).to.match(/^hmac:[0-9a-f]{64}$/);
        expect(row.digest).not.to.include(sha256(secret));
      }
    });

    it("still accepts a key and a token registered before, whose events hold a plain SHA-256, and rotates and revokes them", async () => {
      const legacyKey = `dhk_${randomBytes(24).toString("base64url")}`;
      const legacyToken = `dha_${randomBytes(24).toString("base64url")}`;
      const clientId = randomUUID();
      const authorId = randomUUID();
      // The events exactly as versions before E.3 wrote them: no expiresAt, an unprefixed digest.
      const metadata = { actor: "admin" };
      await hub.service.eventStore.append({
        tenant: "legacy",
        streamId: clientStreams.id(clientId),
        expectedVersion: 0,
        events: [{ type: "ClientRegistered", data: { clientId, name: "Old LIS", keyDigest: sha256(legacyKey) } }],
        metadata,
      });
      await hub.service.eventStore.append({
        tenant: "legacy",
        streamId: authorStreams.id(authorId),
        expectedVersion: 0,
        events: [{ type: "AuthorRegistered", data: { authorId, name: "Dr. Old", tokenDigest: sha256(legacyToken) } }],
        metadata,
      });
      await until(
        async () =>
          (await calls.ping(legacyKey)).status === 200 && (await calls.asAuthor(legacyToken, "legacy")).status === 200,
        10_000,
      );
      expect((await listed("clients", "legacy"))[0]).to.include({ clientId, expiresAt: null, revokedAt: null });

      const rotated = await calls.admin("POST", `/api/admin/clients/${clientId}/rotate`, { body: { overlapHours: 0 } });
      expectCreated(rotated, "rotation of a legacy key");
      expect((await calls.ping(legacyKey)).status, "the legacy key, replaced").to.equal(401);
      expect((await calls.ping(rotated.body.key)).status).to.equal(200);
      expect((await calls.admin("DELETE", `/api/admin/authors/${authorId}`)).status).to.equal(204);
      expect((await calls.asAuthor(legacyToken, "legacy")).status, "the legacy token, revoked").to.equal(401);
    });
  });

  describe("replay", () => {
    it("rebuilds the credentials read model by replay to the same rows", async () => {
      const snapshot = async () => {
        const tables: Record<string, unknown[]> = {};
        for (const [table, key] of [
          ["clients", "client_id"],
          ["authors", "author_id"],
          ["credential_secrets", "digest"],
        ] as const) {
          tables[table] = (await hub.service.db.query(`select * from read.${table} order by ${key}`)).rows;
        }
        return tables;
      };
      const before = await snapshot();
      const some = (rows: unknown[] | undefined, column: string) =>
        (rows as Array<Record<string, unknown>>).some((row) => row[column] !== null);
      expect(
        some(before.credential_secrets, "valid_until") &&
          some(before.authors, "revoked_at") &&
          some(before.clients, "expires_at"),
        "the tests before rotated, revoked and let expire",
      ).to.equal(true);
      expect((await rebuildProjection(hub.service.db, credentialsProjection, silentLogger)).status).to.equal("rebuilt");
      expect(await snapshot()).to.deep.equal(before);
    });
  });
});

describe("credential lifecycle on two processes sharing one database", function () {
  this.timeout(90_000);
  let one: RunningService;
  let other: RunningService;
  before(async () => {
    const databaseUrl = await createTestDatabase(false);
    one = await startTestService({ databaseUrl, projections: allProjections });
    other = await startTestService({ databaseUrl, projections: allProjections });
  });
  after(async () => {
    await other?.stop();
    await one?.stop();
  });

  it("refuses a token revoked, and a key rotated without overlap, on one process from the next call on the other", async () => {
    const [first, second] = [callsOf(one.url!), callsOf(other.url!)];
    const author = (await first.admin("POST", "/api/admin/authors", { body: { name: "Dr. Two", tenant: "two" } }))
      .body as { authorId: string; token: string };
    const client = (await first.admin("POST", "/api/admin/clients", { body: { name: "Two LIS", tenant: "two" } }))
      .body as { clientId: string; key: string };
    expect((await second.asAuthor(author.token, "two")).status, "the token on the other process").to.equal(200);
    expect((await second.ping(client.key)).status, "the key on the other process").to.equal(200);

    expect((await first.admin("DELETE", `/api/admin/authors/${author.authorId}`)).status).to.equal(204);
    expect((await second.asAuthor(author.token, "two")).status, "the revoked token on the other process").to.equal(401);

    const rotated = await first.admin("POST", `/api/admin/clients/${client.clientId}/rotate`, {
      body: { overlapHours: 0 },
    });
    expect((await second.ping(client.key)).status, "the former key on the other process").to.equal(401);
    expect((await second.ping(rotated.body.key)).status, "the new key on the other process").to.equal(200);
  });
});

describe("credential look-ups while an upgrade rebuilds the read model", () => {
  /** The credentials read model as versions before E.3 made it: a digest column per credential, no secrets table. */
  const version1: Projection = {
    name: "credentials",
    version: 1,
    handles: ["ClientRegistered", "AuthorRegistered"],
    tables: ["clients", "authors"],
    async setup(tx: Tx) {
      await tx.query(`create table clients (tenant text not null, client_id text primary key, name text not null, key_digest text not null unique,
                      code_map jsonb not null default '{}', created_at timestamptz not null, revoked_at timestamptz)`);
      await tx.query(
        "create table authors (tenant text not null, author_id text primary key, name text not null, " +
          "token_digest text not null unique, created_at timestamptz not null)",
      );
    },
    async apply(tx, event) {
      const data = event.data as { name: string; keyDigest?: string; tokenDigest?: string };
      if (event.type === "ClientRegistered") {
        await tx.query(
          "insert into clients (tenant, client_id, name, key_digest, created_at) values ($1, $2, $3, $4, $5)",
          [event.tenant, clientStreams.key(event.streamId), data.name, data.keyDigest, event.recordedAt],
        );
      } else {
        await tx.query(
          "insert into authors (tenant, author_id, name, token_digest, created_at) values ($1, $2, $3, $4, $5)",
          [event.tenant, authorStreams.key(event.streamId), data.name, data.tokenDigest, event.recordedAt],
        );
      }
    },
  };
  let db: Db;
  before(async () => {
    db = createPool(await createTestDatabase(), { max: 2 });
  });
  after(() => db?.end());

  it("finds a key and a token of before in version 1 of the read model, which serves until the rebuild is live", async () => {
    const key = `dhk_${randomBytes(24).toString("base64url")}`;
    const token = `dha_${randomBytes(24).toString("base64url")}`;
    const store = new EventStore(db);
    const clientId = randomUUID();
    const authorId = randomUUID();
    await store.append({
      tenant: "up",
      streamId: clientStreams.id(clientId),
      expectedVersion: 0,
      events: [{ type: "ClientRegistered", data: { clientId, name: "Old LIS", keyDigest: sha256(key) } }],
      metadata: { actor: "admin" },
    });
    await store.append({
      tenant: "up",
      streamId: authorStreams.id(authorId),
      expectedVersion: 0,
      events: [{ type: "AuthorRegistered", data: { authorId, name: "Dr. Old", tokenDigest: sha256(token) } }],
      metadata: { actor: "admin" },
    });
    for (const projection of await prepareProjections(db, [version1], silentLogger))
      await rebuildProjection(db, projection, silentLogger);

    const check = new CredentialCheck(
      db,
      await loadIdentifierHasher(db, undefined),
      new CredentialUses(db, silentLogger),
    );
    expect(await check.client(key)).to.deep.include({ status: "valid" });
    expect((await check.author(token)).status).to.equal("valid");
    expect((await check.client(`${key}x`)).status).to.equal("unknown");

    // The start after the upgrade: version 2 is built by replay, and the same look-ups answer from it.
    const [outdated] = await prepareProjections(db, [credentialsProjection], silentLogger);
    expect(outdated?.name).to.equal("credentials");
    expect((await rebuildProjection(db, credentialsProjection, silentLogger)).status).to.equal("rebuilt");
    expect(await check.client(key)).to.deep.include({ status: "valid" });
    expect((await check.author(token)).status).to.equal("valid");
  });
});
