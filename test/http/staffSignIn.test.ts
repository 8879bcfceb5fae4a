import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { loadConfig } from "../../src/app/config.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import {
  TestOpenIdProvider,
  walkSignIn,
  walkToCallback,
  type ProviderPerson,
  type SignInStart,
} from "../support/openIdProvider.ts";
import { startTestService, until, useService } from "../support/service.ts";

const PUBLIC_URL = "http://dialysis-hub.test";
const CLIENT = { clientId: "dialysis-hub", clientSecret: "test-client-secret-0123456789", publicUrl: PUBLIC_URL };
const NURSE = {
  sub: "nurse-0042",
  name: "王护士",
  tenant: "default",
  roles: ["clinician", "not-a-role"],
  wards: ["3A"],
};
const OIDC_ENV = (provider: TestOpenIdProvider) => ({
  OIDC_ISSUER: provider.issuer,
  OIDC_CLIENT_ID: CLIENT.clientId,
  OIDC_CLIENT_SECRET: CLIENT.clientSecret,
  PUBLIC_URL,
});

const sessionCookie = (answer: Response) =>
  answer.headers.getSetCookie().find((cookie) => cookie.startsWith("dh_session="));
const cookieHeader = (setCookie: string) => setCookie.split(";")[0]!;

/**
 * The rows of every table of the service's database, by table (pg-boss's own maintenance left out:
 * it runs on a timer). Once no projection is rebuilding (a dictionary release at start rebuilds
 * some), and of the projections' generations only the live ones: a retired one is dropped.
 */
