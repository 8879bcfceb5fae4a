import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { TestOpenIdProvider, walkSignIn } from "../support/openIdProvider.ts";
import { startTestService, useService } from "../support/service.ts";

const PUBLIC_URL = "http://dialysis-hub.test";
const CLIENT = { clientId: "dialysis-hub", clientSecret: "test-client-secret-0123456789", publicUrl: PUBLIC_URL };
const NURSE = { sub: "nurse-0042", name: "王护士", tenant: "default", roles: ["clinician", "not-a-role"], wards: ["3A"] };

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

  const sessionCookie = (answer: Response) => answer.headers.getSetCookie().find((cookie) => cookie.startsWith("dh_session="));
  const cookieHeader = (setCookie: string) => setCookie.split(";")[0]!;

  async function signIn(person = NURSE) {
    provider.person = person;
    const { callback, callbackUrl } = await walkSignIn(hub.service.url!, PUBLIC_URL);
    return { callback, callbackUrl, cookie: sessionCookie(callback) };
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
    const { rows } = await hub.service.db.query("select count(*)::int as n from staff_sessions where id_digest = $1", [cookieHeader(cookie!).split("=")[1]]);
    expect(rows[0].n).to.equal(0);
  });

  it("sends the browser to the provider with PKCE (S256), state and nonce", async () => {
    const start = await fetch(`${hub.service.url}/staff/login`, { redirect: "manual" });
    expect(start.status).to.equal(302);
    const url = new URL(start.headers.get("location")!);
    expect(url.origin).to.equal(provider.issuer);
    expect(url.searchParams.get("code_challenge_method")).to.equal("S256");
    for (const name of ["code_challenge", "state", "nonce"]) expect(url.searchParams.get(name), name).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get("redirect_uri")).to.equal(`${PUBLIC_URL}/staff/callback`);
    expect(url.searchParams.get("scope")).to.equal("openid profile");
  });

  it("refuses a reused or wrong state with a page in both languages and no session cookie", async () => {
    const { callbackUrl } = await signIn();
    const reused = await fetch(callbackUrl, { redirect: "manual" });
    expect(reused.status).to.equal(400);
    expect(sessionCookie(reused)).to.equal(undefined);
    const page = await reused.text();
    expect(page).to.include("重新登录").and.to.include("Sign in again");
    const wrong = new URL(callbackUrl);
    wrong.searchParams.set("state", "a-state-this-service-never-sent-0000");
    const answer = await fetch(wrong, { redirect: "manual" });
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
      env: { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT.clientId, OIDC_CLIENT_SECRET: CLIENT.clientSecret, PUBLIC_URL },
    });
    try {
      const { cookie } = await signIn();
      const headers = { cookie: cookieHeader(cookie!) };
      const there = await fetch(`${second.url}/staff/session`, { headers });
      expect(there.status).to.equal(200);
      const { csrf } = await there.json();

      const withoutCsrf = await fetch(`${second.url}/staff/logout`, { method: "POST", headers });
      expect(withoutCsrf.status).to.equal(403);
      const out = await fetch(`${second.url}/staff/logout`, { method: "POST", headers: { ...headers, "x-csrf-token": csrf } });
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
