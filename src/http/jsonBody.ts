import type { Context, Middleware } from "koa";
import { isUtf8 } from "node:buffer";
import { getLocation } from "jsonc-parser";
import getRawBody from "raw-body";
import { fieldPath } from "../../db/fieldPath.ts";
import { UNSTORABLE_TEXT_RULE, unstorableTextPath } from "../../commands/kit/storableText.ts";
import { HttpError } from "./httpError.ts";

export interface JsonBodyOptions {
  /**
   * Refuse (400) a body holding text PostgreSQL cannot store (NUL, half a surrogate pair), naming
   * where. /open/v1 leaves this to each report's validation: one bad report must not fail a batch.
   */
  refuseUnstorableText?: boolean;
}

/** The whole body as UTF-8 text, refused (413) past `limitBytes` before it is all read. */
export async function bodyText(ctx: Context, limitBytes: number, what: string): Promise<string> {
  return (await bodyBytes(ctx, limitBytes, what)).toString("utf8");
}

async function bodyBytes(ctx: Context, limitBytes: number, what: string): Promise<Buffer> {
  try {
    // Decoded once as a whole: decoding chunk by chunk costs several times more for large pushes.
    return await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get("content-length") || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") {
      throw new HttpError(413, `The body is larger than ${Math.round(limitBytes / 1024 / 1024)} MB; send less per call.`);
    }
    if (type === "request.aborted") throw new HttpError(400, "The request body ended early; send it again whole.");
    throw new HttpError(400, `The request body could not be read; send ${what} in UTF-8 with a correct Content-Length.`);
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
    // Bytes that are not UTF-8 would be stored as U+FFFD, the sender never told: refused, saying where.
    if (!isUtf8(bytes)) throw new HttpError(400, notUtf8(bytes, raw));
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
        const where = fieldPath(unstorable.map((part) => (typeof part === "number" ? part : Array.from(part).slice(0, 40).join("")))).slice(0, 200);
        throw new HttpError(400, `${where ? `The text at ${where}` : "The body"} ${UNSTORABLE_TEXT_RULE}.`);
      }
    }
    await next();
  };
}

/** Where the first bytes that are not UTF-8 stand: the byte offset and, when inside JSON, the field. */
function notUtf8(bytes: Buffer, lossy: string): string {
  let offset = 0;
  let chars = 0;
  for (const char of lossy) {
    const isReplacement = char === "\uFFFD";
    // A U+FFFD the sender wrote is three bytes of valid UTF-8; any other stands for bytes that were not.
    if (isReplacement && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) break;
    offset += Buffer.byteLength(char);
    chars += char.length;
  }
  const path = getLocation(lossy, chars).path;
  const where = path.length > 0 ? ` (in the text at ${fieldPath(path).slice(0, 200)})` : "";
  return `The body is not valid UTF-8 at byte ${offset}${where}; send it encoded as UTF-8.`;
}

declare module "koa" {
  interface Request {
    /** Set by jsonBody(): the parsed JSON, or undefined for an empty body. */
    body?: unknown;
  }
}
