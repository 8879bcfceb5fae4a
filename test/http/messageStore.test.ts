import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { diagnosticReportBundle } from "../support/fhirBundles.ts";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { ingestionTenant, labReport, useIngestionService, ZHANG_SAN } from "../support/ingestion.ts";
import { mllpFrame, rawExchange } from "../support/mllpPeer.ts";
import { startTestService, TEST_ADMIN_TOKEN, until } from "../support/service.ts";

/*
 * The message store (contract G.5): every message of every channel kept with its outcome and the
 * answer its sender got, found by externalId and by patient id, id cards masked for an integrator.
 */

type Kept = Record<string, any>;

describe("The message store: GET /api/messages", function () {
  this.timeout(60_000);
  const hub = useIngestionService({ env: { HL7_MLLP_PORT: "0", MESSAGE_STORE_FLUSH_MS: "20" } });

  const search = async (query: string, token = TEST_ADMIN_TOKEN) => {
    const answer = await hub.tenant.call("GET", `/api/messages?${query}`, { token });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as { messages: Kept[]; next: string | null };
  };
  /** The one message that carried `externalId`, once it is written. */
  const keptWith = async (externalId: string): Promise<Kept> => {
    await until(async () => (await search(`externalId=${externalId}`)).messages.length > 0, 10_000);
    const { messages } = await search(`externalId=${externalId}`);
    expect(messages).to.have.length(1);
    return messages[0]!;
  };

  it("keeps a push accepted, a partial and a refused one, each with its envelope, findable by externalId", async () => {
    expect((await hub.tenant.push("lab", [labReport("MS-OK")])).status).to.equal(200);
    await hub.tenant.push("lab", [labReport("MS-P1"), labReport("MS-P2", { items: [] })]);
    await hub.tenant.push("lab", [labReport("MS-R1", { reportedAt: "yesterday" })]);

    const ok = await keptWith("MS-OK");
    expect(ok).to.include({ channel: "open-v1", outcome: "accepted" });
    expect(ok.client.name).to.equal("Central lab LIS");
    expect(ok.answer.data.results[0]).to.include({ externalId: "MS-OK", status: "CREATED" });

    const partial = await keptWith("MS-P2");
    expect(partial.outcome).to.equal("partial");
    expect(partial.externalIds).to.deep.equal(["MS-P1", "MS-P2"]);
    expect(partial.errors[0]).to.include({ externalId: "MS-P2", field: "items" });

    const refused = await keptWith("MS-R1");
    expect(refused.outcome).to.equal("refused");
    expect(refused.errors[0]).to.include({ externalId: "MS-R1", field: "reportedAt" });
    expect(refused.answer.data.rejected).to.equal(1);
  });

  it("keeps a body refused whole with the envelope that refused it", async () => {
    const answer = await fetch(`${hub.service.url}/open/v1/lab/reports`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "application/json" },
      body: '{"reports": [ {"externalId": "MS-BROKEN"',
    });
    expect(answer.status).to.equal(400);
    await until(async () =>
      (await search("outcome=refused&channel=open-v1")).messages.some((m) => m.answer.code === 400),
    );
    const [kept] = (await search("outcome=refused&channel=open-v1")).messages.filter((m) => m.answer.code === 400);
    expect(kept!.errors[0].message).to.match(/not valid JSON/);
    const detail = await hub.tenant.call("GET", `/api/messages/${kept!.messageId}`, { token: TEST_ADMIN_TOKEN });
    expect(detail.body.body).to.equal('{"reports": [ {"externalId": "MS-BROKEN"');
  });

  it("keeps HL7 over HTTP and over MLLP with their ACKs, never the key sent in MSH-8, and a FHIR Bundle with its answer", async () => {
    const http = await fetch(`${hub.service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "x-application/hl7-v2+er7" },
      body: oruR01({ controlId: "MS-HTTP-1", externalId: "MS-HL7-HTTP" }),
    });
    expect(http.status).to.equal(200);
    const { received } = await rawExchange(
      hub.service.mllpPort!,
      [mllpFrame(withSecurity(oruR01({ controlId: "MS-MLLP-1", externalId: "MS-HL7-MLLP" }), hub.tenant.client.key))],
      1500,
    );
    expect(received).to.include("MSA|AA|MS-MLLP-1");
    const fhir = await fetch(`${hub.service.url}/fhir/r4`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "application/fhir+json" },
      body: JSON.stringify(diagnosticReportBundle({ externalId: "MS-FHIR" })),
    });
    expect(fhir.status).to.equal(200);

    const overHttp = await keptWith("MS-HL7-HTTP");
    expect(overHttp).to.include({ channel: "hl7-http", outcome: "accepted" });
    expect(overHttp.answer).to.include("MSA|AA|MS-HTTP-1");
    const overMllp = await keptWith("MS-HL7-MLLP");
    expect(overMllp).to.include({ channel: "hl7-mllp", outcome: "accepted" });
    expect(overMllp.answer).to.include("MSA|AA|MS-MLLP-1");
    const detail = await hub.tenant.call("GET", `/api/messages/${overMllp.messageId}`, { token: TEST_ADMIN_TOKEN });
    expect(detail.body.body).to.include("MS-MLLP-1");
    expect(detail.body.body).not.to.include(hub.tenant.client.key);
    const bundle = await keptWith("MS-FHIR");
    expect(bundle).to.include({ channel: "fhir", outcome: "accepted" });
    expect(bundle.answer.resourceType).to.equal("Bundle");

    // Every one of them carried 张三: found by the national id, and by the HIS id, sent in any case.
    const byIdCard = await search(`patientId=${ZHANG_SAN.idCard.toLowerCase()}&limit=500`);
    const ids = byIdCard.messages.flatMap((m) => m.externalIds);
    expect(ids).to.include.members(["MS-OK", "MS-P1", "MS-R1", "MS-HL7-HTTP", "MS-HL7-MLLP", "MS-FHIR"]);
    const byHis = await search("patientId=H-1");
    expect(byHis.messages.flatMap((m) => m.externalIds)).to.include("MS-OK");
    const { rows } = await hub.service.db.query(
      "select count(*)::int as n from messages where $1 = any(patient_keys)",
      [ZHANG_SAN.idCard],
    );
    expect(rows[0].n, "no plain id card is kept in the searched column").to.equal(0);
  });

  it("pages newest first, and shows an integrator the id cards masked; a clinician may not search", async () => {
    const first = await search("limit=2");
    expect(first.messages).to.have.length(2);
    expect(first.next).to.be.a("string");
    const second = await search(`limit=2&cursor=${first.next}`);
    expect(second.messages[0]!.receivedAt <= first.messages[1]!.receivedAt).to.equal(true);
    expect(second.messages.map((m) => m.messageId)).not.to.include.members(first.messages.map((m) => m.messageId));

    const integrator = await hub.tenant.call("POST", "/api/admin/authors", {
      token: TEST_ADMIN_TOKEN,
      body: { name: "Interface engineer", tenant: "h1", roles: ["integrator"] },
    });
    expect(integrator.status).to.equal(201);
    const token = integrator.body.token as string;
    const ok = await keptWith("MS-OK");
    const shown = await hub.tenant.call("GET", `/api/messages/${ok.messageId}`, { token });
    expect(shown.status).to.equal(200);
    expect(shown.body.body).to.include("110105********002X");
    expect(shown.body.body).not.to.include(ZHANG_SAN.idCard);
    const asAdmin = await hub.tenant.call("GET", `/api/messages/${ok.messageId}`, { token: TEST_ADMIN_TOKEN });
    expect(asAdmin.body.body).to.include(ZHANG_SAN.idCard);

    const clinician = await hub.tenant.call("GET", "/api/messages", { token: hub.tenant.authorToken });
    expect(clinician.status).to.equal(403);
    expect(clinician.body.error).to.match(/integrator/);
    const bad = await hub.tenant.call("GET", "/api/messages?outcome=lost", { token });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/accepted, partial, refused/);
  });
});

describe("The message store when the service stops", function () {
  this.timeout(60_000);

  it("still has a message answered right before the stop", async () => {
    const service = await startTestService({ projections: allProjections, env: { MESSAGE_STORE_FLUSH_MS: "1000" } });
    try {
      const tenant = await ingestionTenant(service, "h1");
      expect((await tenant.push("lab", [labReport("MS-LAST")])).status).to.equal(200);
    } finally {
      await service.stop();
    }
    const pg = await import("pg");
    const db = new pg.default.Client({ connectionString: service.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query("select outcome from messages where 'MS-LAST' = any(external_ids)");
      expect(rows).to.deep.equal([{ outcome: "accepted" }]);
    } finally {
      await db.end();
    }
  });
});
