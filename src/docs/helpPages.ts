import Router from "@koa/router";
import type { Context } from "koa";
import { Marked, type Tokens } from "marked";
import { gfmHeadingId } from "marked-gfm-heading-id";
import { loadStaffAssets, WEB_DIST_DIR } from "../http/bundleAssets.ts";
import { escapeHtml, single } from "../reports/http/embedRoutes.ts";
import { DECISIONS_INDEX, DOCS_DIR, isDecision, loadHelpArticles, type HelpArticle } from "./helpRoutes.ts";

/*
 * The help articles as pages a person reads (`GET /help`, `GET /help/<slug>`): the same markdown
 * sources as `/md/<slug>.md` (which stays markdown for machines, contract A.1), each rendered
 * once, when first asked for, with the staff pages' stylesheet. Links between articles (`/md/<slug>.md#part`) lead to
 * their pages; headings carry GitHub's ids, so the articles' own `#part` links work. Relative links
 * (the decisions' `0002-….md`, `../operations.md#part`) are read from the article's own /md/ address,
 * as a browser reading the markdown would. The pages' own words follow `?lang=` (Chinese unless
 * `lang=en`). The staff's articles are in both languages (issue #54: `docs/zh/<slug>.md`, chosen by
 * the page's language); the guides for integrators, operators and developers are in English, listed
 * in Chinese by a Chinese title and summary and shown marked as English. The decisions
 * (docs/decisions) are pages below /help/decisions, listed by their index.
 */

type Lang = "zh" | "en";

const WORDS: Record<
  Lang,
  {
    help: string;
    intro: string;
    back: string;
    staff: string;
    otherLanguage: string;
    missing: string;
    markdown: string;
    table: string;
    /** Beside an article that is in English only, in the other language's list. */
    inEnglish: string;
    englishOnly: string;
  }
> = {
  zh: {
    help: "帮助",
    intro: "透析中心服务的使用与运维文档。面向医护人员与报表作者的文章为中文；面向接口对接、运维与开发的文档为英文。",
    back: "全部帮助文章",
    staff: "返回工作台",
    otherLanguage: "English",
    missing: "没有这篇帮助文章。",
    markdown: "Markdown 原文",
    table: "表格（可横向滚动）",
    inEnglish: "（英文）",
    englishOnly: "本文为面向接口对接、运维或开发人员的技术文档，只有英文版。",
  },
  en: {
    help: "Help",
    intro: "How to use and run the Dialysis Hub service.",
    back: "All help articles",
    staff: "Back to the staff pages",
    otherLanguage: "中文",
    missing: "There is no such help article.",
    markdown: "Markdown source",
    table: "Table (scrolls sideways)",
    inEnglish: "",
    englishOnly: "",
  },
};

/**
 * How the Chinese list names the articles that are in English only (for integrators, operators
 * and developers): a title and a summary a Chinese reader can choose by.
 */
const ENGLISH_ONLY_IN_CHINESE: Record<string, { title: string; summary: string }> = {
  "getting-started": {
    title: "快速上手",
    summary:
      "启动服务与演示数据，查看演示报表，并为本院完成初始设置：作者、患者、检验系统密钥、第一份推送的报告与第一份自建报表。",
  },
  "integration-guide": {
    title: "检验与检查系统厂商对接指南",
    summary:
      "检验系统（LIS）或检查系统通过开放接口（/open/v1）推送报告：认证、响应格式与状态码、每个调用的示例、对账摘要的计算与每日补推策略。",
  },
  "api-reference": {
    title: "接口参考",
    summary: "服务的每个 HTTP 接口：方法、路径、凭据、请求、应答与状态码；另有 /openapi.json 文档。",
  },
  architecture: {
    title: "架构：各部分放在哪里",
    summary: "事件溯源与读写分离（CQRS）的代码结构、分层规则，以及新增事件、投影、查询或接口时各放在何处。",
  },
  development: {
    title: "开发",
    summary: "参与开发本服务：测试如何运行、基准测试如何测量、服务如何构建。",
  },
  operations: {
    title: "运维",
    summary: "在生产环境运行本服务：全部配置项、进程拆分与扩展、故障恢复、投影的检查与重建、健康检查、日志与备份。",
  },
  "decisions/README": {
    title: "设计决策",
    summary: "本服务为何如此设计：每项值得了解的决策一篇短文（背景、决定、后果），按记录顺序编号。",
  },
};

