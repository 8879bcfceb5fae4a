import { expect } from "chai";
import { checkCharOf } from "../../commands/patients/nationalId.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { createLogger } from "../../src/logger.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { routeKey, withRouteInventory, type RouteEntry } from "../support/routeInventory.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, until } from "../support/service.ts";
import { ACCESS, concretePath, methodAndPattern } from "./support/endpointAccess.ts";

/**
 * No log line carries a client key, an author token, the ADMIN_TOKEN or a full id card — on any
 * route, with right and wrong credentials, and when a fault is logged whole (issue #7, point 4).
 * test/http/logging.test.ts checks the ordinary push and patient calls; this goes over every route
 * and the fault path.
 */

/** A person registered only in the fault test. */
const FAULTY = { name: "李", idCard: `44052419900101123${checkCharOf("44052419900101123")}` };
const FULL_WIDTH = (idCard: string) => idCard.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));

describe("security: no secret and no full id card in any log line", function () {
  this.timeout(60_000);
  let service: RunningService;
  let routes: RouteEntry[];
  let h1: SeededTenant;
  const lines: string[] = [];
  const secrets = () => [
    h1.client.key,
    h1.authorToken,
    ADMIN,
    ZHANG_SAN.idCard,
    ZHANG_SAN.idCard.toLowerCase(),
    LI_SI.idCard,
    FULL_WIDTH(LI_SI.idCard),
    FAULTY.idCard,
  ];

  function expectClean(what: string): void {
    const text = lines.join("");
    for (const secret of secrets()) {
      const line = lines.find((l) => l.includes(secret));
      expect(line, `${what}: a log line holds ${secret.slice(0, 6)}…`).to.equal(undefined);
    }
    expect(text).to.include('"requestId"');
  }

  before(async () => {
    const log = createLogger("trace", { write: (line: string) => void lines.push(line) });
    const inventory = await withRouteInventory(() => startTestService({ projections: allProjections, log }));
    service = inventory.started;
    routes = inventory.routes;
    h1 = await seedTenant(service, "h1");
  });
  after(() => service?.stop());

  it("calls every route with every kind of credential, right and wrong, and id cards in the bodies", async () => {
    const call = httpClient(service.url!);
    const values = {
      id: "every-param",
      no: "v1",
      patientRef: "P-LOG",
      kind: "lab",
      externalId: "H1-UNMATCHED",
      clientId: h1.client.clientId,
      file: "x",
      name: "x",
    };
    const bodies: Record<string, unknown> = {
      "POST /open/v1/lab/reports": {
        reports: [
          labReport("LOG-W", { patient: { idCard: FULL_WIDTH(LI_SI.idCard), name: LI_SI.name } }),
          labReport("LOG-L", { patient: { idCard: ZHANG_SAN.idCard.toLowerCase() } }),
          labReport("LOG-BAD", { patient: { idCard: `${ZHANG_SAN.idCard}0` } }),
        ],
      },
      "POST /open/v1/exam/reports": {
        reports: [
          {
            externalId: "LOG-E",
            patient: { idCard: LI_SI.idCard },
            examType: "ECHO",
            reportedAt: "2026-03-01 10:00:00",
          },
        ],
      },
      "PUT /api/patients/:patientRef": { name: LI_SI.name, idCard: LI_SI.idCard },
      "POST /api/unmatched/:kind/:externalId/claim": { patientRef: "P-LOG" },
      "POST /api/admin/clients": { name: "Log LIS", tenant: "h1" },
      "POST /api/admin/authors": { name: "Log author", tenant: "h1" },
      "PUT /api/admin/clients/:clientId/code-map": { codeMap: { LOCAL: "HGB" } },
      "PUT /api/reports/:id/draft": {
        spec: {
          version: 1,
          title: "x",
          params: [],
          queries: { q: { sql: "select patient_ref from patients" } },
          nodes: [],
        },
      },
    };
    const credentials = [
      undefined,
      `Bearer ${h1.client.key}`,
      `Bearer ${h1.client.key}x`,
      `Bearer ${h1.authorToken}`,
      `Bearer ${h1.authorToken}x`,
      `Bearer ${ADMIN}`,
      `Bearer ${ADMIN}x`,
      h1.client.key,
    ];
    for (const route of routes) {
      if (routeKey(route) === "DELETE /api/admin/clients/:clientId") continue; // keeps h1's key alive for the calls after
      const [method] = methodAndPattern(routeKey(route));
      // Viewing and public routes take no credential: two tries are enough there (an export is slow).
      const access = ACCESS[routeKey(route)];
      for (const authorization of access === "public" || access === "viewing" ? credentials.slice(0, 2) : credentials) {
        await call(method, concretePath(route.path, values), {
          headers: { "x-service-tenant": "h1", ...(authorization ? { authorization } : {}) },
          body: method === "GET" || method === "DELETE" ? undefined : (bodies[routeKey(route)] ?? {}),
        });
      }
    }
    // A second patient with a registered id card (409), and an invalid one (400).
    await call("PUT", "/api/patients/P-TWICE", {
      token: h1.authorToken,
      tenant: "h1",
      body: { name: LI_SI.name, idCard: LI_SI.idCard },
    });
    await call("PUT", "/api/patients/P-BAD", {
      token: h1.authorToken,
      tenant: "h1",
      body: { name: "x", idCard: `${LI_SI.idCard.slice(0, -1)}9` },
    });
    expect(lines.length).to.be.greaterThan(routes.length);
    expectClean("after every route");
  });

  it("writes no id card when a database fault is logged with its failing row", async () => {
    // A constraint the service does not expect: PostgreSQL's error quotes the failing row, whose
    // first bytes (a new patient's event: name, ward, active, id card) hold the patient's identity.
    await service.db.query(
      "alter table events add constraint refuse_fault_me check (stream_id not like '%FAULT-ME%') not valid",
    );
    const before = lines.length;
    try {
      const call = httpClient(service.url!);
      const patient = await call("PUT", "/api/patients/P-FAULT-ME", {
        token: h1.authorToken,
        tenant: "h1",
        body: FAULTY,
      });
      expect(patient.status).to.equal(500);
      const push = await call("POST", "/open/v1/lab/reports", {
        token: h1.client.key,
        body: { reports: [labReport("FAULT-ME", { patient: FAULTY })] },
      });
      expect(push.status).to.equal(500);
      // B.1: the envelope with a generic msg; what failed is for the log, not for the sender.
      expect(push.body).to.include({ code: 500, data: null });
      expect(push.body.timestamp).to.be.a("number");
      expect(push.body.msg)
        .to.be.a("string")
        .and.not.to.match(/refuse_fault_me|constraint|events|insert/i);
      await until(async () => lines.slice(before).filter((line) => line.includes('"request failed"')).length === 2);
    } finally {
      await service.db.query("alter table events drop constraint refuse_fault_me");
    }
    const faults = lines.slice(before).filter((line) => line.includes('"request failed"'));
    for (const fault of faults) {
      expect(fault, "the fault itself is logged").to.include("refuse_fault_me");
      // PostgreSQL cuts each quoted value at 64 bytes, so the id card shows only in part here — a
      // JSON parse error's context ("JSON data, line 1: …") quotes it whole. Neither part nor name may show.
      expect(fault, "the patient's name").not.to.include('"李"');
      expect(fault, "the first digits of the id card").not.to.include(FAULTY.idCard.slice(0, 6));
    }
    expectClean("after a logged fault");
  });
});
