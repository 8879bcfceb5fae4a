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
 * as a browser reading the markdown would. The articles are in English; the pages' own words follow
 * `?lang=`. The decisions (docs/decisions) are pages below /help/decisions, listed by their index.
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
  }
> = {
  zh: {
    help: "帮助",
    intro: "透析中心服务的使用与运维文档（英文）。",
    back: "全部帮助文章",
    staff: "返回工作台",
    otherLanguage: "English",
    missing: "没有这篇帮助文章。",
    markdown: "Markdown 原文",
    table: "表格（可横向滚动）",
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
  },
};

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
      return marked.parse(article.text) as string;
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
    const entry = (article: HelpArticle) =>
      "<li><a " +
      `href="${pagePath(article.slug)}${suffix}">${escapeHtml(article.title)}</a>` +
      `${article.summary ? `<p>${escapeHtml(article.summary.replace(/[`*_]/g, ""))}</p>` : ""}</li>`;
    // Each decision is reached through the decisions' index, which is listed after the articles.
    const listed = articles.filter((article) => !isDecision(article) || article.slug === DECISIONS_INDEX);
    send(
      ctx,
      lang,
      words.help,
      `<h1>${words.help}</h1>\n<p class="intro">${words.intro}</p>\n<ul class="help-list">${listed.map(entry).join("\n")}</ul>`,
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
    const links =
      `<p class="help-links"><a href="/help${lang === "en" ? "?lang=en" : ""}">${words.back}</a> · <a ` +
      `href="/md/${article.slug}.md">${words.markdown}</a></p>`;
    send(
      ctx,
      lang,
      article.title,
      `${links}\n<article lang="en">\n${pageOf(lang, article)}\n</article>`,
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
