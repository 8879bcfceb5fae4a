import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { API_ERROR_CODES } from "../../commands/kit/errorCodes.ts";
import Router from "@koa/router";
import { expect } from "chai";
import { z } from "zod";
import { pushResultSchema } from "../../commands/ingestion/pushReports.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { dictionaryAnswerSchema } from "../../queries/dictionary/dictionary.ts";
import { reconciliationSchema } from "../../queries/ingestion/reconciliation.ts";
import { pingAnswer } from "../../src/ingestion/openV1/openApiRoutes.ts";
import { envelopeSchema } from "../../src/ingestion/openV1/envelope.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ingestionTenant, labReport } from "../support/ingestion.ts";
import { startTestService } from "../support/service.ts";

type Json = any;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Problems of an OpenAPI 3.1 document's structure: what a reader (or Swagger UI) relies on. */
function structuralProblems(doc: Json): string[] {
  const problems: string[] = [];
  const problem = (condition: unknown, text: string) => !condition && problems.push(text);
  problem(/^3\.1\.\d+$/.test(doc.openapi), `openapi is ${doc.openapi}, not 3.1.x`);
  problem(typeof doc.info?.title === "string" && typeof doc.info?.version === "string", "info needs title and version");
  const schemes = doc.components?.securitySchemes ?? {};
  for (const [name, scheme] of Object.entries<Json>(schemes)) {
    problem(
      ["http", "apiKey", "oauth2", "openIdConnect", "mutualTLS"].includes(scheme.type),
      `security scheme ${name} has type ${scheme.type}`,
    );
    if (scheme.type === "http") problem(typeof scheme.scheme === "string", `security scheme ${name} needs scheme`);
    if (scheme.type === "apiKey")
      problem(
        ["header", "query", "cookie"].includes(scheme.in) && typeof scheme.name === "string",
        `security scheme ${name} needs in and name`,
      );
  }
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    problem(path.startsWith("/"), `path ${path} must start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, operation] of Object.entries<Json>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        problems.push(`${where}: ${method} is not an HTTP method`);
        continue;
      }
      problem(
        typeof operation.operationId === "string" && !operationIds.has(operation.operationId),
        `${where}: operationId missing or repeated`,
      );
      operationIds.add(operation.operationId);
      const responses = Object.entries<Json>(operation.responses ?? {});
      problem(responses.length > 0, `${where}: no responses`);
      for (const [status, response] of responses) {
        problem(/^([1-5][0-9][0-9]|[1-5]XX|default)$/.test(status), `${where}: response key ${status}`);
        problem(typeof response.description === "string", `${where} ${status}: description missing`);
      }
      const parameters: Json[] = operation.parameters ?? [];
      for (const parameter of parameters) {
        problem(
          ["query", "header", "path", "cookie"].includes(parameter.in) && typeof parameter.name === "string",
          `${where}: parameter without in/name`,
        );
        problem(
          parameter.schema !== undefined || parameter.content !== undefined,
          `${where}: parameter ${parameter.name} without schema`,
        );
      }
      const inPath = parameters.filter((p) => p.in === "path");
      for (const name of templated) {
        problem(
          inPath.some((p) => p.name === name && p.required === true),
          `${where}: path parameter ${name} not declared as required`,
        );
      }
      for (const p of inPath)
        problem(templated.includes(p.name), `${where}: path parameter ${p.name} is not in the path`);
      for (const requirement of operation.security ?? []) {
        for (const name of Object.keys(requirement))
          problem(name in schemes, `${where}: security scheme ${name} is not declared`);
      }
    }
  }
  // Every $ref points into this document and resolves.
  const visit = (node: Json, at: string) => {
    if (Array.isArray(node)) return node.forEach((child, i) => visit(child, `${at}[${i}]`));
    if (node === null || typeof node !== "object") return;
    if (typeof node.$ref === "string") {
      const target = node.$ref.startsWith("#/")
        ? node.$ref
            .slice(2)
            .split("/")
            .reduce((value: Json, key: string) => value?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc)
        : undefined;
      problem(target !== undefined, `${at}: $ref ${node.$ref} does not resolve`);
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${at}.${key}`);
  };
  visit(doc, "#");
  return problems;
}

/** `/api/reports/:id/view` → `/api/reports/{id}/view`; a trailing slash is the same route. */
function documentedPath(routerPath: string): string {
  const templated = routerPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
  return templated.length > 1 ? templated.replace(/\/$/, "") : templated;
}