/** An article's title and summary as a reader of `lang` finds it in the list. */
function listed(article: HelpArticle, lang: Lang): { title: string; summary: string; english: boolean } {
  if (lang === "en") return { title: article.title, summary: article.summary, english: false };
  if (article.zh) return { title: article.zh.title, summary: article.zh.summary, english: false };
  const named = ENGLISH_ONLY_IN_CHINESE[article.slug];
  return named ? { ...named, english: true } : { title: article.title, summary: article.summary, english: true };
}

const HELP_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  "object-src 'none'",
].join("; ");

/** An article's page: `/help/<slug>`, the decisions' index `/help/decisions`. */
const pagePath = (slug: string) => (slug === DECISIONS_INDEX ? "/help/decisions" : `/help/${slug}`);

/**
 * `/md/operations.md#roles-and-wards` → `/help/operations#roles-and-wards`, and a relative link read
 * from the article's own markdown address (`base`, e.g. `/md/decisions/0002-gap-free-reading.md`):
 * `0010-….md` → `/help/decisions/0010-…`, `../operations.md#health` → `/help/operations#health`.
 * External links, `#part` links and anything that names no article stay as written.
 */
function helpHref(href: string, base: string, lang: Lang): string {
  if (href.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  let resolved: URL;
  try {
    resolved = new URL(href, `http://article${base}`);
  } catch {
    return href;
  }
  const article = /^\/md\/((?:decisions\/)?[A-Za-z0-9-]+)\.md$/.exec(resolved.pathname);
  return article && !resolved.search
    ? `${pagePath(article[1]!)}${lang === "en" ? "?lang=en" : ""}${resolved.hash}`
    : href;
}

/**
 * One renderer per language: links to other articles keep the reader's language. Raw HTML in an
 * article is shown as text. `base` is the markdown address of the article being rendered (parsing
 * is synchronous, so it is the one `parse` was called for).
 */
function rendererFor(lang: Lang): { parse(article: HelpArticle): string } {
  let base = "/md/";
  const marked = new Marked({ gfm: true, async: false });
  marked.use(gfmHeadingId());
  marked.use({
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(token.text);
      },
      link(token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = helpHref(token.href.trim(), base, lang);
        const external = /^https?:\/\//i.test(href);
        return `<a href="${escapeHtml(href)}"${external ? ' rel="noopener noreferrer"' : ""}>${text}</a>`;
      },
    },
  });
  return {
    parse(article) {
      base = `/md/${article.slug}.md`;
      // A Chinese page reads the article's Chinese text where there is one.
      return marked.parse(lang === "zh" && article.zh ? article.zh.text : article.text) as string;
    },
  };
}

/**
 * Code blocks and tables wider than a phone scroll in their own box, which a keyboard must reach:
 * each becomes focusable (a table inside a labelled region). Raw HTML of an article is escaped
 * text, so these tags are only marked's own.
 */
function scrollBoxesReachable(html: string, tableLabel: string): string {
  return html
    .replaceAll("<pre>", '<pre tabindex="0">')
    .replaceAll(
      "<table>",
      `<div class="help-table" tabindex="0" role="region" aria-label="${escapeHtml(tableLabel)}"><table>`,
    )
    .replaceAll("</table>", "</table></div>");
}

function languageOf(ctx: Context): Lang {
  return single(ctx.query.lang) === "en" ? "en" : "zh";
}

