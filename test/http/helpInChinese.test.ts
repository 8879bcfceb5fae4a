import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import Koa from "koa";
import { helpPagesRoutes } from "../../src/docs/helpPages.ts";
import { helpRoutes, loadHelpArticles } from "../../src/docs/helpRoutes.ts";

/*
 * Issue #54: the help articles for staff (nurses and clinicians, report authors) in Chinese and in
 * English, the page's language choosing; the guides for integrators, operators and developers stay
 * English, listed in Chinese by Chinese titles and marked as English where shown.
 */
const STAFF_ARTICLES = [
  "patient-chart-and-alerts",
  "derived-values-and-delta-checks",
  "unmapped-items",
  "report-spec-guide",
  "quality-figures",
  "critical-value-escalation",
];

describe("help articles for staff in Chinese and English (/help, /md/zh)", () => {
  let server: Server;
  let base = "";
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
  };

  before(async () => {
    const articles = loadHelpArticles();
    const app = new Koa();
    app.use(helpRoutes(articles).routes()).use(helpPagesRoutes({ articles }).routes());
    server = app.listen(0);
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it("shows each staff article in the page's language, and serves its Chinese markdown beside the English", async () => {
    for (const slug of STAFF_ARTICLES) {
      const zh = await get(`/help/${slug}`);
      expect(zh.status, slug).to.equal(200);
      expect(zh.text, slug).to.include('<article lang="zh-CN">').and.include(`href="/md/zh/${slug}.md"`);
      const en = await get(`/help/${slug}?lang=en`);
      expect(en.text, slug).to.include('<article lang="en">');
      const markdown = await get(`/md/zh/${slug}.md`);
      expect([markdown.status, markdown.type], slug).to.deep.equal([200, "text/markdown; charset=utf-8"]);
      expect(markdown.text, slug).to.match(/^# \S*[\u4e00-\u9fff]/);
    }
    expect(await get("/help/patient-chart-and-alerts").then((page) => page.text)).to.include(
      "<title>患者检验趋势与危急值 · 帮助</title>",
    );
    expect((await get("/md/zh/operations.md")).status, "no Chinese operations guide").to.equal(404);
    expect((await get("/md/zh/..%2Foperations.md")).status).to.equal(404);
  });

  it("never tells a nurse to use an author token, in either language", async () => {
    for (const path of ["/md/patient-chart-and-alerts.md", "/md/zh/patient-chart-and-alerts.md"])
      expect((await get(path)).text, path).not.to.match(/author token|作者令牌/i);
  });

  it("lists every article by a Chinese title on the Chinese list, the English-only guides marked so", async () => {
    const list = (await get("/help")).text;
    expect(list).to.include(">患者检验趋势与危急值</a>").and.include(">报表编写指南</a>");
    expect(list).to.include(">检验与检查系统厂商对接指南</a>（英文）").and.include(">运维</a>（英文）");
    expect(list).not.to.include(">Operations</a>");
    const guide = (await get("/help/operations")).text;
    expect(guide)
      .to.include("<title>运维 · 帮助</title>")
      .and.include('class="help-note"')
      .and.include('<article lang="en">');
    expect((await get("/help?lang=en")).text)
      .to.include(">Operations</a>")
      .and.not.include("（英文）");
  });
});
