import { expect } from "chai";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { brokenPromises } from "../support/answerChecks.ts";
import { rawSocket, type RawAnswer, type RawRequest } from "../support/rawHttp.ts";
import { everyParamSpec } from "../support/seededTenant.ts";
import { startHostileService, type HostileService } from "./support/hostileService.ts";

/**
 * Hand-picked hostile inputs (issue #7, point 3): nesting, numbers and strings at their extremes,
 * bytes that are not UTF-8, bodies at the size limits, and SQL injection through report params.
 * Path traversal is in pathTraversal.test.ts, slow clients in slowClients.test.ts.
 */

const FOUR_MB = 4 * 1024 * 1024;
const ONE_MB = 1024 * 1024;
const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("hostile input: targeted cases", function () {
  this.timeout(60_000);
  let hostile: HostileService;
  const key = () => hostile.tenant.client.key;

  before(async () => {
    hostile = await startHostileService();
  });
  after(() => hostile?.stop());

  /** Sends a request as h1 and checks the promises every answer keeps (answerChecks.ts). */
  async function send(request: RawRequest & { token?: string }): Promise<RawAnswer & { json: any }> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-service-tenant": "h1",
      ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
      ...request.headers,
    };
    const exchange = { ...request, headers };
    const answer = await hostile.client.send(exchange);
    const iface = request.path.startsWith("/open/v1") ? "open" : "api";
    expect(
      brokenPromises(iface, exchange, answer),
      `${request.method} ${request.path} → ${answer.status} ${answer.text.slice(0, 300)}`,
    ).to.deep.equal([]);
    return {
      ...answer,
      json: answer.text && (answer.headers["content-type"] ?? "").includes("json") ? JSON.parse(answer.text) : null,
    };
  }
  const push = (body: string) => send({ method: "POST", path: "/open/v1/lab/reports", token: key(), body });
  const reportJson = (externalId: string, overrides: Record<string, unknown> = {}) =>
    JSON.stringify(labReport(externalId, overrides));

  describe("nesting", () => {
    it("takes 100,000 nested arrays anywhere in a push: the report rejected or the field stripped, never a fault", async () => {
      const asReports = await push(`{"reports":${deep(100_000)}}`);
      expect(asReports.json.data).to.include({ total: 1, rejected: 1 });
      const asValue = await push(
        `{"reports":[${reportJson("DEEP-1").replace('"value":11.5', `"value":${deep(100_000)}`)}]}`,
      );
      expect(asValue.json.data.results[0].errors[0].field).to.equal("items[0].value");
      const asUnknownField = await push(
        `{"reports":[${reportJson("DEEP-2").slice(0, -1)},"extension":${deep(100_000)}}]}`,
      );
      expect(asUnknownField.json.data.results[0].status, "an unknown field is stripped, whatever its depth").to.equal(
        "CREATED",
      );
    });

    it("refuses 100,000 nested arrays in /api bodies with 400", async () => {
      const author = hostile.tenant.authorToken;
      const spec = JSON.stringify({
        ...everyParamSpec,
        params: everyParamSpec.params.map((p, i) => (i === 0 ? { ...p, default: "@@deep" } : p)),
      });
      await send({
        method: "PUT",
        path: "/api/reports/deep-one/draft",
        token: author,
        body: JSON.stringify({ spec: everyParamSpec }),
      });
      for (const [path, body, token] of [
        ["/api/reports/every-param/data", `{"params":{"wards":${deep(100_000)}}}`, undefined],
        ["/api/reports/every-param/drill", `{"drill":"detail","args":{"stdCode":${deep(100_000)}}}`, undefined],
        ["/api/reports/deep-one/draft", `{"spec":${spec.replace('"@@deep"', deep(100_000))}}`, author],
        ["/api/reports/deep-one/publish", `{"mode":"snapshot","params":{"period":${deep(100_000)}}}`, author],
        ["/api/patients/P-DEEP", `{"name":${deep(100_000)},"idCard":"11010519491231002X"}`, author],
      ] as const) {
        const answer = await send({
          method: path.endsWith("draft") || path.includes("patients") ? "PUT" : "POST",
          path,
          token,
          body,
        });
        expect(answer.status, path).to.equal(400);
      }
    });
  });

  describe("numbers at their extremes", () => {
    it("rejects 1e400 and -1e400 (Infinity once parsed) naming the field, and accepts 4.9e-324 and -0", async () => {
      const infinite = await push(
        `{"reports":[${reportJson("NUM-1").replace('"value":11.5', '"value":1e400').replace('"refLow":11.5', '"refLow":-1e400')}]}`,
      );
      expect(infinite.json.data.results[0].errors.map((e: { field: string }) => e.field)).to.have.members([
        "items[0].value",
        "items[0].refLow",
      ]);
      const tiny = await push(
        `{"reports":[${reportJson("NUM-2").replace('"value":11.5', '"value":4.9e-324').replace('"refLow":11.5', '"refLow":-0')}]}`,
      );
      expect(tiny.json.data.results[0].status).to.equal("CREATED");
    });

    it("refuses a non-finite report param naming it, and takes an integer beyond 2^53 as a number", async () => {
      const infinite = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: '{"params":{"minValue":1e400}}',
      });
      expect(infinite.status).to.equal(400);
      expect(infinite.json.error).to.include("minValue");
      const range = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: '{"params":{"valueRange":[-1e400,null]}}',
      });
      expect(range.status).to.equal(400);
      const huge = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: '{"version":"v1","params":{"minValue":123456789012345678901234567890}}',
      });
      expect(huge.status).to.equal(200);
      expect(huge.json.queries.results.rows).to.deep.equal([]);
    });
  });

  describe("long strings", () => {
    it("rejects a 2 MB field and a 512 KB externalId with a sentence, storing the batch's other report", async () => {
      const answer = await push(
        `{"reports":[${reportJson("LONG-1", { labName: "x".repeat(2 * ONE_MB) })},${reportJson("x".repeat(ONE_MB / 2))},${reportJson("LONG-OK")}]}`,
      );
      const [labName, externalId, fine] = answer.json.data.results;
      expect(labName.errors[0]).to.include({ field: "labName" });
      expect(externalId.errors[0]).to.include({ field: "externalId" });
      expect(externalId.externalId.length, "the id is echoed cut to 128 characters").to.equal(128);
      expect(fine.status).to.equal("CREATED");
    });

    it("refuses a 900 KB text param and title with 400", async () => {
      expect(
        (
          await send({
            method: "POST",
            path: "/api/reports/every-param/data",
            body: JSON.stringify({ params: { itemName: "界".repeat(300_000) } }),
          })
        ).status,
      ).to.equal(400);
      expect(
        (
          await send({
            method: "PUT",
            path: "/api/reports/long-one/draft",
            token: hostile.tenant.authorToken,
            body: JSON.stringify({ title: "t".repeat(900_000), spec: everyParamSpec }),
          })
        ).status,
      ).to.equal(400);
    });
  });

  describe("bytes that are not UTF-8, and text PostgreSQL cannot store", () => {
    const read = async (sql: string, values: unknown[]) => (await hostile.service.db.query(sql, values)).rows;

    it("refuses invalid UTF-8 and CESU-8 surrogates in a push with 400 naming the field, storing nothing in their place", async () => {
      const [before, after] = `{"reports":[${reportJson("UTF-1", { labName: "lab \ufffd @@" })}]}`.split("@@");
      const withBadBytes = Buffer.concat([
        Buffer.from(before!),
        Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]),
        Buffer.from(after!),
      ]);
      const answer = await send({ method: "POST", path: "/open/v1/lab/reports", token: key(), body: withBadBytes });
      expect(answer.status).to.equal(400);
      // The sender's own U+FFFD before them is valid UTF-8: the sentence names the first bytes that are not.
      expect(JSON.stringify(answer.json)).to.include(
        `The body is not valid UTF-8 at byte ${Buffer.byteLength(before!)} (in the text at reports[0].labName)`,
      );
      expect(await read("select 1 from events where stream_id = 'lab-report:UTF-1'", [])).to.deep.equal([]);
      const api = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: Buffer.concat([Buffer.from('{"params":{"itemName":"'), Buffer.from([0xc3]), Buffer.from('"}}')]),
      });
      expect(api.status).to.equal(400);
      expect(api.json.error).to.include("not valid UTF-8 at byte 23 (in the text at params.itemName)");
    });

    it("rejects only the report with a NUL or half a surrogate pair, naming the field; the others of the batch are stored", async () => {
      const lowHalfInItem = {
        items: [
          { itemCode: "HGB", value: 100, unit: "g/L" },
          { itemCode: "K", value: "x\udc00", unit: "mmol/L" },
        ],
      };
      // The six characters \u0000 written as text are storable: only the character U+0000 is not.
      const escapeAsText = { labName: "C:\\u0000\\ud800" };
      const answer = await push(
        `{"reports":[${reportJson("NUL-1", { labName: "a\u0000b" })},` +
          `${reportJson("SUR-1", { patient: { idCard: "11010519491231002X", name: "张\ud800" } })},` +
          `${reportJson("SUR-2", lowHalfInItem)},${reportJson("SUR-OK", escapeAsText)}]}`,
      );
      const [nul, surrogate, lowHalf, fine] = answer.json.data.results;
      expect(nul).to.include({ status: "REJECTED", externalId: "NUL-1" });
      expect(nul.errors[0].field).to.equal("labName");
      expect(surrogate.errors[0].field).to.equal("patient.name");
      expect(lowHalf.errors[0].field).to.equal("items[1].value");
      expect(fine.status).to.equal("CREATED");
      const stored = await read(
        "select data->'report'->>'labName' as lab from events where stream_id = 'lab-report:SUR-OK'",
        [],
      );
      expect(stored[0].lab).to.equal("C:\\u0000\\ud800");
    });

    it("refuses such text in /api bodies and paths with 400 or 404, naming where", async () => {
      const patient = await send({
        method: "PUT",
        path: "/api/patients/P-NUL",
        token: hostile.tenant.authorToken,
        body: '{"name":"王\\u0000五","idCard":"11010519491231002X"}',
      });
      expect(patient.status).to.equal(400);
      expect(patient.json.error).to.include("name");
      const dismissal = await send({
        method: "POST",
        path: "/api/unmatched/lab/H1-UNMATCHED/dismiss",
        token: hostile.tenant.authorToken,
        body: '{"reason":"\\udc00"}',
      });
      expect(dismissal.status).to.equal(400);
      expect(
        (
          await send({
            method: "POST",
            path: "/api/unmatched/lab/H1%00/claim",
            token: hostile.tenant.authorToken,
            body: '{"patientRef":"P001"}',
          })
        ).status,
      ).to.equal(404);
      expect((await send({ method: "DELETE", path: "/api/admin/clients/%00", token: ADMIN })).status).to.equal(404);
    });

    it("answers raw non-ASCII bytes in the path, which HTTP forbids, in the interface's shape", async () => {
      for (const [path, shape] of [
        ["/open/v1/ping?x=\u00ff\u00fe", /"code":400/],
        ["/api/reports/\u00e9", /"error":/],
      ] as const) {
        const socket = await rawSocket(hostile.service.url!);
        socket.write(
          Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key()}\r\n\r\n`, "latin1"),
        );
        const text = await socket.waitFor(/\r\n\r\n[\s\S]*\}/, 5000);
        socket.destroy();
        expect(text, path).to.match(/^HTTP\/1\.1 400 /);
        expect(text, path).to.match(shape);
      }
    });

    it("refuses Latin-1 bytes in X-Service-Tenant with 400 in the envelope", async () => {
      const answer = await send({
        method: "GET",
        path: "/open/v1/ping",
        token: key(),
        headers: { "x-service-tenant": "h\u00e91" },
      });
      expect(answer.status).to.equal(400);
    });
  });

  describe("names that are keys of every JavaScript object", () => {
    it("takes __proto__, constructor and toString as unknown names, never as a drill, param or kind", async () => {
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const drill = await send({
          method: "POST",
          path: "/api/reports/every-param/drill",
          body: `{"version":"v1","drill":${JSON.stringify(name)}}`,
        });
        expect(drill.status, `drill ${name}`).to.equal(400);
        expect(drill.json.error).to.include("detail");
        const params = await send({
          method: "POST",
          path: "/api/reports/every-param/data",
          body: `{"version":"v1","params":{${JSON.stringify(name)}:{"x":1}}}`,
        });
        expect(params.status, `param ${name}`).to.equal(400);
        const args = await send({
          method: "POST",
          path: "/api/reports/every-param/drill",
          body: `{"version":"v1","drill":"detail","args":{${JSON.stringify(name)}:1}}`,
        });
        expect(args.status, `arg ${name}`).to.equal(400);
        expect(
          (
            await send({
              method: "POST",
              path: `/api/unmatched/${name}/H1-UNMATCHED/claim`,
              token: hostile.tenant.authorToken,
              body: '{"patientRef":"P001"}',
            })
          ).status,
          `kind ${name}`,
        ).to.equal(404);
        expect(
          (await send({ method: "GET", path: `/open/v1/dict/lab-items?category=${name}`, token: key() })).status,
          `category ${name}`,
        ).to.equal(400);
      }
    });

    it("stores a result whose unit is such a name (or holds one) as sent, unconverted", async () => {
      const units = ["constructor", "toString", "__proto__", "constructor/L", "g/L.valueOf"];
      const pushed = await push(
        JSON.stringify({
          reports: units.map((unit, i) => ({
            ...labReport(`UNIT-NAME-${i}`),
            items: [{ itemCode: "HGB", itemName: "血红蛋白", value: 11.5, unit }],
          })),
        }),
      );
      expect(pushed.status).to.equal(200);
      expect(pushed.json.data.results.map((result: { status: string }) => result.status)).to.deep.equal(
        units.map(() => "CREATED"),
      );
    });
  });

  describe("bodies at the size limits", () => {
    const padded = (json: string, size: number) =>
      Buffer.concat([Buffer.from(json), Buffer.alloc(size - Buffer.byteLength(json), " ")]);

    it("accepts a push of exactly 4 MB and answers 413 in the envelope to 4 MB + 1 byte", async () => {
      const body = `{"reports":[${reportJson("SIZE-1")}]}`;
      const exactly = await send({
        method: "POST",
        path: "/open/v1/lab/reports",
        token: key(),
        body: padded(body, FOUR_MB),
      });
      expect(exactly.status).to.equal(200);
      const over = await send({
        method: "POST",
        path: "/open/v1/lab/reports",
        token: key(),
        body: padded(body, FOUR_MB + 1),
      });
      expect(over.status).to.equal(413);
      expect(over.json).to.include({ code: 413, data: null });
    });

    it("decides 413 on Content-Length before the body arrives, and on the bytes of a chunked body", async () => {
      const announced = await rawSocket(hostile.service.url!);
      announced.write(
        `POST /open/v1/lab/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key()}\r\nContent-Type: ` +
          `application/json\r\nContent-Length: ${FOUR_MB + 1}\r\n\r\n{"reports":[`,
      );
      const early = await announced.waitFor(/\r\n\r\n\{.*\}/, 5000);
      announced.destroy();
      expect(early)
        .to.match(/^HTTP\/1\.1 413 /)
        .and.match(/"code":413/);

      const chunked = await rawSocket(hostile.service.url!);
      chunked.write(
        `POST /open/v1/lab/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key()}\r\nContent-Type: ` +
          `application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const piece = " ".repeat(ONE_MB);
      for (let i = 0; i < 5 && !/\r\n\r\n/.test(chunked.received()); i++)
        chunked.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      const counted = await chunked.waitFor(/\r\n\r\n\{.*\}/, 5000);
      chunked.destroy();
      expect(counted)
        .to.match(/^HTTP\/1\.1 413 /)
        .and.match(/"code":413/);
    });

    it("takes /api bodies up to exactly 1 MB and answers 413 { error } to 1 MB + 1 byte", async () => {
      const exactly = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: padded('{"params":{}}', ONE_MB),
      });
      expect(exactly.status).to.equal(200);
      const over = await send({
        method: "POST",
        path: "/api/reports/every-param/data",
        body: padded('{"params":{}}', ONE_MB + 1),
      });
      expect(over.status).to.equal(413);
      expect(over.json.error).to.match(/1 MB/);
    });
  });

  /**
   * Values are bound as typed query parameters, never spliced into the SQL (contract A.4); the
   * compiler's side is covered in test/commands/reports/sqlTemplate.test.ts ("binds … as a
   * parameter"). Here, end to end: a value that would change the statement if spliced finds nothing.
   */
  describe("SQL injection through report params", () => {
    const data = (params: Record<string, unknown>) =>
      send({ method: "POST", path: "/api/reports/every-param/data", body: JSON.stringify({ version: "v1", params }) });
    const drill = (args: Record<string, unknown>) =>
      send({
        method: "POST",
        path: "/api/reports/every-param/drill",
        body: JSON.stringify({ version: "v1", drill: "detail", args }),
      });
    const labResults = async () =>
      (await hostile.service.db.query("select count(*)::int as n from read.lab_results")).rows[0].n;

    it("finds rows with a real value and none with the same value turned into an injection", async () => {
      // The pushes of the tests before may still be reaching the item rows: count them once they have.
      await projectionsCaughtUp(hostile.service.url!, 60_000, ["lab_results"]);
      const before = await labResults();
      const real = await data({ itemName: "血红蛋白" });
      expect(real.json.queries.results.rows.length).to.be.greaterThan(0);
      for (const itemName of [
        "血红蛋白' or '1'='1",
        "x' or 1=1 --",
        "'; delete from lab_results; --",
        "' union select external_id, std_code, std_value, reported_on, abnormal_flag from lab_results --",
        "{{day}}",
        "$1",
        "]] or 1=1 [[",
      ]) {
        const answer = await data({ itemName });
        expect(answer.status, itemName).to.equal(200);
        expect(answer.json.queries.results, itemName)
          .to.include({ truncated: false })
          .and.have.property("rows")
          .that.deep.equals([]);
      }
      expect(await labResults(), "nothing was deleted").to.equal(before);
    });

    it("binds multi-select values and drill args the same way", async () => {
      const ward = await data({ wards: ["A') or ('1'='1", "A' or 'x'='x"] });
      expect(ward.json.queries.results.rows).to.deep.equal([]);
      const arg = await drill({ stdCode: "HGB' or '1'='1" });
      expect(arg.json.queries.rows.rows).to.deep.equal([]);
      const real = await drill({ stdCode: "HGB" });
      expect(real.json.queries.rows.rows.length).to.be.greaterThan(0);
    });

    it("refuses a value of the wrong type before any SQL runs", async () => {
      for (const params of [
        { minValue: "1 or 1=1" },
        { day: "2026-01-01' or '1'='1" },
        { code: "HGB' or '1'='1" },
        { withFlag: "true or 1=1" },
      ]) {
        const answer = await data(params);
        expect(answer.status, JSON.stringify(params)).to.equal(400);
        expect(answer.json.error, "the sentence names the param").to.include(Object.keys(params)[0]);
      }
    });
  });

  it("still answers /healthz and a valid push afterwards", async () => {
    expect((await hostile.client.send({ method: "GET", path: "/healthz" })).status).to.equal(200);
    expect((await push(`{"reports":[${reportJson("AFTER-TARGETED")}]}`)).json.data.results[0].status).to.equal(
      "CREATED",
    );
  });
});
