import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request, type Server } from "node:http";
import path from "node:path";
import { expect } from "chai";
import Koa from "koa";
import { projectFile } from "../../db/projectFiles.ts";
import { helpPagesRoutes } from "../../src/docs/helpPages.ts";
import { DOCS_DIR, helpRoutes, loadHelpArticles } from "../../src/docs/helpRoutes.ts";

/*
 * Issue #53: the decisions live in docs/decisions (one file each, numbered, listed by an index),
 * linked relatively so that they read the same on GitHub, in an editor and on the service; the
 * README is the first five minutes, and every link it and the docs make leads somewhere real.
 */
const DECISIONS_DIR = path.join(DOCS_DIR, "decisions");
const decisionFiles = () =>
  readdirSync(DECISIONS_DIR)
    .filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name))
    .sort();
const read = (file: string) => readFileSync(file, "utf8");

/** GitHub-style anchor of a markdown heading (as test/http/help.test.ts reads them). */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Markdown links outside code blocks and code spans: [text](target). */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** Every relative link of `file` (a file of the checkout) names a file that exists, and a heading of it that exists. */
function expectRelativeLinksResolve(file: string): void {
  for (const link of linksOf(read(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("/")) continue; // external, or served (/md/…: help.test.ts)
    const [target, fragment] = link.split("#") as [string, string | undefined];
    const targetFile = target === "" ? file : path.resolve(path.dirname(file), target);
    expect(existsSync(targetFile), `${link} in ${path.relative(projectFile(), file)}`).to.equal(true);
    if (fragment && targetFile.endsWith(".md")) {
      const anchors = [...read(targetFile).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!));
      expect(anchors, `#${fragment} of ${link} in ${path.relative(projectFile(), file)}`).to.include(fragment);
    }
  }
}

/** A GET with the path exactly as written: fetch() would resolve `..` before sending. */
function rawStatus(base: string, rawPath: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: rawPath, method: "GET" }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function listen(app: Koa): Promise<{ base: string; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("decisions (docs/decisions) and the README's links", () => {
  it("keeps at least ten decisions, numbered from 0001 without a gap, each with context, decision and consequences", () => {
    const files = decisionFiles();
    expect(files.length).to.be.at.least(10);
    files.forEach((name, i) => {
      const number = String(i + 1).padStart(4, "0");
      expect(name.slice(0, 4), `the file after ${files[i - 1] ?? "none"}`).to.equal(number);
      const text = read(path.join(DECISIONS_DIR, name));
      expect(text.split("\n")[0], `title of ${name}`).to.match(new RegExp(`^# ${number}\\. \\S`));
      for (const part of ["## Context", "## Decision", "## Consequences"])
        expect(text, `${part} in ${name}`).to.match(new RegExp(`^${part}`, "m"));
    });
    expect(
      readdirSync(DECISIONS_DIR)
        .filter((name) => name.endsWith(".md"))
        .sort(),
    ).to.deep.equal(["README.md", ...files].sort());
  });

  it("lists every decision in the index, each once", () => {
    const index = read(path.join(DECISIONS_DIR, "README.md"));
    const listed = [...index.matchAll(/^- \[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\) \S/gm)].map((m) => m[2]!);
    expect(listed).to.deep.equal(decisionFiles());
  });

  it("keeps the README to 200 lines, with the test command CI runs in a code block", () => {
    const readme = read(projectFile("README.md"));
    expect(readme.split("\n").length).to.be.at.most(201);
    expect(readme).to.match(/```sh\nnpm test\n```/);
    expect(readme).to.include("npm install && npm start");
    for (const page of ["/staff", "/embed", "/help", "/docs"]) expect(readme, page).to.include(`\`${page}`);
  });

  it("links only to files and headings that exist (README, docs, decisions)", () => {
    expectRelativeLinksResolve(projectFile("README.md"));
    for (const name of readdirSync(DOCS_DIR).filter((n) => n.endsWith(".md")))
      expectRelativeLinksResolve(path.join(DOCS_DIR, name));
    for (const name of readdirSync(DECISIONS_DIR)) expectRelativeLinksResolve(path.join(DECISIONS_DIR, name));
  });

  describe("served with the help articles", () => {
    let service: { base: string; close: () => Promise<void> };
    before(async () => {
      const app = new Koa();
      const articles = loadHelpArticles();
      app.use(helpRoutes(articles).routes());
      app.use(helpPagesRoutes({ articles }).routes());
      service = await listen(app);
    });
    after(() => service.close());

    it("serves the index and every decision as markdown below /md/decisions/, exactly as the files", async () => {
      for (const name of ["README.md", ...decisionFiles()]) {
        const answer = await fetch(`${service.base}/md/decisions/${name}`);
        expect(answer.status, name).to.equal(200);
        expect(answer.headers.get("content-type"), name).to.equal("text/markdown; charset=utf-8");
        expect(await answer.text(), name).to.equal(read(path.join(DECISIONS_DIR, name)));
      }
    });

    it("refuses anything else below /md/decisions/", async () => {
      for (const rawPath of [
        "/md/decisions/../getting-started.md",
        "/md/decisions/%2e%2e%2fgetting-started.md",
        "/md/decisions/readme.md",
        "/md/decisions/9999-none.md",
        "/md/decisions.md",
        "/md/decisions/",
        "/md/decisions/README",
      ]) {
        expect(await rawStatus(service.base, rawPath), rawPath).to.equal(404);
      }
    });

    it("lists the decisions on /help and renders them as pages whose links lead to other pages", async () => {
      const help = await (await fetch(`${service.base}/help?lang=en`)).text();
      expect(help).to.include('<a href="/help/decisions?lang=en">Decisions</a>');
      expect(help, "each decision is reached through the index, not listed on /help").not.to.include(
        "/help/decisions/0001",
      );

      const indexPage = await fetch(`${service.base}/help/decisions?lang=en`);
      expect(indexPage.status).to.equal(200);
      const index = await indexPage.text();
      for (const name of decisionFiles())
        expect(index, name).to.include(`href="/help/decisions/${name.slice(0, -3)}?lang=en"`);
      expect(index).to.include('href="/help/operations?lang=en"');

      const decision = await fetch(`${service.base}/help/decisions/0002-gap-free-reading`);
      expect(decision.status).to.equal(200);
      const page = await decision.text();
      expect(page).to.include("<h1");
      expect(page).to.include('href="/help/decisions/0010-nothing-holds-the-readers-horizon-for-long"');
      expect(page).to.include('href="/md/decisions/0002-gap-free-reading.md"');

      const development = await (await fetch(`${service.base}/help/development?lang=en`)).text();
      expect(development, "an article's relative link to a decision").to.include(
        'href="/help/decisions/0066-run-from-a-bundle?lang=en"',
      );

      expect((await fetch(`${service.base}/help/decisions/9999-none`)).status).to.equal(404);
    });
  });
});
