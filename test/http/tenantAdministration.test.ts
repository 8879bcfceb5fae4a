import { expect } from "chai";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { sessionCookieOf, useServiceWithProvider } from "../support/openIdProvider.ts";

/**
 * Contract E.2: role admin is "everything of the tenant, including /api/admin/* for it". A
 * tenant's administrator (a token or a signed-in person) manages that tenant's credentials and
 * reads its access log, never another tenant's, and one limited to some wards never makes a
 * credential that sees more than they do. The projections and the ledger stay the operator's.
 */
describe("a tenant's own administrators (E.2, E.3, E.4)", function () {
  this.timeout(60_000);
  const hub = useServiceWithProvider();
  let call: ReturnType<typeof httpClient>;
  const tokenOf = async (tenant: string, body: Record<string, unknown>) => {
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      tenant,
      body: { name: "Staff", tenant, ...body },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body as { authorId: string; token: string };
  };

  before(async () => {
    call = httpClient(hub.service.url!);
    for (const [ref, ward, n] of [
      ["A-3A", "3A", 51],
      ["A-5B", "5B", 52],
    ] as const) {
      expect(
        (
          await call("PUT", `/api/patients/${ref}`, {
            token: ADMIN,
            body: { name: `病人${ref}`, idCard: makeIdCard("110105", "19600101", n), ward },
          })
        ).status,
      ).to.equal(200);
    }
  });

  it("lets a token with the role admin manage its own tenant's credentials, and not another tenant's", async () => {
    const { token: admin } = await tokenOf("default", { name: "Head nurse", roles: ["admin"] });
    const made = await call("POST", "/api/admin/authors", {
      token: admin,
      body: { name: "Nurse Wang", tenant: "default", roles: ["clinician"] },
    });
    expect(made.status).to.equal(201);
    const listed = await call("GET", "/api/admin/authors", { token: admin });
    expect(listed.body.map((author: { name: string }) => author.name)).to.include("Nurse Wang");
    const { rows } = await hub.service.db.query("select metadata->>'actor' as actor from events where stream_id = $1", [
      `author:${made.body.authorId}`,
    ]);
    expect(rows[0].actor, "the grant is credited to the administrator").to.equal("Head nurse");

    const elsewhere = await call("POST", "/api/admin/authors", {
      token: admin,
      body: { name: "Intruder", tenant: "other" },
    });
    expect(elsewhere.status).to.equal(403);
    expect(elsewhere.body.error).to.include('send tenant: "default"');
    const otherAuthor = await tokenOf("other", { name: "Other's author" });
    expect(
      (await call("DELETE", `/api/admin/authors/${otherAuthor.authorId}`, { token: admin })).status,
      "another tenant's author is not there",
    ).to.equal(404);
    expect(
      (await call("GET", "/api/patients", { token: otherAuthor.token, tenant: "other" })).status,
      "and still works",
    ).to.equal(200);

    expect((await call("DELETE", `/api/admin/authors/${made.body.authorId}`, { token: admin })).status).to.equal(204);
    expect((await call("GET", "/api/patients", { token: made.body.token })).status).to.equal(401);
    const client = await call("POST", "/api/admin/clients", {
      token: admin,
      body: { name: "Ward lab", tenant: "default" },
    });
    expect(client.status).to.equal(201);

    const projections = await call("GET", "/api/admin/projections", { token: admin });
    expect(projections.status, "the projections span every tenant: the operator's").to.equal(401);
  });

  it("keeps an administrator of some wards to tokens of those wards, and away from laboratory keys and the tenant's whole access log", async () => {
    const { token: admin } = await tokenOf("default", { name: "Ward 3A lead", roles: ["admin"], wards: ["3A"] });
    const wider = await call("POST", "/api/admin/authors", {
      token: admin,
      body: { name: "Too wide", tenant: "default", wards: ["3A", "5B"] },
    });
    expect(wider.status).to.equal(403);
    expect(wider.body.error).to.include("send wards within [3A]");
    expect(
      (await call("POST", "/api/admin/authors", { token: admin, body: { name: "Every ward", tenant: "default" } }))
        .status,
      "no wards means every ward",
    ).to.equal(403);
    expect(
      (
        await call("POST", "/api/admin/authors", {
          token: admin,
          body: { name: "Nurse of 3A", tenant: "default", roles: ["clinician"], wards: ["3A"] },
        })
      ).status,
    ).to.equal(201);

    const everyWard = await tokenOf("default", { name: "Every ward's author" });
    expect((await call("DELETE", `/api/admin/authors/${everyWard.authorId}`, { token: admin })).status).to.equal(403);
    expect(
      (await call("POST", `/api/admin/authors/${everyWard.authorId}/rotate`, { token: admin, body: {} })).status,
    ).to.equal(403);
    const lab = await call("POST", "/api/admin/clients", { token: admin, body: { name: "Lab", tenant: "default" } });
    expect(lab.status).to.equal(403);
    expect(lab.body.error).to.include("serves every ward");

    expect((await call("GET", "/api/admin/access-log", { token: admin })).status).to.equal(403);
    expect((await call("GET", "/api/patients/A-3A/access-log", { token: admin })).status).to.equal(200);
    const otherWard = await call("GET", "/api/patients/A-5B/access-log", { token: admin });
    expect(otherWard.status, "another ward's patient is not there").to.equal(404);
  });

  it("lets a person signed in with the role admin administer with the session cookie and its CSRF token", async () => {
    // The store holds two tenants by now: the provider names the person's (issue #51: never the link alone).
    const cookie = await sessionCookieOf(hub.service.url!, hub.provider, {
      sub: "admin-1",
      name: "张主任",
      tenant: "default",
      roles: ["admin"],
    });
    const { csrf } = (await call("GET", "/staff/session", { headers: { cookie } })).body;
    const body = { name: "Night nurse", tenant: "default", roles: ["clinician"] };
    expect(
      (await call("POST", "/api/admin/authors", { headers: { cookie }, body })).status,
      "without the CSRF token",
    ).to.equal(403);
    expect(
      (await call("POST", "/api/admin/authors", { headers: { cookie, "x-csrf-token": csrf }, body })).status,
    ).to.equal(201);
    expect((await call("GET", "/api/admin/access-log", { headers: { cookie } })).status).to.equal(200);
  });

  it("tells a caller who they are: GET /api/me", async () => {
    const { token } = await tokenOf("default", { name: "Dr. Zhou", roles: ["clinician", "author"], wards: ["5B"] });
    expect((await call("GET", "/api/me", { token })).body).to.deep.equal({
      who: "Dr. Zhou",
      credential: "author-token",
      tenant: "default",
      roles: ["clinician", "author"],
      wards: ["5B"],
    });
    expect((await call("GET", "/api/me", { token: ADMIN, tenant: "h9" })).body).to.deep.equal({
      who: "admin",
      credential: "admin-token",
      tenant: "h9",
      roles: ["admin"],
      wards: null,
    });
    expect((await call("GET", "/api/me", { token: `${token}x` })).status).to.equal(401);

    const cookie = await sessionCookieOf(hub.service.url!, hub.provider, {
      sub: "viewer-1",
      name: "Visitor",
      tenant: "default",
      roles: ["viewer"],
    });
    expect((await call("GET", "/api/me", { headers: { cookie } })).body).to.deep.include({
      who: "Visitor",
      credential: "staff-session",
      roles: ["viewer"],
      wards: null,
    });
  });
});