async function rowsByTable(db: { query(sql: string): Promise<{ rows: any[] }> }): Promise<Record<string, number>> {
  await until(
    async () =>
      (await db.query("select count(*)::int as n from projection_generations where state = 'building'")).rows[0].n ===
      0,
  );
  const { rows: tables } = await db.query(
    "select format('%I.%I', schemaname, tablename) as name from pg_tables" +
      " where schemaname not in ('pg_catalog', 'information_schema', 'pgboss')" +
      " and (schemaname not like 'proj\\_%' or schemaname in (select schema_name from projection_generations where state = 'live'))" +
      " order by 1",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = (await db.query(`select count(*)::int as n from ${name}`)).rows[0].n;
  return counts;
}

/**
 * Contract E.1 against a real OpenID Provider (oidc-provider): the authorization code flow with
 * PKCE, state and nonce, the session in the database, its cookie, CSRF on logout, idle expiry,
 * and a second API process that shares the session.
 */
describe("staff sign-in with an OpenID Provider (E.1)", function () {
  this.timeout(60_000);
  const provider = new TestOpenIdProvider(CLIENT);
  const hub = useService(async () => {
    await provider.start();
    const env = {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT.clientId,
      OIDC_CLIENT_SECRET: CLIENT.clientSecret,
      PUBLIC_URL,
      SESSION_IDLE_MINUTES: "0.05",
    };
    return { service: await startTestService({ projections: allProjections, env }) };
  });
  after(() => provider.stop());

  async function signIn(person: ProviderPerson = NURSE, start: SignInStart = {}) {
    provider.person = person;
    const { callback, callbackUrl, browserCookie } = await walkSignIn(hub.service.url!, PUBLIC_URL, start);
    return { callback, callbackUrl, browserCookie, cookie: sessionCookie(callback) };
  }

  it("signs a person in through the provider and answers who they are", async () => {
    const { callback, cookie } = await signIn();
    expect(callback.status).to.equal(302);
    expect(callback.headers.get("location")).to.equal("/staff");
    expect(cookie).to.match(/^dh_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    const session = await fetch(`${hub.service.url}/staff/session`, { headers: { cookie: cookieHeader(cookie!) } });
    expect(session.status).to.equal(200);
    const body = await session.json();
    expect(body).to.include({ sub: "nurse-0042", name: "王护士", tenant: "default" });
    expect(body.roles, "unknown roles are dropped").to.deep.equal(["clinician"]);
    expect(body.wards).to.deep.equal(["3A"]);
    expect(body.csrf).to.be.a("string").with.length.above(20);
    expect(Date.parse(body.expiresAt)).to.be.above(Date.now());
    // The cookie's value is not what the database keeps.
    const { rows } = await hub.service.db.query("select count(*)::int as n from staff_sessions where id_digest = $1", [
      cookieHeader(cookie!).split("=")[1],
    ]);
    expect(rows[0].n).to.equal(0);
  });

  it("sends the browser to the provider with PKCE (S256), state and nonce", async () => {
    const start = await fetch(`${hub.service.url}/staff/login`, { redirect: "manual" });
    expect(start.status).to.equal(302);
    const url = new URL(start.headers.get("location")!);
    expect(url.origin).to.equal(provider.issuer);
    expect(url.searchParams.get("code_challenge_method")).to.equal("S256");
    for (const name of ["code_challenge", "state", "nonce"])
      expect(url.searchParams.get(name), name).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get("redirect_uri")).to.equal(`${PUBLIC_URL}/staff/callback`);
    expect(url.searchParams.get("scope")).to.equal("openid profile");
    // The sign-in is bound to this browser: a short-lived cookie only the callback receives, whose value does not show the state.
    const [preSignIn, ...others] = start.headers.getSetCookie();
    expect(others).to.deep.equal([]);
    expect(preSignIn).to.match(
      /^dh_sign_in=[A-Za-z0-9_-]{100,}; Path=\/staff\/callback; HttpOnly; SameSite=Lax; Max-Age=900$/,
    );
    expect(preSignIn).not.to.include(url.searchParams.get("state"));
  });

  it("refuses a callback in a browser that did not start the sign-in, so no one is signed in as someone else (login CSRF)", async () => {
    provider.person = { sub: "intruder-1", name: "Intruder", tenant: "default", roles: ["admin"] };
    // The attacker walks their own sign-in up to the callback and sends its link to a colleague.
    const { callbackUrl, browserCookie: attackersBrowser } = await walkToCallback(hub.service.url!, PUBLIC_URL);
    const noSignInStarted = await fetch(callbackUrl, { redirect: "manual" });
    expect(noSignInStarted.status).to.equal(400);
    expect(sessionCookie(noSignInStarted)).to.equal(undefined);
    const page = await noSignInStarted.text();
    expect(page).to.include("不是在此浏览器中开始的").and.to.include("was not started in this browser");

    const victimsOwn = await fetch(`${hub.service.url}/staff/login`, { redirect: "manual" });
    const victimsBrowser = cookieHeader(victimsOwn.headers.getSetCookie()[0]!);
    const midSignIn = await fetch(callbackUrl, { redirect: "manual", headers: { cookie: victimsBrowser } });
    expect(midSignIn.status, "a sign-in of its own under way").to.equal(400);
    expect(sessionCookie(midSignIn)).to.equal(undefined);

    // A pre-sign-in cookie made up or altered (one letter of the attacker's own) opens nothing: 400, never a 500.
    const sealed = attackersBrowser.split("=")[1]!;
    for (const forged of [
      "dh_sign_in=not-a-sealed-sign-in",
      `dh_sign_in=${sealed.slice(0, 40)}${sealed[40] === "A" ? "B" : "A"}${sealed.slice(41)}`,
    ]) {
      const answer = await fetch(callbackUrl, { redirect: "manual", headers: { cookie: forged } });
      expect(answer.status, forged).to.equal(400);
      expect(sessionCookie(answer)).to.equal(undefined);
    }

    // In the browser that started it, the same link signs in: the refusals spent nothing.
    const own = await fetch(callbackUrl, { redirect: "manual", headers: { cookie: attackersBrowser } });
    expect(own.status).to.equal(302);
    expect(sessionCookie(own)).to.be.a("string");
    expect(own.headers.getSetCookie(), "the pre-sign-in cookie is cleared").to.include(
      "dh_sign_in=; Path=/staff/callback; HttpOnly; SameSite=Lax; Max-Age=0",
    );
  });

  it("writes nothing to the database for a flood of /staff/login from someone who never signs in", async () => {
    const before = await rowsByTable(hub.service.db);
    for (let i = 0; i < 40; i++) {
      const answer = await fetch(`${hub.service.url}/staff/login`, { redirect: "manual" });
      expect(answer.status).to.equal(302);
    }
    expect(await rowsByTable(hub.service.db)).to.deep.equal(before);
  });

  it("signs a person the provider names no tenant for in to the tenant of /staff/login while the store holds no other", async () => {
    const { callback, cookie } = await signIn({ sub: "nurse-0043", name: "赵护士", roles: ["clinician"] });
    expect(callback.status, await callback.text()).to.equal(302);
    const session = await fetch(`${hub.service.url}/staff/session`, { headers: { cookie: cookieHeader(cookie!) } });
    expect((await session.json()).tenant).to.equal("default");
  });

  it("refuses a reused or wrong state with a page in both languages and no session cookie", async () => {
    const { callbackUrl, browserCookie } = await signIn();
    // The same browser, even one that kept the pre-sign-in cookie the callback cleared.
    const reused = await fetch(callbackUrl, { redirect: "manual", headers: { cookie: browserCookie } });
    expect(reused.status).to.equal(400);
    expect(sessionCookie(reused)).to.equal(undefined);
    const page = await reused.text();
    expect(page).to.include("重新登录").and.to.include("Sign in again");
    const started = await walkToCallback(hub.service.url!, PUBLIC_URL);
    const wrong = new URL(started.callbackUrl);
    wrong.searchParams.set("state", "a-state-this-service-never-sent-0000");
    const answer = await fetch(wrong, { redirect: "manual", headers: { cookie: started.browserCookie } });
    expect(answer.status).to.equal(400);
    expect(sessionCookie(answer)).to.equal(undefined);
  });

  it("refuses an ID token whose signature does not verify", async () => {
    provider.tamperNextIdToken = true;
    const { callback, cookie } = await signIn();
    expect(provider.tamperNextIdToken, "the token endpoint was reached").to.equal(false);
    expect(callback.status).to.equal(400);
    expect(cookie).to.equal(undefined);
    expect(await callback.text()).to.include("could not be verified");
  });

  it("ends a session after SESSION_IDLE_MINUTES without a call", async () => {
    const { cookie } = await signIn();
    const headers = { cookie: cookieHeader(cookie!) };
    expect((await fetch(`${hub.service.url}/staff/session`, { headers })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect((await fetch(`${hub.service.url}/staff/session`, { headers })).status).to.equal(401);
  });

  it("shares a session with a second API process, and logout (with its CSRF token) ends it on both", async () => {
    const second = await startTestService({
      databaseUrl: hub.service.databaseUrl,
      role: "api",
      env: OIDC_ENV(provider),
    });
    try {
      const { cookie } = await signIn();
      const headers = { cookie: cookieHeader(cookie!) };
      const there = await fetch(`${second.url}/staff/session`, { headers });
      expect(there.status).to.equal(200);
      const { csrf } = await there.json();

      const withoutCsrf = await fetch(`${second.url}/staff/logout`, { method: "POST", headers });
      expect(withoutCsrf.status).to.equal(403);
      const out = await fetch(`${second.url}/staff/logout`, {
        method: "POST",
        headers: { ...headers, "x-csrf-token": csrf },
      });
      expect(out.status).to.equal(204);
      const endSession = new URL(out.headers.get("location")!);
      expect(endSession.origin).to.equal(provider.issuer);
      expect(endSession.searchParams.get("id_token_hint")).to.match(/^eyJ/);
      expect(endSession.searchParams.get("post_logout_redirect_uri")).to.equal(`${PUBLIC_URL}/staff`);
      expect((await fetch(`${hub.service.url}/staff/session`, { headers })).status).to.equal(401);
      expect((await fetch(`${second.url}/staff/session`, { headers })).status).to.equal(401);
    } finally {
      await second.stop();
    }
  });
});

/**
 * Issue #51: with several tenants in one store, the tenant of a sign-in is the provider's claim or
 * OIDC_TENANT, never a tenant the browser names (the link's ?tenant= or an X-Service-Tenant it sends).
 */
describe("the tenant of a sign-in when the store holds several tenants (E.1)", function () {
  this.timeout(60_000);
  const provider = new TestOpenIdProvider(CLIENT);
  const hub = useService(async () => {
    await provider.start();
    return { service: await startTestService({ projections: allProjections, env: OIDC_ENV(provider) }) };
  });
  after(() => provider.stop());
  const NO_TENANT_CLAIM = { sub: "nurse-0099", name: "钱护士", roles: ["admin"] };

  before(async () => {
    const call = httpClient(hub.service.url!);
    for (const tenant of ["default", "h2"]) {
      const made = await call("POST", "/api/admin/authors", {
        token: ADMIN,
        tenant,
        body: { name: `Author of ${tenant}`, tenant },
      });
      expect(made.status).to.equal(201);
    }
  });

  async function tenantSignedIn(serviceUrl: string, person: ProviderPerson, start: SignInStart) {
    provider.person = person;
    const { callback } = await walkSignIn(serviceUrl, PUBLIC_URL, start);
    const cookie = sessionCookie(callback);
    if (!cookie) return { status: callback.status, page: await callback.text(), tenant: null };
    const session = await fetch(`${serviceUrl}/staff/session`, { headers: { cookie: cookieHeader(cookie) } });
    return { status: callback.status, page: "", tenant: (await session.json()).tenant as string };
  }

  it("refuses a sign-in the provider names no tenant for, whatever tenant the link (?tenant=) names", async () => {
    const answer = await tenantSignedIn(hub.service.url!, NO_TENANT_CLAIM, { tenant: null, query: { tenant: "h2" } });
    expect(answer).to.include({ status: 400, tenant: null });
    expect(answer.page).to.include("OIDC_TENANT").and.to.include("未给出所属机构");
  });

  it("refuses it too when the browser sends X-Service-Tenant itself", async () => {
    const answer = await tenantSignedIn(hub.service.url!, NO_TENANT_CLAIM, { tenant: "h2" });
    expect(answer).to.include({ status: 400, tenant: null });
  });

  it("opens the session in the tenant of the provider's claim, whatever the link names", async () => {
    const answer = await tenantSignedIn(
      hub.service.url!,
      { ...NO_TENANT_CLAIM, tenant: "h2" },
      { tenant: null, query: { tenant: "default" } },
    );
    expect(answer).to.include({ status: 302, tenant: "h2" });
  });

  it("refuses to start with an OIDC_TENANT that is no tenant id", () => {
    expect(() => loadConfig({ OIDC_TENANT: "ward 3A" })).to.throw("OIDC_TENANT must be a tenant id");
  });

  it("opens the session in OIDC_TENANT when the provider names none, whatever the link names", async () => {
    const pinned = await startTestService({
      databaseUrl: hub.service.databaseUrl,
      role: "api",
      env: { ...OIDC_ENV(provider), OIDC_TENANT: "default" },
    });
    try {
      const answer = await tenantSignedIn(pinned.url!, NO_TENANT_CLAIM, { tenant: null, query: { tenant: "h2" } });
      expect(answer).to.include({ status: 302, tenant: "default" });
    } finally {
      await pinned.stop();
    }
  });
});