/** Parses an answer with its response schema; the parse strips unknown members, so equality means nothing undocumented was sent. */
function conforms(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
  expect(parsed.data).to.deep.equal(body);
}

interface RedoclyLint {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{
    ruleId: string;
    severity: string;
    message: string;
    ignored?: boolean;
    location: Array<{ pointer: string }>;
  }>;
}

const REDOCLY = fileURLToPath(new URL("../../node_modules/@redocly/cli/bin/cli.js", import.meta.url));

/** `redocly lint --format=json` (the linter of the @redocly/cli package, a peer's check) run in `dir`. */
async function redoclyLint(dir: string, file: string): Promise<RedoclyLint> {
  // No telemetry or update check: this machine (and CI) has no network beyond the package registries.
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, "lint", file, "--format=json"], {
    cwd: dir,
    env,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((failed: { stdout?: string; stderr?: string }) => {
    if (!failed.stdout?.trim().startsWith("{")) throw new Error(`redocly lint did not run: ${failed.stderr}`);
    return { stdout: failed.stdout };
  });
  return JSON.parse(stdout) as RedoclyLint;
}

describe("OpenAPI document (/openapi.json)", () => {
  let service: RunningService;
  let registered: Array<{ method: string; path: string | RegExp }>;
  let doc: Json;

  before(async () => {
    // Every router whose routes the app mounts passes through Router#middleware (`routes()` is its alias).
    const routers: Router[] = [];
    const middleware = Router.prototype.middleware;
    Router.prototype.middleware = function (this: Router) {
      routers.push(this);
      return middleware.call(this);
    };
    try {
      service = await startTestService({ projections: allProjections });
    } finally {
      Router.prototype.middleware = middleware;
    }
    registered = routers.flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods.filter((m) => m !== "HEAD").map((method) => ({ method: method.toLowerCase(), path: layer.path })),
      ),
    );
    const answer = await fetch(`${service.url}/openapi.json`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-type")).to.match(/^application\/json/);
    doc = await answer.json();
  });
  after(() => service?.stop());

  it("is a structurally valid OpenAPI 3.1 document", () => {
    expect(structuralProblems(doc)).to.deep.equal([]);
    expect(Object.keys(doc.components.securitySchemes)).to.have.members([
      "clientKey",
      "authorToken",
      "adminToken",
      "staffSession",
      "serviceTenant",
    ]);
  });

  it("passes Redocly's recommended lint with no error and no warning but the exceptions its ignore file explains", async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-openapi-"));
    try {
      writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(doc));
      copyFileSync(
        fileURLToPath(new URL("./redocly-lint-ignore.yaml", import.meta.url)),
        path.join(dir, ".redocly.lint-ignore.yaml"),
      );
      const lint = await redoclyLint(dir, "openapi.json");
      const problems = lint.problems
        .filter((p) => !p.ignored)
        .map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`);
      expect(problems).to.deep.equal([]);
      expect(lint.totals, "the ignore file was read").to.include({ errors: 0, warnings: 0, ignored: 12 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("documents every route the app registers, and no route it does not", () => {
    expect(registered.length).to.be.greaterThan(30);
    const samplePath = (path: string) => path.replace(/\{[^}]+\}/g, "x");
    const undocumented: string[] = [];
    const covered = new Set<string>();
    for (const route of registered) {
      const path =
        typeof route.path === "string"
          ? documentedPath(route.path)
          : Object.keys(doc.paths).find((documented) => (route.path as RegExp).test(samplePath(documented)));
      if (path && doc.paths[path]?.[route.method]) covered.add(`${route.method} ${path}`);
      else undocumented.push(`${route.method.toUpperCase()} ${String(route.path)}`);
    }
    expect(undocumented, "routes missing from src/docs/openApiDocument/").to.deep.equal([]);
    const documented = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(
      documented.filter((operation) => !covered.has(operation)),
      "documented operations no router serves",
    ).to.deep.equal([]);
  });

  it(
    "names the credential of each interface: client key on /open/v1, author token on authoring and patients, " +
      "ADMIN_TOKEN or a tenant's administrator on /api/admin",
    () => {
      const schemesOf = (method: string, path: string) =>
        new Set((doc.paths[path][method].security ?? []).flatMap((r: Json) => Object.keys(r)));
      expect([...schemesOf("post", "/open/v1/lab/reports")]).to.have.members(["clientKey", "serviceTenant"]);
      expect([...schemesOf("put", "/api/reports/{id}/draft")]).to.have.members(["authorToken", "serviceTenant"]);
      expect([...schemesOf("get", "/api/unmatched")]).to.have.members(["authorToken", "serviceTenant"]);
      expect([...schemesOf("get", "/api/admin/projections")]).to.deep.equal(["adminToken"]);
      expect([...schemesOf("post", "/api/admin/clients")]).to.have.members([
        "adminToken",
        "serviceTenant",
        "authorToken",
        "staffSession",
      ]);
      expect(doc.paths["/api/reports/{id}/view"].get.security).to.deep.include({}); // viewing needs no credential
    },
  );

  it("describes failures as { error } on /api and as the envelope on /open/v1", () => {
    const apiError = doc.paths["/api/reports/{id}/view"].get.responses["404"].content["application/json"].schema;
    expect(apiError.$ref ?? "").to.equal("#/components/schemas/ApiError");
    expect(doc.components.schemas.ApiError.required).to.deep.equal(["error"]);
    expect(doc.components.schemas.ApiError.properties.code.enum).to.deep.equal([...API_ERROR_CODES]);
    const envelope = doc.paths["/open/v1/ping"].get.responses["401"].content["application/json"].schema;
    expect(envelope.required).to.have.members(["code", "msg", "data", "timestamp"]);
    expect(doc.paths["/open/v1/ping"].get.responses["429"].headers).to.have.property("Retry-After");
  });

  it("documents how answers name a dictionary item: nameEn and label beside name, and the dictionary served as documented (#34 item 5)", async () => {
    // A member of a schema, through any $ref on the way.
    const resolve = (node: Json): Json =>
      typeof node?.$ref === "string"
        ? resolve(
            node.$ref
              .slice(2)
              .split("/")
              .reduce((value: Json, key: string) => value[key], doc),
          )
        : node;
    const at = (node: Json, ...keys: string[]): Json => keys.reduce((value, key) => resolve(resolve(value)[key]), node);
    const answerOf = (path: string) => at(doc.paths[path].get.responses["200"].content["application/json"], "schema");
    const named = (schema: Json, nullable: boolean) => {
      expect(schema.required).to.include.members(["name", "nameEn", "label"]);
      for (const field of ["nameEn", "label"])
        expect(resolve(schema.properties[field]).type, field).to.deep.equal(nullable ? ["string", "null"] : "string");
    };
    named(at(answerOf("/open/v1/dict/lab-items"), "properties", "data", "properties", "items", "items"), false);
    named(at(answerOf("/api/dictionary/lab-items"), "properties", "items", "items"), false);
    named(at(answerOf("/api/patients/{patientRef}/results"), "properties", "series", "items"), false);
    named(at(answerOf("/api/patients/{patientRef}/result-items"), "items"), false);
    named(at(answerOf("/api/alerts"), "items"), true);
    const standardItems = at(
      answerOf("/api/history/{kind}/{externalId}/versions/{n}"),
      "properties",
      "standardItems",
      "items",
    );
    expect(
      standardItems.anyOf.map((one: Json) => resolve(one).type),
      "a standard item or null",
    ).to.deep.equal(["object", "null"]);
    named(resolve(standardItems.anyOf[0]), false);
    const tenant = await ingestionTenant(service, "openapi-dict");
    conforms(
      envelopeSchema(dictionaryAnswerSchema),
      (await tenant.call("GET", "/open/v1/dict/lab-items", { token: tenant.client.key })).body,
    );
    conforms(
      dictionaryAnswerSchema,
      (await tenant.call("GET", "/api/dictionary/lab-items", { token: tenant.authorToken })).body,
    );
  });

  describe("the lab push, as documented and as served", () => {
    let tenant: Awaited<ReturnType<typeof ingestionTenant>>;
    let labReportSchema: Json;
    let pushBody: Json;
    before(async () => {
      tenant = await ingestionTenant(service, "openapi");
      const operation = doc.paths["/open/v1/lab/reports"].post;
      pushBody = operation.requestBody.content["application/json"].schema;
      expect(pushBody.properties.reports.items.$ref).to.equal("#/components/schemas/LabReport");
      labReportSchema = doc.components.schemas.LabReport;
    });

    it("accepts a report the document describes, ignoring an unknown field, and answers as documented", async () => {
      const answer = await tenant.push("lab", [labReport("OA-1", { sentBy: "a newer LIS" })]);
      expect(answer.status).to.equal(200);
      conforms(envelopeSchema(pushResultSchema), answer.body);
      expect(answer.body.data.results[0]).to.include({ externalId: "OA-1", status: "CREATED" });
      expect(labReportSchema.additionalProperties, "unknown fields are not refused").to.equal(undefined);
    });

    it("rejects a report without each field the document requires, naming the field", async () => {
      expect(labReportSchema.required).to.include.members(["externalId", "patient", "reportedAt", "items"]);
      for (const field of labReportSchema.required as string[]) {
        const report: Record<string, unknown> = labReport(`OA-missing-${field}`);
        delete report[field];
        const answer = await tenant.push("lab", [report]);
        expect(answer.status, field).to.equal(200);
        expect(answer.body.data.results[0].status, field).to.equal("REJECTED");
        expect(
          answer.body.data.results[0].errors.map((e: { field: string }) => e.field),
          field,
        ).to.include(field);
      }
    });

    it("rejects a value outside each enumeration and pattern the document gives", async () => {
      const outside: Record<string, unknown> = {};
      for (const [field, property] of Object.entries<Json>(labReportSchema.properties)) {
        if (property.enum) outside[field] = "NOT_ONE_OF_THEM";
        else if (property.pattern) outside[field] = "not matching";
      }
      expect(Object.keys(outside)).to.include.members(["status", "specimen", "reportedAt", "collectedAt"]);
      for (const [field, value] of Object.entries(outside)) {
        expect(new RegExp(labReportSchema.properties[field].pattern ?? "^$").test(String(value)), field).to.equal(
          false,
        );
        const answer = await tenant.push("lab", [labReport(`OA-bad-${field}`, { [field]: value })]);
        expect(answer.body.data.results[0].status, field).to.equal("REJECTED");
        expect(
          answer.body.data.results[0].errors.map((e: { field: string }) => e.field),
          field,
        ).to.include(field);
      }
    });

    it("refuses the whole push with 400 where the document's body does: reports missing, not an array, over maxItems", async () => {
      expect(pushBody.required).to.deep.equal(["reports"]);
      const max = pushBody.properties.reports.maxItems as number;
      expect(max).to.equal(100);
      const bodies = [
        {},
        { reports: "L-1" },
        { reports: Array.from({ length: max + 1 }, (_, i) => labReport(`OA-many-${i}`)) },
      ];
      for (const body of bodies) {
        const answer = await tenant.call("POST", "/open/v1/lab/reports", { token: tenant.client.key, body });
        expect(answer.status).to.equal(400);
        conforms(envelopeSchema(z.null()), answer.body);
      }
      const atMost = await tenant.push(
        "lab",
        Array.from({ length: max }, (_, i) => labReport(`OA-many-${i}`)),
      );
      expect(atMost.body.data.total).to.equal(max);
    });

    it("answers ping and reconciliation in the documented shapes", async () => {
      conforms(
        envelopeSchema(pingAnswer),
        (await tenant.call("GET", "/open/v1/ping", { token: tenant.client.key })).body,
      );
      const query = doc.paths["/open/v1/reconcile/lab"].get.parameters.find((p: Json) => p.name === "date");
      expect(query).to.include({ in: "query", required: true });
      conforms(
        envelopeSchema(reconciliationSchema),
        (await tenant.call("GET", "/open/v1/reconcile/lab?date=2026-03-01", { token: tenant.client.key })).body,
      );
      expect(
        (await tenant.call("GET", "/open/v1/reconcile/lab?date=2026-02-30", { token: tenant.client.key })).status,
      ).to.equal(400);
    });
  });

  it("describes the /api request bodies the routes check: a patient without a required field is refused", async () => {
    const patient = doc.paths["/api/patients/{patientRef}"].put.requestBody.content["application/json"].schema;
    expect(patient.required).to.have.members(["name", "idCard"]);
    const tenant = await ingestionTenant(service, "openapi-api");
    for (const field of patient.required as string[]) {
      const body: Record<string, unknown> = { name: "王五", idCard: "11010519491231002X" };
      delete body[field];
      const answer = await tenant.call("PUT", "/api/patients/P900", { token: tenant.authorToken, body });
      expect(answer.status, field).to.equal(400);
      expect(answer.body.error, field).to.include(field);
    }
    const data = doc.paths["/api/reports/{id}/data"].post.requestBody.content["application/json"].schema;
    expect(data.properties.version.type).to.deep.equal(["string", "null"]);
    const wrongType = await tenant.call("POST", "/api/reports/no-such-report/data", { body: { version: 3 } });
    expect(wrongType.status).to.equal(400);
  });
});
