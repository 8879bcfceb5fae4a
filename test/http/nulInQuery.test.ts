import { expect } from "chai";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { TEST_ADMIN_TOKEN } from "../support/service.ts";

/*
 * Issue #52, finding 7: a NUL (%00) in a query parameter reached PostgreSQL, which refuses text
 * with a NUL, and the caller got a 500 (`q=` of the patient list, FHIR `code=`, the access log's
 * `who=`). Every query parameter of every interface is refused with a 400 naming it, in the
 * interface's own shape, before any route reads it.
 */

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
}

describe("a NUL in a query parameter", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  /** The credential each interface takes: the client key for /open/v1, the administrator for /api/admin, else the author. */
  const tokenFor = (path: string) =>
    path.startsWith("/open/v1")
      ? hub.tenant.client.key
      : path.startsWith("/api/admin")
        ? TEST_ADMIN_TOKEN
        : hub.tenant.authorToken;
  const get = async (pathAndQuery: string) => {
    const answer = await fetch(`${hub.service.url}${pathAndQuery}`, {
      headers: { authorization: `Bearer ${tokenFor(pathAndQuery)}`, "x-service-tenant": "h1" },
    });
    return { status: answer.status, text: await answer.text() };
  };

  it("in q= of the patient list is a 400 naming q, not a 500", async () => {
    const answer = await get("/api/patients?q=%E5%BC%A0%00");
    expect(answer.status, answer.text).to.equal(400);
    expect(JSON.parse(answer.text)).to.deep.equal({
      error: "The query parameter q holds a NUL character (%00), which no value can contain: remove it.",
    });
    expect((await get("/api/patients?q=%E5%BC%A0")).status, "the same search without it").to.equal(200);
  });

  it("in FHIR code= of an Observation search is a 400 OperationOutcome naming code", async () => {
    // The patient has results: the search reaches the database.
    expect((await hub.tenant.push("lab", [labReport("NUL-QUERY-1")])).status).to.equal(200);
    const answer = await get("/fhir/r4/Observation?patient=P001&code=HGB%00");
    expect(answer.status, answer.text).to.equal(400);
    const outcome = JSON.parse(answer.text) as {
      resourceType: string;
      issue: Array<{ severity: string; diagnostics: string }>;
    };
    expect(outcome.resourceType).to.equal("OperationOutcome");
    expect(outcome.issue[0]!.diagnostics).to.include("query parameter code holds a NUL character");
    expect((await get("/fhir/r4/Observation?patient=P001&code=HGB")).status, "the same search without it").to.equal(
      200,
    );
  });

  it("in who= of the administrator's access log is a 400 naming who", async () => {
    const answer = await get("/api/admin/access-log?who=nurse%00");
    expect(answer.status, answer.text).to.equal(400);
    expect(answer.text).to.include("The query parameter who holds a NUL character");
  });

  it("in any documented query parameter of /api, /open/v1 and /fhir/r4 is a 400 naming it, in the interface's shape", async () => {
    const document = (await (await fetch(`${hub.service.url}/openapi.json`)).json()) as OpenApiDocument;
    const cases = Object.entries(document.paths)
      .filter(([path]) => /^\/(api|open\/v1|fhir\/r4)\//.test(path))
      .flatMap(([path, operations]) =>
        (operations.get?.parameters ?? [])
          .filter((parameter) => parameter.in === "query")
          .map((parameter) => ({ path: path.replace(/\{[^}]+\}/g, "P001"), name: parameter.name })),
      );
    expect(cases.length, "query parameters documented").to.be.above(20);
    const wrong: string[] = [];
    for (const { path, name } of cases) {
      const answer = await get(`${path}?${name}=x%00y`);
      const named = answer.text.includes(`The query parameter ${name} holds a NUL character`);
      const shaped = path.startsWith("/open/v1")
        ? /^\{"code":400,"msg":/.test(answer.text)
        : path.startsWith("/fhir")
          ? answer.text.includes('"OperationOutcome"')
          : /^\{"error":/.test(answer.text);
      if (answer.status !== 400 || !named || !shaped)
        wrong.push(`${path}?${name}=: ${answer.status} ${answer.text.slice(0, 120)}`);
    }
    expect(wrong).to.deep.equal([]);
  });
});
