import type { Context, Middleware } from "koa";
import { getLocation } from "jsonc-parser";
import getRawBody from "raw-body";
import { fieldPath } from "../../db/fieldPath.ts";
import { UNSTORABLE_TEXT_RULE, unstorableTextPath } from "../../commands/kit/storableText.ts";
import { firstNonUtf8, type NonUtf8At } from "../firstNonUtf8.ts";
import { HttpError } from "./httpError.ts";

export interface JsonBodyOptions {
  /**
   * Refuse (400) a body holding text PostgreSQL cannot store (NUL, half a surrogate pair), naming
   * where. /open/v1 leaves this to each report's validation: one bad report must not fail a batch.
   */
  refuseUnstorableText?: boolean;
}

/** What a 400 says of a body that is not UTF-8, given the body decoded (U+FFFD for bad bytes) and where the first bad bytes stand. */
export type NotUtf8Sentence = (text: string, bad: NonUtf8At) => string;

const sendUtf8: NotUtf8Sentence = (_, bad) =>
  `The body is not valid UTF-8 at byte ${bad.byte}; send it encoded as UTF-8.`;

/** The whole body as UTF-8 text, refused (413) past `limitBytes` before it is all read, and (400) when it is not UTF-8. */
export async function bodyText(
  ctx: Context,
  limitBytes: number,
  what: string,
  notUtf8Sentence = sendUtf8,
): Promise<string> {
  const bytes = await bodyBytes(ctx, limitBytes, what);
  const text = bytes.toString("utf8");
  const bad = firstNonUtf8(bytes, text);
  if (bad) throw new HttpError(400, notUtf8Sentence(text, bad));
  return text;
}

async function bodyBytes(ctx: Context, limitBytes: number, what: string): Promise<Buffer> {
  try {
    // Decoded once as a whole: decoding chunk by chunk costs several times more for large pushes.
    const bytes = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get("content-length") || undefined });
    // Kept for the message store (contract G.5: a push refused whole is kept with its body too).
    ctx.request.rawBody = bytes;
    return bytes;
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") {
      throw new HttpError(
        413,
        `The body is larger than ${Math.round(limitBytes / 1024 / 1024)} MB; send less per call.`,
      );
    }
    if (type === "request.aborted") throw new HttpError(400, "The request body ended early; send it again whole.");
    throw new HttpError(
      400,
      `The request body could not be read; send ${what} in UTF-8 with a correct Content-Length.`,
    );
  }
}

/**
 * Reads a JSON body into ctx.request.body. The size limit is decided on the raw bytes, before any
 * parsing, so an oversized body costs no more than the limit.
 */
export function jsonBody(limitBytes: number, options: JsonBodyOptions = {}): Middleware {
  return async (ctx, next) => {
    if (!["POST", "PUT", "PATCH"].includes(ctx.method)) return next();
    const bytes = await bodyBytes(ctx, limitBytes, "JSON");
    const raw = bytes.toString("utf8");
    const bad = firstNonUtf8(bytes, raw);
    if (bad) throw new HttpError(400, notUtf8(raw, bad));
    if (raw.trim() === "") {
      ctx.request.body = undefined;
    } else {
      try {
        ctx.request.body = JSON.parse(raw);
      } catch {
        throw new HttpError(400, "The body is not valid JSON; check quotes, commas and brackets.");
      }
      const unstorable = options.refuseUnstorableText ? unstorableTextPath(ctx.request.body) : null;
      if (unstorable) {
        // Keys are as sent: each is cut to 40 characters (whole code points), the path to 200.
        const where = fieldPath(
          unstorable.map((part) => (typeof part === "number" ? part : Array.from(part).slice(0, 40).join(""))),
        ).slice(0, 200);
        throw new HttpError(400, `${where ? `The text at ${where}` : "The body"} ${UNSTORABLE_TEXT_RULE}.`);
      }
    }
    await next();
  };
}

/** Where the first bytes that are not UTF-8 stand: the byte offset and, when inside JSON, the field. */
function notUtf8(lossy: string, bad: NonUtf8At): string {
  const path = getLocation(lossy, bad.char).path;
  const where = path.length > 0 ? ` (in the text at ${fieldPath(path).slice(0, 200)})` : "";
  return `The body is not valid UTF-8 at byte ${bad.byte}${where}; send it encoded as UTF-8.`;
}

declare module "koa" {
  interface Request {
    /** Set by jsonBody(): the parsed JSON, or undefined for an empty body. */
    body?: unknown;
    /** Set when the body was read (jsonBody(), bodyText()): its bytes as received. */
    rawBody?: Buffer;
  }
}
