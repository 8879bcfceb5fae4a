import type { Context } from "koa";
import { z } from "zod";
import { HttpError } from "./httpError.ts";

/*
 * Keyset paging for lists that grow with a hospital's years: `limit` rows after `cursor`, and,
 * when more remain, a `Link: <…>; rel="next"` header with the next page's address (RFC 8288, as
 * GitHub pages). The answer stays the array it always was; without `limit` it is the whole list.
 * A cursor is the last row's sort key, opaque to callers (base64url JSON).
 */

export const MAX_PAGE_SIZE = 1000;

export const pageQuery = {
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .int(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .min(1, `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .optional()
    .meta({ description: `Rows per page (1 to ${MAX_PAGE_SIZE}); left out, the whole list. More rows are announced by a Link header with rel="next"` }),
  cursor: z.string().max(1000, "cursor is too long: send back the one a Link header gave").optional().meta({ description: "From the previous page's Link rel=\"next\"; opaque" }),
};

/** The Link header of a paged answer, for the OpenAPI document. */
export const pageLinkHeader = z.object({ Link: z.string().optional().meta({ description: 'When more rows remain: <the next page\'s address>; rel="next"' }) });

export interface Page<Key> {
  limit: number | null;
  after: Key | null;
}

/** The page a call asks for; `key` checks a decoded cursor's shape (its sort key's parts). */
export function pageOf<Key>(query: { limit?: number; cursor?: string }, key: z.ZodType<Key>): Page<Key> {
  if (query.cursor === undefined) return { limit: query.limit ?? null, after: null };
  return { limit: query.limit ?? null, after: keyOfCursor(query.cursor, key) };
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
  if (!parsed.success) throw new HttpError(400, `cursor is not one this list gave; send back the one in ${givenIn}, or start again without it.`);
  return parsed.data;
}

/**
 * Answers `rows` (fetched with one row beyond the limit, to know whether more remain) and, when
 * there are more, the Link to the next page, whose cursor is the last answered row's key.
 */
export function answerPage<Row, Key>(ctx: Context, page: Page<Key>, rows: Row[], keyOf: (row: Row) => Key): Row[] {
  if (page.limit === null || rows.length <= page.limit) return rows;
  const answered = rows.slice(0, page.limit);
  const next = new URL(ctx.originalUrl, "http://host");
  next.searchParams.set("cursor", cursorOf(keyOf(answered.at(-1)!)));
  next.searchParams.set("limit", String(page.limit));
  ctx.set("Link", `<${next.pathname}${next.search}>; rel="next"`);
  return answered;
}
