import { expect } from "chai";
import { API_ERROR_CODES } from "../../commands/kit/errorCodes.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { routeKey, withRouteInventory, type RouteEntry } from "../support/routeInventory.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService } from "../support/service.ts";
import { ACCESS, concretePath, LEAST_ROLE, methodAndPattern, type Access } from "./support/endpointAccess.ts";

/**
 * Contract C.2 over every route that needs a credential: without one, or with a wrong one, 401;
 * with one of another tenant, 403 — in the interface's own error shape. A revoked key fails from
 * the very next request on every /open/v1 route. (test/http/credentials.test.ts covers issuing
 * and revoking keys themselves; test/http/patients.test.ts one route's 401/403.)
 */

const PATH_VALUES = {
  alertId: "no-such-alert",
  id: "every-param",
  no: "v1",
  patientRef: "P-CREDENTIALS",
  kind: "lab",
  externalId: "H1-UNMATCHED",
  clientId: "no-such-client",
  file: "x",
  name: "x",
};

describe("security: credentials on every route that needs one", function () {
  this.timeout(60_000);
  let service: RunningService;
  let routes: RouteEntry[];
  let h1: SeededTenant;
  let h2: SeededTenant;

  before(async () => {
    const inventory = await withRouteInventory(() => startTestService({ projections: allProjections }));
    service = inventory.started;
    routes = inventory.routes;
    h1 = await seedTenant(service, "h1");
    h2 = await seedTenant(service, "h2");
  });
  after(() => service?.stop());

  const routesNeeding = (access: Access) => routes.filter((route) => ACCESS[routeKey(route)] === access);

  /** Calls a route of tenant h1 with the given Authorization and X-Service-Tenant. */
  async function attempt(route: RouteEntry, authorization: string | undefined, tenant = "h1") {
    const headers: Record<string, string> = { "x-service-tenant": tenant };
    if (authorization !== undefined) headers.authorization = authorization;
    const [method] = methodAndPattern(routeKey(route));
    const call = httpClient(service.url!);
    const answer = await call(method, concretePath(route.path, PATH_VALUES), {
      headers,
      body: method === "GET" || method === "DELETE" ? undefined : {},
    });
    return answer;
  }

  function expectRefused(route: RouteEntry, answer: { status: number; body: any }, status: 401 | 403, why: string) {
    const what = `${routeKey(route)} ${why}`;
    expect(answer.status, what).to.equal(status);
    if (route.path.startsWith("/open/v1")) expect(answer.body, what).to.include({ code: status, data: null });
    else if (route.path.startsWith("/fhir/r4"))
      expect(answer.body, what).to.include({ resourceType: "OperationOutcome" });
    else {
      // { error }, and since #34 item 6 the stable code a page translates beside it (additive).
      expect(
        Object.keys(answer.body).filter((key) => key !== "code"),
        what,
      ).to.deep.equal(["error"]);
      if ("code" in answer.body) expect(API_ERROR_CODES, what).to.include(answer.body.code);
    }
  }

  it("knows who may call every route (test/security/support/endpointAccess.ts)", () => {
    expect(routes.filter((route) => !(routeKey(route) in ACCESS)).map(routeKey)).to.deep.equal([]);
    for (const access of ["author", "admin", "tenant-admin", "client"] as const)
      expect(routesNeeding(access), access).not.to.be.empty;
  });

  it("answers 401 to authoring and patient calls without a credential or with a wrong one, 403 with another tenant's", async () => {
    for (const route of routesNeeding("author")) {
      expectRefused(route, await attempt(route, undefined), 401, "without a token");
      for (const wrong of [
        "Bearer dha_not-a-token",
        `Bearer ${h1.authorToken}x`,
        `Basic ${Buffer.from(`x:${h1.authorToken}`).toString("base64")}`,
        `Bearer ${h1.client.key}`,
        h1.authorToken,
      ]) {
        expectRefused(route, await attempt(route, wrong), 401, `with ${wrong.slice(0, 12)}…`);
      }
      expectRefused(route, await attempt(route, `Bearer ${h2.authorToken}`), 403, "with an author token of h2");
      expectRefused(route, await attempt(route, `Bearer ${h1.authorToken}`, "h2"), 403, "with h1's token on h2");
      expect(
        (await attempt(route, `Bearer ${ADMIN}`)).status,
        `${routeKey(route)} with the ADMIN_TOKEN`,
      ).not.to.be.oneOf([401, 403]);
    }
  });

  it("answers 401 to the operator's calls with anything but the ADMIN_TOKEN", async () => {
    for (const route of routesNeeding("admin")) {
      for (const wrong of [
        undefined,
        `Bearer ${h1.authorToken}`,
        `Bearer ${h1.client.key}`,
        `Bearer ${ADMIN}x`,
        `Bearer ${ADMIN.slice(0, -1)}`,
        ADMIN,
      ]) {
        expectRefused(route, await attempt(route, wrong), 401, `with ${String(wrong).slice(0, 12)}…`);
      }
    }
  });

  it("names the least role of every route a person calls, and refuses a token one role short with 403 naming it", async () => {
    const personal = routesNeeding("author").map(routeKey);
    expect(
      personal.filter((key) => !(key in LEAST_ROLE)),
      "routes without a least role",
    ).to.deep.equal([]);
    expect(
      Object.keys(LEAST_ROLE).filter((key) => !personal.includes(key)),
      "least roles of routes that are not a person's",
    ).to.deep.equal([]);
    const tokenOf = async (roles: string[]) =>
      (
        await httpClient(service.url!)("POST", "/api/admin/authors", {
          token: ADMIN,
          body: { name: roles.join("+"), tenant: "h1", roles },
        })
      ).body.token as string;
    const holders = {
      viewer: await tokenOf(["viewer"]),
      clinician: await tokenOf(["clinician"]),
      author: await tokenOf(["author"]),
    };
    const shortOf = { clinician: "viewer", author: "clinician" } as const;
    for (const route of routesNeeding("author")) {
      const needed = LEAST_ROLE[routeKey(route)]!;
      if (needed !== "viewer") {
        const refused = await attempt(route, `Bearer ${holders[shortOf[needed]]}`);
        expectRefused(route, refused, 403, `with a ${shortOf[needed]}'s token`);
        expect(JSON.stringify(refused.body), routeKey(route)).to.include(`needs the role ${needed}`);
      }
      expect(
        (await attempt(route, `Bearer ${holders[needed]}`)).status,
        `${routeKey(route)} with a ${needed}'s token`,
      ).not.to.be.oneOf([401, 403]);
    }
  });

  it("answers 401 to a tenant's administration without a working credential, 403 to one without the role admin or of another tenant", async () => {
    const adminOf = async (tenant: string) =>
      (
        await httpClient(service.url!)("POST", "/api/admin/authors", {
          token: ADMIN,
          body: { name: `Admin of ${tenant}`, tenant, roles: ["admin"] },
        })
      ).body.token as string;
    const [h1Admin, h2Admin] = [await adminOf("h1"), await adminOf("h2")];
    for (const route of routesNeeding("tenant-admin")) {
      for (const wrong of [undefined, `Bearer ${h1Admin}x`, `Bearer ${h1.client.key}`, `Bearer ${ADMIN}x`, h1Admin]) {
        expectRefused(route, await attempt(route, wrong), 401, `with ${String(wrong).slice(0, 12)}…`);
      }
      expectRefused(
        route,
        await attempt(route, `Bearer ${h1.authorToken}`),
        403,
        "with an author (not admin) token of h1",
      );
      expectRefused(route, await attempt(route, `Bearer ${h2Admin}`), 403, "with an admin token of h2");
      for (const allowed of [ADMIN, h1Admin]) {
        expect(
          (await attempt(route, `Bearer ${allowed}`)).status,
          `${routeKey(route)} with ${allowed === ADMIN ? "the ADMIN_TOKEN" : "h1's admin token"}`,
        ).not.to.be.oneOf([401, 403]);
      }
    }
  });

  it(
    "answers 401 in the envelope (an OperationOutcome for FHIR) to open-API calls without a client key or with a " +
      "wrong one, 403 for another tenant",
    async () => {
      for (const route of routesNeeding("client")) {
        for (const wrong of [
          undefined,
          "Bearer dhk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
          `Bearer ${h1.client.key}x`,
          `Bearer ${h1.authorToken}`,
          `Bearer ${ADMIN}`,
          h1.client.key,
        ]) {
          expectRefused(route, await attempt(route, wrong), 401, `with ${String(wrong).slice(0, 12)}…`);
        }
        expectRefused(
          route,
          await attempt(route, `Bearer ${h1.client.key}`, "h2"),
          403,
          "with h1's key and X-Service-Tenant h2",
        );
      }
    },
  );

  it("takes no credential for viewing, and keeps the tenant of X-Service-Tenant whatever token comes along", async () => {
    for (const route of routesNeeding("viewing")) {
      const answer = await attempt(route, `Bearer ${h2.authorToken}`);
      expect(answer.status, routeKey(route)).not.to.be.oneOf([401, 403]);
    }
    const h1View = await attempt({ method: "GET", path: "/api/reports/:id/view" }, `Bearer ${h2.authorToken}`);
    expect(h1View.body.title, "an h2 token does not make an h1 view h2's").to.equal("Every filter of h1");
  });

  it("refuses a revoked key on every open-API route from the very next request", async () => {
    const admin = httpClient(service.url!);
    const { clientId, key } = (
      await admin("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Soon revoked", tenant: "h1" } })
    ).body;
    for (const route of routesNeeding("client"))
      expect((await attempt(route, `Bearer ${key}`)).status, `${routeKey(route)} before`).not.to.be.oneOf([401, 403]);
    // Calls keep coming while the key is revoked: none that starts after the revocation answers may pass.
    let revokedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    const passedLate: string[] = [];
    const traffic = (async () => {
      while (!stop) {
        const started = Date.now();
        const ping = await admin("GET", "/open/v1/ping", { token: key });
        if (ping.status === 200 && started > revokedAt)
          passedLate.push(`a ping started ${started - revokedAt} ms after the revocation`);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await admin("DELETE", `/api/admin/clients/${clientId}`, { token: ADMIN })).status).to.equal(204);
    revokedAt = Date.now();
    for (const route of routesNeeding("client"))
      expectRefused(route, await attempt(route, `Bearer ${key}`), 401, "with the revoked key");
    stop = true;
    await traffic;
    expect(passedLate).to.deep.equal([]);
  });
});