export function helpPagesRoutes(deps: { articles?: readonly HelpArticle[]; assetsDir?: string } = {}): Router {
  const articles = deps.articles ?? loadHelpArticles(DOCS_DIR);
  const renderers = { zh: rendererFor("zh"), en: rendererFor("en") };
  // Rendered when first asked for, once per language: start-up parses no markdown.
  const rendered = new Map<string, string>();
  const pageOf = (lang: Lang, article: HelpArticle): string => {
    const key = `${lang}/${article.slug}`;
    let html = rendered.get(key);
    if (html === undefined) {
      html = scrollBoxesReachable(renderers[lang].parse(article), WORDS[lang].table);
      rendered.set(key, html);
    }
    return html;
  };
  const router = new Router();

  const send = (ctx: Context, lang: Lang, title: string, main: string, otherLanguage: string) => {
    const assets = loadStaffAssets(deps.assetsDir ?? WEB_DIST_DIR);
    const words = WORDS[lang];
    const header =
      `<header class="top help-top"><p class="brand"><a href="/help${lang === "en" ? "?lang=en" : ""}">${words.help}</a></p>` +
      `<nav aria-label="${words.help}"><a href="/staff${lang === "en" ? "?lang=en" : ""}">${words.staff}</a> ` +
      `<a class="lang" lang="${lang === "en" ? "zh-CN" : "en"}" href="${escapeHtml(otherLanguage)}">${words.otherLanguage}</a>` +
      "</nav></header>";
    ctx.set("Content-Security-Policy", HELP_CSP);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "same-origin");
    ctx.type = "text/html; charset=utf-8";
    ctx.body = `<!doctype html>
<html lang="${lang === "zh" ? "zh-CN" : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${words.help}</title>
<link rel="icon" href="data:,">
${assets ? `<link rel="stylesheet" href="${assets.urls["staff.css"]}">` : ""}
</head>
<body class="help">
${header}
<main id="main" class="help-article">
${main}
</main>
</body>
</html>
`;
  };

  router.get("/help", (ctx) => {
    const lang = languageOf(ctx);
    const words = WORDS[lang];
    const suffix = lang === "en" ? "?lang=en" : "";
    const entry = (article: HelpArticle) => {
      const { title, summary, english } = listed(article, lang);
      // An entry named in English (no Chinese name for it) is marked so.
      const marked = english && title === article.title ? ' lang="en"' : "";
      return (
        `<li${marked}><a href="${pagePath(article.slug)}${suffix}">${escapeHtml(title)}</a>` +
        `${english ? words.inEnglish : ""}` +
        `${summary ? `<p>${escapeHtml(summary.replace(/[`*_]/g, ""))}</p>` : ""}</li>`
      );
    };
    // Each decision is reached through the decisions' index, which is listed after the articles.
    const shown = articles.filter((article) => !isDecision(article) || article.slug === DECISIONS_INDEX);
    send(
      ctx,
      lang,
      words.help,
      `<h1>${words.help}</h1>\n<p class="intro">${words.intro}</p>\n<ul class="help-list">${shown.map(entry).join("\n")}</ul>`,
      lang === "en" ? "/help" : "/help?lang=en",
    );
  });

  /** The page of the article `slug` (none: the 404 page), at the address `page`. */
  const articlePage = (ctx: Context, slug: string | null, page: string) => {
    const lang = languageOf(ctx);
    const words = WORDS[lang];
    const article = slug === null ? undefined : articles.find((candidate) => candidate.slug === slug);
    const otherLanguage = `${page}${lang === "en" ? "" : "?lang=en"}`;
    if (!article) {
      ctx.status = 404;
      return send(
        ctx,
        lang,
        words.help,
        `<h1>${words.help}</h1>\n<p role="alert">${words.missing}</p>\n<p><a href="/help${lang === "en" ? "?lang=en" : ""}">${words.back}</a></p>`,
        otherLanguage,
      );
    }
    const chinese = lang === "zh" && article.zh !== undefined;
    const source = chinese ? `/md/zh/${article.slug}.md` : `/md/${article.slug}.md`;
    const links =
      `<p class="help-links"><a href="/help${lang === "en" ? "?lang=en" : ""}">${words.back}</a> · <a ` +
      `href="${source}">${words.markdown}</a></p>`;
    // An article in English only says so first on a Chinese page, and is marked as English.
    const note = lang === "zh" && !chinese ? `<p class="help-note">${words.englishOnly}</p>\n` : "";
    send(
      ctx,
      lang,
      listed(article, lang).title,
      `${links}\n${note}<article lang="${chinese ? "zh-CN" : "en"}">\n${pageOf(lang, article)}\n</article>`,
      otherLanguage,
    );
  };
  router.get("/help/decisions", (ctx) => articlePage(ctx, DECISIONS_INDEX, "/help/decisions"));
  // Only a decision's own name (`0002-gap-free-reading`) finds one; the index has the page above.
  router.get("/help/decisions/:name", (ctx) => {
    const name = ctx.params.name!;
    articlePage(ctx, name === "README" ? null : `decisions/${name}`, `/help/decisions/${encodeURIComponent(name)}`);
  });
  router.get("/help/:slug", (ctx) => {
    const slug = ctx.params.slug!;
    articlePage(ctx, isDecision({ slug }) ? null : slug, `/help/${encodeURIComponent(slug)}`);
  });
  return router;
}
