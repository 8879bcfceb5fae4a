import type { Context } from "koa";
import { z } from "zod";
import { HttpError } from "./httpError.ts";

/*
 * Keyset paging for every list that grows with a hospital's years (contract E.6): `limit` rows
 * (default 100, at most 1,000) after `cursor`. A bare array (a published shape) stays the array it
 * always was, and when more rows remain a `Link: <…>; rel="next"` header gives the next page's
 * address (RFC 8288, as GitHub pages); an object answer names the next page's `cursor` itself. A
 * cursor is the last row's sort key, opaque to callers (base64url JSON), so a walk from the first
 * page meets every row that was there when it began exactly once, however many are added meanwhile.
 */

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const limitProblem = (max: number) => `limit must be a whole number from 1 to ${max}`;

/** `limit`: rows per page, `size` when left out; a list may take fewer than MAX_PAGE_SIZE at most. */
export function pageLimit(size = DEFAULT_PAGE_SIZE, max = MAX_PAGE_SIZE) {
  const problem = limitProblem(max);
  return z.coerce
    .number({ error: problem })
    .int(problem)
    .min(1, problem)
    .max(max, problem)
    .default(size)
    .meta({
      description: `Rows per page, 1 to ${max} (default ${size}); more rows are announced by the next page's address`,
    });
}

/** `cursor`: where the page starts, as the page before gave it. */
export function pageCursor(givenIn = 'its Link header (rel="next")') {
  return z
    .string({ error: `cursor is sent once: the one ${givenIn} gave` })
    .max(1000, `cursor is too long: send back the one ${givenIn} gave`)
    .optional()
    .meta({ description: `Where the page starts: the cursor of ${givenIn}; opaque. Left out: the first page` });
}

/** The query parameters of a list answered as a bare array with a Link header. */
export const pageQuery = {
  limit: pageLimit(),
  cursor: pageCursor(),
};

/** The Link header of a paged answer, for the OpenAPI document. */
export const pageLinkHeader = z.object({
  Link: z.string().optional().meta({ description: 'When more rows remain: <the next page\'s address>; rel="next"' }),
});

export interface Page<Key> {
  limit: number;
  after: Key | null;
}

/** The page a call asks for; `key` checks a decoded cursor's shape (its sort key's parts). */
export function pageOf<Key>(
  query: { limit: number; cursor?: string },
  key: z.ZodType<Key>,
  givenIn?: string,
): Page<Key> {
  return { limit: query.limit, after: query.cursor === undefined ? null : keyOfCursor(query.cursor, key, givenIn) };
}

/** The cursor of a row: its sort key, opaque to callers. */
export function cursorOf(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/** The sort key a cursor of cursorOf stands for; `givenIn` says where the list gives its cursors. */
export function keyOfCursor<Key>(cursor: string, key: z.ZodType<Key>, givenIn = "its Link header"): Key {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const parsed = key.safeParse(decoded);
  if (!parsed.success)
    throw new HttpError(
      400,
      `cursor is not one this list gave; send back the one in ${givenIn}, or start again without it.`,
    );
  return parsed.data;
}

/**
 * Answers `rows` (fetched with one row beyond the limit, to know whether more remain) and, when
 * there are more, the Link to the next page, whose cursor is the last answered row's key.
 */
export function answerPage<Row, Key>(ctx: Context, page: Page<Key>, rows: Row[], keyOf: (row: Row) => Key): Row[] {
  if (rows.length <= page.limit) return rows;
  const answered = rows.slice(0, page.limit);
  const next = new URL(ctx.originalUrl, "http://host");
  next.searchParams.set("cursor", cursorOf(keyOf(answered.at(-1)!)));
  next.searchParams.set("limit", String(page.limit));
  ctx.set("Link", `<${next.pathname}${next.search}>; rel="next"`);
  return answered;
}

/** The rows of a page (fetched with one beyond the limit) and the cursor of the next, or null: for lists answered as an object. */
export function pageWithNext<Row, Key>(
  page: Page<Key>,
  rows: Row[],
  keyOf: (row: Row) => Key,
): { rows: Row[]; next: string | null } {
  if (rows.length <= page.limit) return { rows, next: null };
  const answered = rows.slice(0, page.limit);
  return { rows: answered, next: cursorOf(keyOf(answered.at(-1)!)) };
}

/** What a query takes to read a page: one row more than the limit, after the cursor's key. */
export const rowsFor = <Key>(page: Page<Key>) => ({ limit: page.limit + 1, after: page.after });
