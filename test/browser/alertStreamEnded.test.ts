import { expect } from "chai";
import { ADMIN } from "../support/http.ts";
import { signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #51, item 2, on the page: when the service ends the alert stream because the credential
 * ended (here, the token revoked by an administrator), the open staff page signs the person out at
 * once, saying why, instead of trying the stream again and waiting for another call to fail.
 */
describe("an open staff page when its credential ends (alert stream 'ended')", function () {
  this.timeout(90_000);
  const staff = useStaffBrowserSuite("h1");

  for (const lang of ["en", "zh"] as const) {
    it(`shows the sign-in page within seconds of the token's revocation, without another call (${lang})`, async () => {
      const made = await staff.tenant.call("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name: `Night nurse ${lang}`, tenant: "h1", roles: ["clinician"] },
      });
      expect(made.status).to.equal(201);
      const page = await signedInPage(staff, "h1", { lang, fragment: "#alerts" }, made.body.token);
      await page.locator(".live[data-live=true]").waitFor({ timeout: 15_000 });
      const calls: string[] = [];
      page.on("request", (request) => {
        if (!request.url().includes("/api/alerts/stream")) calls.push(request.url());
      });
      expect(
        (await staff.tenant.call("DELETE", `/api/admin/authors/${made.body.authorId}`, { token: ADMIN })).status,
      ).to.equal(204);
      const revokedAt = Date.now();
      await page.locator("[data-page=sign-in]").waitFor({ timeout: 5_000 });
      expect(Date.now() - revokedAt, "signed out promptly").to.be.below(3_000);
      expect(calls, "signed out by the stream itself, not by another call failing").to.deep.equal([]);
      expect(await page.locator(".who").count(), "nobody named as signed in").to.equal(0);
      await page.close();
    });
  }
});
