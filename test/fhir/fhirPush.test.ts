import { expect } from "chai";
import { Fhir } from "fhir";
import { Client } from "fhir-kit-client";
import type { Bundle, OperationOutcome } from "fhir/r4.js";
import { diagnosticReportAsJson, diagnosticReportBundle } from "../support/fhirBundles.ts";
import { useIngestionService } from "../support/ingestion.ts";

/*
 * POST /fhir/r4 and GET /fhir/r4/metadata (contract D.6), called with fhir-kit-client, a FHIR
 * client this project did not write; every resource the service answers with is validated against
 * the FHIR R4 base specification by the `fhir` package's validator.
 */

const validator = new Fhir();

/** The resource, after checking that it validates against R4. */
function valid<T>(resource: unknown): T {
  const { valid: ok, messages } = validator.validate(resource as object);
  expect(
    messages.filter((message) => message.severity === "error"),
    JSON.stringify(resource),
  ).to.deep.equal([]);
  expect(ok).to.equal(true);
  return resource as T;
}

/** A Bundle as fhir-kit-client takes a body (its resource type is an open record). */
const asBody = (bundle: object) => bundle as Parameters<Client["batch"]>[0]["body"];

/** What the client threw for a 4xx answer: its status and body. */
async function refused(call: Promise<unknown>): Promise<{ status: number; body: OperationOutcome }> {
  try {
    await call;
  } catch (error) {
    const response = (error as { response?: { status: number; data: OperationOutcome } }).response;
    if (response) return { status: response.status, body: response.data };
    throw error;
  }
  throw new Error("the call was not refused");
}

