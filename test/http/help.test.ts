import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import Koa from "koa";
import { allProjections } from "../../src/app/allProjections.ts";
import { DOCS_DIR, helpRoutes, SLUG_PATTERN, loadHelpArticles } from "../../src/docs/helpRoutes.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { useTestService } from "../support/service.ts";

interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A GET with the path exactly as written: fetch() would resolve `..` and `%2e%2e` before sending. */
function rawGet(baseUrl: string, rawPath: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: rawPath, method: "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const articleFiles = () =>
  readdirSync(DOCS_DIR)
    .filter((name) => name.endsWith(".md"))
    .sort();
const slugs = () => articleFiles().map((name) => name.slice(0, -3));
const source = (slug: string) => readFileSync(path.join(DOCS_DIR, `${slug}.md`), "utf8");

/** GitHub-style anchor of a markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

const NOT_FOUND = "There is no such help article; the articles are listed at /llms.txt.\n";

describe("help articles (/llms.txt, /md/<slug>.md)", () => {
  const hub = useTestService({ projections: allProjections });

  it("keeps every article under a servable name, starting with a title and a summary paragraph", () => {
    expect(slugs()).to.include.members([
      "getting-started",
      "integration-guide",
      "report-spec-guide",
      "api-reference",
      "operations",
    ]);
    for (const slug of slugs()) {
      expect(slug, `docs/${slug}.md`).to.match(SLUG_PATTERN);
      const [first, blank, summary] = source(slug).split("\n");
      expect(first, `title of ${slug}`).to.match(/^# \S/);
      expect(blank, `blank line after the title of ${slug}`).to.equal("");
      expect(summary, `summary of ${slug}`).to.match(/^\S/);
    }
  });

  it("serves /llms.txt as plain text in the llmstxt.org layout, linking every article", async () => {
    const answer = await rawGet(hub.service.url!, "/llms.txt");
    expect(answer.status).to.equal(200);
    expect(answer.contentType).to.equal("text/plain; charset=utf-8");
    const lines = answer.body.split("\n");
    expect(lines[0]).to.equal("# Dialysis Hub");
    expect(lines[1]).to.equal("");
    expect(lines[2]).to.match(/^> \S/);
    expect(lines).to.include("## Docs");
    expect(lines).to.include("## Optional");
    expect(lines.indexOf("## Docs")).to.be.lessThan(lines.indexOf("## Optional"));

    const links = [...answer.body.matchAll(/^- \[([^\]]+)\]\(\/md\/([a-z0-9-]+)\.md\): (\S.*)$/gm)];
    expect(links.map((m) => m[2]).sort()).to.deep.equal(slugs());
    for (const [, title, slug] of links) {
      expect(title, slug).to.equal(/^# (.+)$/m.exec(source(slug!))![1]);
    }
    const optional = answer.body.slice(answer.body.indexOf("## Optional"));
    expect(optional).to.include("](/md/operations.md)");
  });

  it("resolves every /md/ link of /llms.txt", async () => {
    const index = (await rawGet(hub.service.url!, "/llms.txt")).body;
    const targets = [...index.matchAll(/\]\((\/md\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(targets).to.have.length(slugs().length);
    for (const target of targets) expect((await rawGet(hub.service.url!, target)).status, target).to.equal(200);
  });

  it("serves each article's markdown source as text/markdown, exactly as the file", async () => {
    for (const slug of slugs()) {
      const answer = await rawGet(hub.service.url!, `/md/${slug}.md`);
      expect(answer.status, slug).to.equal(200);
      expect(answer.contentType, slug).to.equal("text/markdown; charset=utf-8");
      expect(answer.body, slug).to.equal(source(slug));
    }
  });

  it("links between articles point at articles and headings that exist", () => {
    for (const slug of slugs()) {
      for (const [, target, fragment] of source(slug).matchAll(/\]\(\/md\/([^)#]+)\.md(?:#([^)]+))?\)/g)) {
        expect(slugs(), `link to ${target} in ${slug}`).to.include(target);
        if (fragment) {
          const anchors = [...source(target!).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!));
          expect(anchors, `#${fragment} in ${target}, linked from ${slug}`).to.include(fragment);
        }
      }
    }
  });

  it("answers 404 with a plain sentence for an unknown article", async () => {
    for (const rawPath of [
      "/md/nothing-here.md",
      "/md/getting-started",
      "/md/Getting-Started.md",
      "/md/getting-started.md.md",
      "/md/",
      "/md/.md",
      "/md/getting-started.txt",
    ]) {
      const answer = await rawGet(hub.service.url!, rawPath);
      expect(answer.status, rawPath).to.equal(404);
      expect(answer.contentType, rawPath).to.equal("text/plain; charset=utf-8");
      expect(answer.body, rawPath).to.equal(NOT_FOUND);
    }
  });

  it("answers 404 to path traversal attempts", async () => {
    const attempts = [
      "/md/..%2F..%2Fpackage.json.md",
      "/md/..%2f..%2fREADME.md",
      "/md/%2e%2e/x.md",
      "/md/%2e%2e%2f%2e%2e%2fpackage.json.md",
      "/md/../package.json.md",
      "/md/../../README.md",
      "/md/./getting-started.md",
      "/md/docs%2Fgetting-started.md",
      "/md/..%5C..%5Cpackage.json.md",
      "/md/..\\..\\package.json.md",
      "/md/getting-started.md%00",
      "/md/getting-started%00.md",
      "/md/%00.md",
      "/md//etc/passwd.md",
      "/md/%2Fetc%2Fpasswd.md",
      "/md/%E0%A4%A.md",
    ];
    for (const rawPath of attempts) {
      const answer = await rawGet(hub.service.url!, rawPath);
      expect(answer.status, rawPath).to.equal(404);
      expect(answer.body, rawPath).to.equal(NOT_FOUND);
    }
  });

  it("reads the articles once at start and serves nothing but them", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "help-routes-"));
    const docs = path.join(root, "docs");
    mkdirSync(docs);
    writeFileSync(path.join(docs, "first-steps.md"), "# First steps\n\nHow to begin.\n\nBody.\n");
    writeFileSync(path.join(docs, "Not-A-Slug.md"), "# Hidden\n\nNever served.\n");
    writeFileSync(path.join(root, "secret.md"), "# Secret\n\nOutside docs.\n");
    const app = new Koa();
    app.use(helpRoutes(loadHelpArticles(docs)).routes());
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, () => resolve(s));
    });
    try {
      const address = server.address();
      const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      // Gone from disk, still served: requests never read the file system.
      rmSync(path.join(docs, "first-steps.md"));
      writeFileSync(path.join(docs, "added-later.md"), "# Added later\n\nToo late.\n");
      expect((await rawGet(base, "/md/first-steps.md")).body).to.equal("# First steps\n\nHow to begin.\n\nBody.\n");
      for (const rawPath of [
        "/md/added-later.md",
        "/md/Not-A-Slug.md",
        "/md/..%2Fsecret.md",
        "/md/../secret.md",
        "/md/%2e%2e/secret.md",
      ]) {
        expect((await rawGet(base, rawPath)).status, rawPath).to.equal(404);
      }
      const index = (await rawGet(base, "/llms.txt")).body;
      expect(index).to.include("- [First steps](/md/first-steps.md): How to begin.");
      expect(index).not.to.match(/Hidden|Secret|Added later/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    }
  });

  describe("integration guide", () => {
    const guide = () => source("integration-guide");
    /** `curl … -X POST "$BASE/open/v1/…"`: each curl command of the guide as method and path. */
    const curlCalls = () =>
      [...guide().matchAll(/^curl\b(.*)$/gm)].map(([line, rest]) => {
        const url = /"\$BASE([^"]*)"/.exec(rest!);
        expect(url, `curl without a "$BASE/…" URL: ${line}`).to.not.equal(null);
        return { method: /-X (\w+)/.exec(rest!)?.[1] ?? "GET", path: url![1]! };
      });

    it("shows a curl example for every call of the open API, and only calls below /open/v1/", () => {
      const calls = curlCalls();
      for (const call of calls) expect(call.path, call.path).to.match(/^\/open\/v1\//);
      const routes = new Set(calls.map((call) => `${call.method} ${call.path.split("?")[0]}`));
      for (const route of [
        "GET /open/v1/ping",
        "GET /open/v1/dict/lab-items",
        "POST /open/v1/lab/reports",
        "POST /open/v1/exam/reports",
        "GET /open/v1/reconcile/lab",
        "GET /open/v1/reconcile/exam",
        "POST /open/v1/lab/reports/bulk",
        "GET /open/v1/bulk/$JOB_ID",
        "GET /open/v1/bulk/$JOB_ID/rejected",
      ]) {
        expect([...routes], route).to.include(route);
      }
    });

    it("names only real routes in its curl examples", async () => {
      const call = httpClient(hub.service.url!);
      const client = await call("POST", "/api/admin/clients", {
        token: ADMIN,
        body: { name: "Guide check LIS", tenant: "help-docs" },
      });
      expect(client.status).to.equal(201);
      // The guide's $JOB_ID: a job of this client.
      const submitted = await fetch(`${hub.service.url}/open/v1/lab/reports/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${client.body.key}`, "content-type": "application/x-ndjson" },
        body: `${JSON.stringify({ externalId: "GUIDE-1" })}\n`,
      });
      const { jobId } = ((await submitted.json()) as { data: { jobId: string } }).data;
      for (const { method, path: guidePath } of curlCalls()) {
        const callPath = guidePath.replace("$JOB_ID", jobId);
        const answer = await call(method, callPath, { token: client.body.key });
        expect(answer.status, `${method} ${callPath}`).to.not.equal(404);
        expect(answer.body.code, `${method} ${callPath}`).to.equal(answer.status);
      }
    });
  });
});
