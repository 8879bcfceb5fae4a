import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { clientByKey } from "../support/credentials.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { useTestService } from "../support/service.ts";

describe("credentials (/api/admin)", () => {
  const hub = useTestService({ projections: allProjections });
  let call: ReturnType<typeof httpClient>;
  before(async () => {
    call = httpClient(hub.service.url!);
  });

  it("issues a client key once and stores only its digest", async () => {
    const created = await call("POST", "/api/admin/clients", {
      token: ADMIN,
      body: { name: "Central lab", tenant: "h1" },
    });
    expect(created.status).to.equal(201);
    expect(created.body.key).to.match(/^dhk_[A-Za-z0-9_-]{32}$/);
    expect(await clientByKey(hub.service.db, created.body.key)).to.include({ name: "Central lab", tenant: "h1" });
    const stored = await hub.service.db.query(
      "select count(*)::int as n from events where data::text like $1 or metadata::text like $1",
      [`%${created.body.key}%`],
    );
    expect(stored.rows[0].n).to.equal(0);
  });

  it("revokes a key so that it fails from the next request on", async () => {
    const { clientId, key } = (
      await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Old LIS", tenant: "h1" } })
    ).body;
    expect((await call("DELETE", `/api/admin/clients/${clientId}`, { token: ADMIN })).status).to.equal(204);
    expect(await clientByKey(hub.service.db, key)).to.equal(null);
    expect(
      (await call("DELETE", `/api/admin/clients/${clientId}`, { token: ADMIN })).status,
      "revoking twice is harmless",
    ).to.equal(204);
    expect((await call("DELETE", "/api/admin/clients/no-such-client", { token: ADMIN })).status).to.equal(404);
  });

  it("refuses a client without a name or with a bad tenant, saying which", async () => {
    const noName = await call("POST", "/api/admin/clients", { token: ADMIN, body: { tenant: "h1" } });
    expect(noName.status).to.equal(400);
    expect(noName.body.error).to.match(/name/);
    const badTenant = await call("POST", "/api/admin/clients", {
      token: ADMIN,
      body: { name: "x", tenant: "no spaces" },
    });
    expect(badTenant.status).to.equal(400);
    expect(badTenant.body.error).to.match(/tenant/);
  });

  it("issues author tokens only to an administrator: the operator, or a token with the role admin", async () => {
    expect((await call("POST", "/api/admin/authors", { body: { name: "x", tenant: "h1" } })).status).to.equal(401);
    const author = await call("POST", "/api/admin/authors", { token: ADMIN, body: { name: "Dr. Li", tenant: "h1" } });
    expect(author.status).to.equal(201);
    expect(author.body.token).to.match(/^dha_/);
    const byAuthor = await call("POST", "/api/admin/authors", {
      token: author.body.token,
      tenant: "h1",
      body: { name: "y", tenant: "h1" },
    });
    expect(byAuthor.status).to.equal(403);
    expect(byAuthor.body.error).to.include("needs the role admin");
  });
});
