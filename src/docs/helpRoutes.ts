import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Router from "@koa/router";
import { projectFile } from "../../db/projectFiles.ts";

/** The help articles in the repository's `docs/` folder. */
export const DOCS_DIR = projectFile("docs");

/** A slug is an article's file name without `.md`; nothing else is ever served. */
export const SLUG_PATTERN = /^[a-z0-9-]+$/;

/**
 * The decisions (docs/decisions: `README.md`, the index, and `NNNN-name.md`), served beside the
 * articles as `decisions/<name>`, so that their relative links (`0002-….md`, `../operations.md`)
 * resolve below /md/ as they do on GitHub. Only these names; no deeper folder.
 */
export const DECISION_SLUG_PATTERN = /^decisions\/(README|\d{4}-[a-z0-9-]+)$/;
export const DECISIONS_INDEX = "decisions/README";

export const isDecision = (article: { slug: string }): boolean => article.slug.startsWith("decisions/");

/** Articles listed first in /llms.txt, in this order; the others follow alphabetically. */
const LEADING = ["getting-started", "integration-guide", "report-spec-guide", "api-reference"];
/** Articles a machine reader may skip (llms.txt's `## Optional` section). */
const OPTIONAL = new Set(["operations"]);

export interface HelpArticle {
  slug: string;
  title: string;
  /** The first paragraph after the title, on one line. */
  summary: string;
  text: string;
  /** The article in Chinese (`docs/zh/<slug>.md`), for the staff's articles (issue #54). */
  zh?: { title: string; summary: string; text: string };
}

/** The Chinese articles: `docs/zh/<slug>.md`, each the translation of `docs/<slug>.md`. */
export const ZH_DIR = "zh";

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".md"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

const bySlug = (a: { slug: string }, b: { slug: string }) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);

/**
 * Reads every `<slug>.md` of `dir` once, then the decisions of `dir/decisions` (the index first,
 * then by number). Files whose names are not a plain slug are left out, so the set of servable
 * names is fixed here and never derived from a request.
 */
export function loadHelpArticles(dir: string = DOCS_DIR): HelpArticle[] {
  const zhFiles = new Set(markdownFiles(path.join(dir, ZH_DIR)));
  const read = (file: string, slug: string): HelpArticle => {
    const text = readFileSync(path.join(dir, file), "utf8");
    const zh = zhFiles.has(file) ? readFileSync(path.join(dir, ZH_DIR, file), "utf8") : null;
    return {
      slug,
      text,
      ...titleAndSummary(text, slug),
      ...(zh ? { zh: { text: zh, ...titleAndSummary(zh, slug) } } : {}),
    };
  };
  const rank = (slug: string) => (LEADING.includes(slug) ? LEADING.indexOf(slug) : LEADING.length);
  const articles = markdownFiles(dir)
    .filter((name) => SLUG_PATTERN.test(name.slice(0, -3)))
    .map((name) => read(name, name.slice(0, -3)))
    .sort((a, b) => rank(a.slug) - rank(b.slug) || bySlug(a, b));
  const decisions = markdownFiles(path.join(dir, "decisions"))
    .map((name) => `decisions/${name.slice(0, -3)}`)
    .filter((slug) => DECISION_SLUG_PATTERN.test(slug))
    .map((slug) => read(`${slug}.md`, slug))
    .sort((a, b) => Number(b.slug === DECISIONS_INDEX) - Number(a.slug === DECISIONS_INDEX) || bySlug(a, b));
  return [...articles, ...decisions];
}

/** `# Title` on the first non-blank line, then the first paragraph. */
function titleAndSummary(text: string, slug: string): { title: string; summary: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let i = lines.findIndex((line) => line.trim() !== "");
  const heading = i >= 0 ? /^#\s+(.+?)\s*#*\s*$/.exec(lines[i]!) : null;
  const title = heading ? heading[1]! : slug;
  if (heading) i++;
  while (i >= 0 && i < lines.length && lines[i]!.trim() === "") i++;
  const paragraph: string[] = [];
  for (; i >= 0 && i < lines.length && lines[i]!.trim() !== "" && !lines[i]!.startsWith("#"); i++)
    paragraph.push(lines[i]!.trim());
  return { title, summary: paragraph.join(" ") };
}

