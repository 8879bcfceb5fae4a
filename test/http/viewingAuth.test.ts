import { expect } from "chai";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { sessionCookieOf, useServiceWithProvider } from "../support/openIdProvider.ts";
import { tableReportSpec } from "../support/reports.ts";
import { until } from "../support/service.ts";

/**
 * VIEWING_AUTH=required (contract G.1): the viewing calls and the embed page need a staff session
 * or a token with a role that may view, so the ward scope and the access log apply to them. A
 * nurse signed in through the hospital's provider opens a dashboard with her own session: she sees
 * her ward only, and the access log names her.
 */
describe("viewing behind a session or token (VIEWING_AUTH=required)", function () {
  this.timeout(60_000);
  const hub = useServiceWithProvider({ VIEWING_AUTH: "required" });
  let call: ReturnType<typeof httpClient>;
  let nurse: string;

  before(async () => {
    call = httpClient(hub.service.url!);
    for (const [ref, ward, n] of [
      ["V-3A", "3A", 61],
      ["V-5B", "5B", 62],
    ] as const) {
      const saved = await call("PUT", `/api/patients/${ref}`, {
        token: ADMIN,
        body: { name: `病人${ref}`, idCard: makeIdCard("110105", "19570101", n), ward },
      });
      expect(saved.status).to.equal(200);
    }
    const spec = tableReportSpec("Patients", {
      list: "select patient_ref, ward from patients where patient_ref like 'V-%' order by 1",
    });
    expect((await call("PUT", "/api/reports/viewing-list/draft", { token: ADMIN, body: { spec } })).status).to.equal(
      200,
    );
    expect(
      (await call("POST", "/api/reports/viewing-list/publish", { token: ADMIN, body: { mode: "dynamic", note: "" } }))
        .status,
    ).to.equal(201);
    nurse = await sessionCookieOf(hub.service.url!, hub.provider, {
      sub: "nurse-3a",
      name: "Nurse Wang",
      roles: ["clinician"],
      wards: ["3A"],
    });
  });

  it("refuses the viewing calls without a session or token, saying how to sign in", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/reports", undefined],
      ["GET", "/api/reports/viewing-list/view", undefined],
      ["POST", "/api/reports/viewing-list/data", {}],
      ["POST", "/api/reports/viewing-list/export/xlsx", {}],
    ] as const) {
      const answer = await call(method, path, { body });
      expect(answer.status, path).to.equal(401);
      expect(answer.body.error, path).to.match(/sign in at \/staff\/login/);
    }
    const revoked = await call("POST", "/api/reports/viewing-list/data", {
      body: {},
      token: "not-a-token-of-anyone-0123456789",
    });
    expect(revoked.status).to.equal(401);
  });

  it("answers a viewer token, and a session without a CSRF token (viewing changes nothing), within its wards", async () => {
    const viewer = (
      await call("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name: "Ward viewer", tenant: "default", roles: ["viewer"], wards: ["5B"] },
      })
    ).body.token as string;
    const byToken = await call("POST", "/api/reports/viewing-list/data", { token: viewer, body: {} });
    expect(byToken.status).to.equal(200);
    expect(byToken.body.queries.list.rows).to.deep.equal([["V-5B", "5B"]]);

    const bySession = await call("POST", "/api/reports/viewing-list/data", { headers: { cookie: nurse }, body: {} });
    expect(bySession.status).to.equal(200);
    expect(bySession.body.queries.list.rows).to.deep.equal([["V-3A", "3A"]]);
  });

  it("offers sign-in on the embed page without a session, and opens it with one", async () => {
    const page = await fetch(`${hub.service.url}/embed/reports/viewing-list?lang=en`);
    expect(page.status).to.equal(401);
    const html = await page.text();
    expect(html).to.include('href="/staff/login"').and.to.include("Sign in");
    expect(html).not.to.include("data-token");
    const zh = await (await fetch(`${hub.service.url}/embed/reports/viewing-list?lang=zh`)).text();
    expect(zh).to.include("登录");

    const signedIn = await fetch(`${hub.service.url}/embed/reports/viewing-list`, { headers: { cookie: nurse } });
    expect(signedIn.status).to.equal(200);
    expect(await signedIn.text()).to.include('data-report="viewing-list"');
  });

  it("lets the page's calls from a sandboxed frame (no cookie, Origin: null) be the nurse's, by its embed token, until she signs out", async () => {
    const page = await (
      await fetch(`${hub.service.url}/embed/reports/viewing-list`, { headers: { cookie: nurse } })
    ).text();
    const token = /data-token="([^"]+)"/.exec(page)![1]!;
    const framed = { origin: "null", "x-embed-token": token };
    const answer = await call("POST", "/api/reports/viewing-list/data", { headers: framed, body: {} });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("access-control-allow-origin")).to.equal("null");
    expect(answer.body.queries.list.rows, "her ward only").to.deep.equal([["V-3A", "3A"]]);
    const otherReport = await call("POST", "/api/reports/another/data", { headers: framed, body: {} });
    expect(otherReport.status, "the token is the page's report's only").to.equal(401);

    const signedOut = await sessionCookieOf(hub.service.url!, hub.provider, {
      sub: "nurse-3a-2",
      name: "Nurse Wang",
      roles: ["clinician"],
      wards: ["3A"],
    });
    const framedPage = await (
      await fetch(`${hub.service.url}/embed/reports/viewing-list`, { headers: { cookie: signedOut } })
    ).text();
    const ending = { origin: "null", "x-embed-token": /data-token="([^"]+)"/.exec(framedPage)![1]! };
    expect((await call("POST", "/api/reports/viewing-list/data", { headers: ending, body: {} })).status).to.equal(200);
    const session = (await call("GET", "/staff/session", { headers: { cookie: signedOut } })).body as { csrf: string };
    expect(
      (await call("POST", "/staff/logout", { headers: { cookie: signedOut, "x-csrf-token": session.csrf } })).status,
    ).to.equal(204);
    expect(
      (await call("POST", "/api/reports/viewing-list/data", { headers: ending, body: {} })).status,
      "signed out: the page's token works no more",
    ).to.equal(401);
  });

  it("names the nurse in the access record of her dashboard", async () => {
    expect(
      (await call("POST", "/api/reports/viewing-list/data", { headers: { cookie: nurse }, body: {} })).status,
    ).to.equal(200);
    const record = await until(
      async () => {
        const log = await call("GET", "/api/admin/access-log?who=Nurse%20Wang", { token: ADMIN });
        return (
          log.body.records as Array<{ action: string; who: string; credential: string; patientRefs: string[] }>
        ).find((r) => r.action === "POST /api/reports/{id}/data");
      },
      10_000,
      100,
    );
    expect(record).to.deep.include({ who: "Nurse Wang", credential: "nurse-3a", patientRefs: ["V-3A"] });
  });
});