describe("FHIR R4: Bundles of DiagnosticReports posted to /fhir/r4", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  let fhir: Client;
  const storedReport = async (externalId: string) =>
    (
      await hub.service.db.query(
        "select data->'report' as report, metadata from events where tenant = 'h1' and stream_id = $1 order by stream_version",
        [`lab-report:${externalId}`],
      )
    ).rows;

  before(async () => {
    fhir = new Client({
      baseUrl: `${hub.service.url}/fhir/r4`,
      customHeaders: { Authorization: `Bearer ${hub.tenant.client.key}` },
    });
  });

  it("states what it does in a CapabilityStatement, asking no key", async () => {
    const statement = valid<{ fhirVersion: string; rest: Array<{ interaction: Array<{ code: string }> }> }>(
      await new Client({ baseUrl: `${hub.service.url}/fhir/r4` }).capabilityStatement(),
    );
    expect(statement.fhirVersion).to.equal("4.0.1");
    expect(statement.rest[0]!.interaction.map((i) => i.code)).to.deep.equal(["batch", "transaction"]);
  });

  it("stores each DiagnosticReport of a batch as the lab report a JSON push sends, answering every entry", async () => {
    const answer = valid<Bundle>(await fhir.batch({ body: asBody(diagnosticReportBundle({ externalId: "FHIR-1" })) }));
    expect(answer.type).to.equal("batch-response");
    expect(answer.entry!.map((entry) => entry.response!.status)).to.deep.equal([
      "201 Created",
      "201 Created",
      "201 Created",
      "201 Created",
      "201 Created",
      "201 Created",
    ]);
    const [stored] = await storedReport("FHIR-1");
    expect(stored.metadata.origin).to.deep.equal({
      format: "fhir-r4",
      fullUrl: "urn:uuid:00000000-0000-4000-8000-0000000000bb",
    });
    // The same report as JSON: nothing new to store.
    const pushed = await hub.tenant.push("lab", [diagnosticReportAsJson("FHIR-1")]);
    expect(pushed.body.data.results[0]).to.include({ status: "UNCHANGED", matched: true });
    // Sent again: 200 OK, stored once.
    const again = valid<Bundle>(await fhir.batch({ body: asBody(diagnosticReportBundle({ externalId: "FHIR-1" })) }));
    expect(again.entry![1]!.response!.status).to.equal("200 OK");
    expect(await storedReport("FHIR-1")).to.have.length(1);
  });

  it("rejects a bad report of a batch with an OperationOutcome naming the element, storing the others", async () => {
    const bundle = diagnosticReportBundle({ externalId: "FHIR-OK" });
    const bad = diagnosticReportBundle({ externalId: "FHIR-BAD", issued: "yesterday" });
    // The bad report's resources, renamed so that both reports live in one Bundle.
    const renamed = JSON.parse(
      JSON.stringify(bad.entry).replace(/0000-4000-8000-0000/g, "0000-4000-8000-9999"),
    ) as typeof bad.entry;
    bundle.entry!.push(...renamed!);
    const answer = valid<Bundle>(await fhir.batch({ body: asBody(bundle) }));
    const statuses = answer.entry!.map((entry) => entry.response!.status);
    expect(statuses.slice(0, 6)).to.deep.equal(Array(6).fill("201 Created"));
    expect(statuses.slice(6)).to.deep.equal(Array(6).fill("400 Bad Request"));
    const outcome = answer.entry![7]!.response!.outcome as OperationOutcome;
    expect(outcome.issue[0]!.expression).to.deep.equal(["Bundle.entry[7].resource.issued"]);
    expect(outcome.issue[0]!.diagnostics).to.match(/^reportedAt: /);
    expect(await storedReport("FHIR-OK")).to.have.length(1);
    expect(await storedReport("FHIR-BAD")).to.have.length(0);
  });

  it("stores a transaction whole, or, when one report is bad, nothing, naming every problem", async () => {
    const good = valid<Bundle>(
      await fhir.transaction({
        body: asBody(diagnosticReportBundle({ type: "transaction", externalId: "FHIR-TX-1" })),
      }),
    );
    expect(good.type).to.equal("transaction-response");
    expect(good.entry!.every((entry) => entry.response!.status === "201 Created")).to.equal(true);

    const bundle = diagnosticReportBundle({ type: "transaction", externalId: "FHIR-TX-2" });
    const bad = diagnosticReportBundle({ externalId: "FHIR-TX-3", issued: "yesterday" });
    bundle.entry!.push(
      ...(JSON.parse(
        JSON.stringify(bad.entry).replace(/0000-4000-8000-0000/g, "0000-4000-8000-9999"),
      ) as typeof bad.entry)!,
    );
    bundle.entry!.push({ resource: { resourceType: "Practitioner" } as never });
    const { status, body } = await refused(fhir.transaction({ body: asBody(bundle) }));
    expect(status).to.equal(400);
    valid(body);
    expect(body.issue.map((issue) => [issue.code, issue.expression?.[0]])).to.deep.equal([
      ["not-supported", "Bundle.entry[12]"],
      ["invalid", "Bundle.entry[7].resource.issued"],
    ]);
    expect(await storedReport("FHIR-TX-2"), "nothing of the transaction").to.have.length(0);
  });

  it("answers what it cannot take with an OperationOutcome that says how to fix the call", async () => {
    const notBundle = await refused(fhir.batch({ body: asBody({ resourceType: "Patient" }) }));
    expect(notBundle.status).to.equal(400);
    expect(valid<OperationOutcome>(notBundle.body).issue[0]!.diagnostics).to.match(/POST a Bundle/);
    const noReport = await refused(
      fhir.batch({
        body: asBody({ resourceType: "Bundle", type: "batch", entry: [{ resource: { resourceType: "Patient" } }] }),
      }),
    );
    expect(valid<OperationOutcome>(noReport.body).issue[0]!.diagnostics).to.match(/no DiagnosticReport/);
    const noKey = await refused(
      new Client({ baseUrl: `${hub.service.url}/fhir/r4` }).batch({ body: asBody(diagnosticReportBundle()) }),
    );
    expect(noKey.status).to.equal(401);
    expect(valid<OperationOutcome>(noKey.body).issue[0]!.code).to.equal("login");
    const unknown = await fetch(`${hub.service.url}/fhir/r4/Condition`);
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get("content-type")).to.match(/^application\/fhir\+json/);
    valid(await unknown.json());
  });
});