/** The llmstxt.org layout: title, one-line summary, a short paragraph, then the linked articles. */
export function llmsTxt(all: readonly HelpArticle[]): string {
  const entry = (a: HelpArticle) => `- [${a.title}](/md/${a.slug}.md)${a.summary ? `: ${a.summary}` : ""}`;
  // The decisions are reached through their index, named in the paragraph: the lists hold the articles.
  const articles = all.filter((a) => !isDecision(a));
  const docs = articles.filter((a) => !OPTIONAL.has(a.slug));
  const optional = articles.filter((a) => OPTIONAL.has(a.slug));
  const out = [
    "# Dialysis Hub",
    "",
    "> Clinical report ingestion and versioned report viewing for hemodialysis centres.",
    "",
    "Laboratory and examination systems push reports through the open API under `/open/v1`; each report is validated, " +
      "matched to a dialysis patient and mapped to a standard dialysis item dictionary, and senders reconcile what was " +
      "received per day. Report authors publish versioned dashboards whose data comes from server-side SQL over the " +
      "`clinical` data source; host applications list, view, drill into and export them through `/api`. " +
      "Every article below is served as markdown under `/md/`" +
      (all.some((a) => a.slug === DECISIONS_INDEX)
        ? "; why the service is as it is, one decision a file, is indexed at `/md/decisions/README.md`."
        : "."),
    "",
    "## Docs",
    "",
    ...docs.map(entry),
  ];
  if (optional.length > 0) out.push("", "## Optional", "", ...optional.map(entry));
  return `${out.join("\n")}\n`;
}

/**
 * GET /llms.txt and GET /md/<slug>.md (contract A.1 rule 5, C.7). The articles are read once, at
 * start; a request only looks its slug up in that list, so no path built from the request ever
 * reaches the file system (`..`, encoded slashes, backslashes and NUL simply match no slug).
 */
export function helpRoutes(articles: readonly HelpArticle[] = loadHelpArticles(DOCS_DIR)): Router {
  // The Chinese articles answer at /md/zh/<slug>.md, beside their English sources.
  const textOf = new Map([
    ...articles.map((a): [string, string] => [a.slug, a.text]),
    ...articles.flatMap((a): Array<[string, string]> => (a.zh ? [[`${ZH_DIR}/${a.slug}`, a.zh.text]] : [])),
  ]);
  const index = llmsTxt(articles);
  const router = new Router();

  router.get("/llms.txt", (ctx) => {
    ctx.body = index;
    ctx.type = "text/plain; charset=utf-8";
    ctx.set("X-Content-Type-Options", "nosniff");
  });

  const article = (raw: string | undefined) => {
    let file: string;
    try {
      file = decodeURIComponent(raw ?? "");
    } catch {
      return undefined; // malformed percent-encoding names no article
    }
    const slug = file.endsWith(".md") ? file.slice(0, -3) : "";
    const named =
      SLUG_PATTERN.test(slug) ||
      DECISION_SLUG_PATTERN.test(slug) ||
      (slug.startsWith(`${ZH_DIR}/`) && SLUG_PATTERN.test(slug.slice(ZH_DIR.length + 1)));
    return named ? textOf.get(slug) : undefined;
  };
  // Everything below /md/ (any number of segments, raw as sent) ends here: served or 404.
  router.get(/^\/md\/(.*)$/, (ctx) => {
    const text = article(ctx.captures?.[0]);
    ctx.set("X-Content-Type-Options", "nosniff");
    if (text === undefined) {
      ctx.status = 404;
      ctx.body = "There is no such help article; the articles are listed at /llms.txt.\n";
      ctx.type = "text/plain; charset=utf-8";
      return;
    }
    ctx.body = text;
    ctx.type = "text/markdown; charset=utf-8";
  });
  return router;
}
