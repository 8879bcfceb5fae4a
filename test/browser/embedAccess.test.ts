import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import Koa from "koa";
import { EMBED_TOKEN_TTL_SECONDS, EmbedTokens, embedCors } from "../../src/reports/http/embedAccess.ts";
import { contentSecurityPolicy, frameAncestorsFrom } from "../../src/reports/http/embedRoutes.ts";

describe("embed page: CSP and sandboxed-frame access", () => {
  describe("EMBED_FRAME_ANCESTORS", () => {
    it("defaults to 'self' and keeps a list of sources", () => {
      expect(frameAncestorsFrom(undefined)).to.equal("'self'");
      expect(frameAncestorsFrom("  ")).to.equal("'self'");
      expect(
        frameAncestorsFrom("'self'  https://his.example.org https://*.hospital.cn:8443 http://localhost:3000"),
      ).to.equal("'self' https://his.example.org https://*.hospital.cn:8443 http://localhost:3000");
      expect(frameAncestorsFrom("'none'")).to.equal("'none'");
    });

    it("refuses what could end the directive or the header", () => {
      for (const bad of [
        "https://a.org; script-src *",
        "https://a.org,https://b.org",
        "'unsafe-inline'",
        "'none' https://a.org",
        "https://a.org\r\nX: y",
      ]) {
        expect(() => frameAncestorsFrom(bad), bad).to.throw(/EMBED_FRAME_ANCESTORS/);
      }
    });

    it("is the last directive of the page's policy", () => {
      expect(contentSecurityPolicy("'self' https://his.example.org")).to.equal(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'self' https://his.example.org",
      );
    });
  });

  describe("embed tokens", () => {
    const tokens = new EmbedTokens("an-admin-token-of-the-service");

    it("hold for their tenant and report until they expire", () => {
      const now = Date.now();
      const token = tokens.issue("demo", "dialysis-adequacy", now);
      expect(tokens.valid(token, "demo", "dialysis-adequacy", now)).to.equal(true);
      expect(tokens.valid(token, "other", "dialysis-adequacy", now)).to.equal(false);
      expect(tokens.valid(token, "demo", "anemia-mineral", now)).to.equal(false);
      expect(tokens.valid(token, "demo", "dialysis-adequacy", now + (EMBED_TOKEN_TTL_SECONDS + 1) * 1000)).to.equal(
        false,
      );
      expect(tokens.valid(token.replace("demo", "demx"), "demx", "dialysis-adequacy", now)).to.equal(false);
      expect(tokens.valid(`${token.slice(0, -2)}AA`, "demo", "dialysis-adequacy", now)).to.equal(false);
      expect(tokens.valid("", "demo", "dialysis-adequacy", now)).to.equal(false);
    });

    it("are accepted by every replica with the same ADMIN_TOKEN, and only those", () => {
      const token = tokens.issue("demo", "r1");
      expect(new EmbedTokens("an-admin-token-of-the-service").valid(token, "demo", "r1")).to.equal(true);
      expect(new EmbedTokens("another-admin-token-0000").valid(token, "demo", "r1")).to.equal(false);
      expect(new EmbedTokens(undefined).valid(token, "demo", "r1")).to.equal(false);
    });
  });

  describe("CORS for the opaque origin of a sandboxed frame", () => {
    const tokens = new EmbedTokens(undefined);
    let server: Server;
    let base: string;

    before(async () => {
      const app = new Koa();
      app.use(embedCors(tokens));
      app.use((ctx) => {
        ctx.body = { ok: true };
      });
      server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    it("answers the preflight of the page's calls, and only of those", async () => {
      const preflight = (path: string) =>
        fetch(`${base}${path}`, {
          method: "OPTIONS",
          headers: {
            origin: "null",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,x-service-tenant,x-embed-token",
          },
        });
      const ok = await preflight("/api/reports/dialysis-adequacy/data");
      expect(ok.status).to.equal(204);
      expect(ok.headers.get("access-control-allow-origin")).to.equal("null");
      expect(ok.headers.get("access-control-allow-headers")).to.include("x-embed-token");
      expect(ok.headers.get("access-control-allow-credentials")).to.equal(null);
      for (const path of ["/api/reports/dialysis-adequacy/draft", "/api/reports", "/api/admin/clients"]) {
        expect((await preflight(path)).headers.get("access-control-allow-origin"), path).to.equal(null);
      }
    });

    it("lets the frame read an answer only with a token of the call's tenant and report", async () => {
      const call = (token: string, tenant = "demo", path = "/api/reports/dialysis-adequacy/view") =>
        fetch(`${base}${path}`, { headers: { origin: "null", "x-service-tenant": tenant, "x-embed-token": token } });
      const token = tokens.issue("demo", "dialysis-adequacy");
      const ok = await call(token);
      expect(ok.headers.get("access-control-allow-origin")).to.equal("null");
      expect(ok.headers.get("access-control-expose-headers")).to.equal("Content-Disposition");
      expect((await call(token, "other")).headers.get("access-control-allow-origin")).to.equal(null);
      expect(
        (await call(token, "demo", "/api/reports/anemia-mineral/view")).headers.get("access-control-allow-origin"),
      ).to.equal(null);
      expect((await call("forged")).headers.get("access-control-allow-origin")).to.equal(null);
      const sameOrigin = await fetch(`${base}/api/reports/dialysis-adequacy/view`, {
        headers: { "x-service-tenant": "demo", "x-embed-token": token },
      });
      expect(sameOrigin.headers.get("access-control-allow-origin")).to.equal(null);
    });
  });
});
