import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { seedTenant } from "../support/seededTenant.ts";
import { useTestService } from "../support/service.ts";

/**
 * Security headers of the pages a browser opens (issue #7, point 4): every HTML page — answers
 * of every status — carries a Content-Security-Policy that allows no inline or foreign script,
 * no plugin and no <base> rewrite, and says who may frame it; every page and text file says
 * `nosniff`. The embed page's CSP in a real browser is in test/browser/embed.test.ts.
 */

const HTML_PAGES = [
  "/embed/reports/every-param?tenant=h1",
  "/embed/reports/every-param?tenant=h1&version=v9",
  "/embed/reports/hb-monthly?tenant=h1",
  "/embed/reports/Not_An_Id?tenant=h1",
  "/embed/reports/every-param?tenant=no%20such",
  "/docs",
  "/staff",
];
const TEXT_FILES = ["/md/getting-started.md", "/md/no-such-article.md", "/llms.txt"];

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map((words) => [words[0]!.toLowerCase(), words.slice(1)]),
  );
}

describe("security: headers of the pages", function () {
  this.timeout(30_000);
  const hub = useTestService({ projections: allProjections });

  before(async () => {
    await seedTenant(hub.service, "h1");
  });

  for (const path of HTML_PAGES) {
    it(`${path}: a CSP without inline script, plugins or <base>, framing stated, nosniff, a referrer policy`, async () => {
      const response = await fetch(`${hub.service.url}${path}`);
      expect(response.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      const csp = directives(response.headers.get("content-security-policy") ?? "");
      const scripts = csp.get("script-src") ?? csp.get("default-src");
      expect(scripts, "script-src").to.be.an("array").that.is.not.empty;
      for (const unsafe of ["'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"])
        expect(scripts, `script-src ${unsafe}`).not.to.include(unsafe);
      expect(csp.get("object-src") ?? csp.get("default-src"), "object-src").to.deep.equal(["'none'"]);
      expect(csp.get("base-uri"), "base-uri").to.satisfy(
        (sources: string[] | undefined) =>
          sources !== undefined && sources.every((s) => s === "'none'" || s === "'self'"),
      );
      expect(csp.get("frame-ancestors"), "frame-ancestors").to.be.an("array").that.is.not.empty;
      expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
      expect(response.headers.get("referrer-policy")).to.be.oneOf([
        "same-origin",
        "no-referrer",
        "strict-origin",
        "strict-origin-when-cross-origin",
      ]);
      expect(response.headers.get("x-powered-by")).to.equal(null);
    });
  }

  for (const path of TEXT_FILES) {
    it(`${path}: its own content type with a charset, nosniff`, async () => {
      const response = await fetch(`${hub.service.url}${path}`);
      expect(response.headers.get("content-type")).to.match(/^text\/(markdown|plain); charset=utf-8$/);
      expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    });
  }
});
