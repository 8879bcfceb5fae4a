import { expect } from "chai";
import type { RawAnswer, RawRequest } from "../support/rawHttp.ts";
import { ADMIN } from "../support/http.ts";
import { administration, authoring, records, viewing, type Credentials } from "./support/apiRequests.ts";
import { fuzz, type FuzzTarget } from "./support/fuzzing.ts";
import { startHostileService, type HostileService } from "./support/hostileService.ts";

/** Contract A and C: every /api call, fuzzed in its path, query string, body and headers. */

const CONCURRENCY = 6;

const FILE_TYPES: Record<string, string> = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

/** An export answered 200 is the file, as an attachment. */
function exportIsAFile(request: RawRequest, answer: RawAnswer): string | null {
  if (answer.status !== 200) return null;
  const format = request.path.endsWith("/xlsx") ? "xlsx" : "docx";
  if (answer.headers["content-type"] !== FILE_TYPES[format])
    return `an export answered ${answer.headers["content-type"]}`;
  if (!String(answer.headers["content-disposition"] ?? "").startsWith("attachment;"))
    return "an export without Content-Disposition: attachment";
  return null;
}

describe("hostile input: the viewing, authoring and administration API (/api), fuzzed", function () {
  this.timeout(120_000);
  let hostile: HostileService;
  let credentials: Credentials;
  let fuzzedClientId: string;
  const sentBy: Record<string, number> = {};

  before(async () => {
    hostile = await startHostileService();
    credentials = { authorToken: hostile.tenant.authorToken, adminToken: ADMIN };
    const created = await hostile.tenant.call("POST", "/api/admin/clients", {
      token: ADMIN,
      body: { name: "Fuzzed LIS", tenant: "h1" },
    });
    fuzzedClientId = created.body.clientId;
  });
  after(async () => {
    const total = Object.values(sentBy).reduce((a, b) => a + b, 0);
    console.log(
      `      fuzzed /api inputs: ${total} (${Object.entries(sentBy)
        .map(([name, n]) => `${name} ${n}`)
        .join(", ")})`,
    );
    await hostile?.stop();
  });

  const run = async (target: FuzzTarget) => {
    sentBy[target.name] = await fuzz(target, {
      client: hostile.client,
      concurrency: CONCURRENCY,
      faults: hostile.faults,
    });
  };

  it("POST /api/reports/:id/data: any version, params, headers", async () => {
    await run({ name: "data", iface: "api", count: 1000, requests: viewing.data, databaseWordsAllowed: true });
  });

  it("POST /api/reports/:id/drill: any drill, args, params", async () => {
    await run({ name: "drill", iface: "api", count: 800, requests: viewing.drill, databaseWordsAllowed: true });
  });

  for (const [format, count] of [
    ["xlsx", 400],
    ["docx", 150],
  ] as const) {
    it(`POST /api/reports/:id/export/${format}: any body; a 200 is the file`, async () => {
      await run({
        name: `export ${format}`,
        iface: "api",
        count,
        requests: viewing.export(format),
        check: exportIsAFile,
      });
    });
  }

  it("GET view, versions, audit, the list, and any other path below /api", async () => {
    await run({ name: "reads", iface: "api", count: 600, requests: viewing.reads });
  });

  it("patients and the unmatched queue: any body, ref, kind, id and credential", async () => {
    await run({ name: "patients and queue", iface: "api", count: 1000, requests: records(credentials) });
  });

  it("authoring: PUT draft, publish, restore, discard with any spec and credential", async () => {
    await run({
      name: "authoring",
      iface: "api",
      count: 600,
      requests: authoring(credentials),
      databaseWordsAllowed: true,
    });
  });

  it("administration: clients, authors, code maps, projections with any body and credential", async () => {
    await run({ name: "admin", iface: "api", count: 500, requests: administration(credentials, fuzzedClientId) });
  });

  it("still answers /healthz and a data call afterwards", async () => {
    expect((await hostile.client.send({ method: "GET", path: "/healthz" })).status).to.equal(200);
    const data = await hostile.tenant.call("POST", "/api/reports/every-param/data", { body: { version: "v1" } });
    expect(data.status).to.equal(200);
    expect(data.body.queries.results.rows.length).to.be.greaterThan(0);
  });
});
