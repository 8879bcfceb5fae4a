import { expect } from "chai";
import { createHash } from "node:crypto";
import pg from "pg";
import { allProjections } from "../../src/app/allProjections.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { loadIdentifierHasher } from "../../src/secrets/identifierKey.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { until, useTestService } from "../support/service.ts";

/**
 * Contract E.3: the national id's lookup key is keyed (HMAC), not a plain hash. An id card's
 * stream id used to be the SHA-256 of the number: anyone who saw one (a log line, an error) could
 * find the number by trying the plausible ones. Now it is an HMAC under a key only the service's
 * database user can read, and streams named the old way are left as they are in the history.
 */
describe("security: id-card streams are named by a keyed hash", function () {
  this.timeout(60_000);
  const hub = useTestService({ projections: allProjections });
  let call: ReturnType<typeof httpClient>;
  let token: string;
  const plainStreamId = (idCard: string) =>
    `patient-id-card:${createHash("sha256").update(idCard).digest("hex").slice(0, 32)}`;
  const streamIds = async () =>
    (
      await hub.service.db.query<{ stream_id: string }>(
        "select distinct stream_id from events where stream_id like 'patient-id-card:%'",
      )
    ).rows.map((row) => row.stream_id);

  before(async () => {
    call = httpClient(hub.service.url!);
    token = (await call("POST", "/api/admin/authors", { token: ADMIN, body: { name: "Dr. Hash", tenant: "default" } }))
      .body.token;
  });

  it("names a registered patient's id-card stream by an HMAC, never by the number's plain hash", async () => {
    const idCard = makeIdCard("110105", "19700301", 11);
    expect((await call("PUT", "/api/patients/HASH-1", { token, body: { name: "张一", idCard } })).status).to.equal(200);
    const hasher = await loadIdentifierHasher(hub.service.db, undefined);
    const keyed = `patient-id-card:k.${hasher.digest("id-card stream", idCard).slice(0, 32)}`;
    const ids = await streamIds();
    expect(ids).to.include(keyed);
    expect(ids).not.to.include(plainStreamId(idCard));
    // The same card cannot be registered twice: the keyed stream still says who holds it.
    const second = await call("PUT", "/api/patients/HASH-2", { token, body: { name: "张一", idCard } });
    expect(second.status).to.equal(409);
    expect(second.body.error).to.include("HASH-1");
  });

  it("keeps a card registered under a plain-hash stream of an earlier version held, and moves it to a keyed stream on the next save", async () => {
    const idCard = makeIdCard("110105", "19700302", 12);
    // What an earlier version wrote: the patient's event and the card's stream named by a plain hash.
    await hub.service.eventStore.appendMany(
      "default",
      [
        {
          streamId: "patient:HASH-OLD",
          expectedVersion: 0,
          events: [
            { type: "PatientRegistered", data: { name: "王旧", idCard, hisPatientId: null, ward: null, active: true } },
          ],
        },
        {
          streamId: plainStreamId(idCard),
          expectedVersion: 0,
          events: [{ type: "PatientIdCardTaken", data: { patientRef: "HASH-OLD" } }],
        },
      ],
      { actor: "an earlier version" },
    );
    await until(async () => (await call("GET", "/api/patients?q=HASH-OLD", { token })).body.length === 1);

    const other = await call("PUT", "/api/patients/HASH-NEW", { token, body: { name: "王旧", idCard } });
    expect(other.status).to.equal(409);
    expect(other.body.error).to.include("HASH-OLD");

    expect(
      (await call("PUT", "/api/patients/HASH-OLD", { token, body: { name: "王旧", idCard, ward: "3A" } })).status,
    ).to.equal(200);
    const hasher = await loadIdentifierHasher(hub.service.db, undefined);
    const keyed = `patient-id-card:k.${hasher.digest("id-card stream", idCard).slice(0, 32)}`;
    const { rows } = await hub.service.db.query(
      "select type, data from events where stream_id = $1 order by stream_version",
      [keyed],
    );
    expect(rows).to.deep.equal([{ type: "PatientIdCardTaken", data: { patientRef: "HASH-OLD" } }]);
    // History is never rewritten: the old stream is still there, as it was.
    const { rows: old } = await hub.service.db.query("select count(*)::int as n from events where stream_id = $1", [
      plainStreamId(idCard),
    ]);
    expect(old[0].n).to.equal(1);
  });

  it("refuses to start with another key than the one the database's identifiers are hashed with", async () => {
    const kept = await loadIdentifierHasher(hub.service.db, undefined);
    const other = "ab".repeat(32);
    let refusal = "";
    await loadIdentifierHasher(hub.service.db, other).catch((error: Error) => (refusal = error.message));
    expect(refusal).to.include(`fingerprint ${kept.fingerprint()}`).and.to.include("ID_HASH_KEY");
    expect(refusal).not.to.include(other);
  });

  it("keeps the key from the reader and report roles", async () => {
    const client = new pg.Client({ connectionString: hub.service.databaseUrl });
    await client.connect();
    try {
      for (const role of ["dh_tenant_reader", "dh_report_runner"]) {
        await client.query(`set role ${role}`);
        const denied = await client
          .query("select key from public.identifier_hash_key")
          .catch((error: { code?: string }) => error);
        expect((denied as { code?: string }).code, role).to.equal("42501");
        await client.query("reset role");
      }
    } finally {
      await client.end();
    }
  });
});
