import { Readable } from "node:stream";
import type { Context } from "koa";

/** Text gathered into one piece of the answer before it is handed on: large enough that a piece costs little, small beside a result. */
const PIECE_CHARS = 64 * 1024;
/**
 * How deep arrays and objects are written member by member; below, each member is one
 * JSON.stringify (unless it holds a string longer than a piece). A data answer's rows are at depth
 * 3 (answer → queries → a query's result → rows), so each row is one call.
 */
const OPENED_DEPTH = 4;

/**
 * Answers `value` as JSON written a piece at a time, as the reader takes it (issue #52, finding 6).
 * Koa answers an object with JSON.stringify: the whole text at once beside the values it was made
 * of, and a copy of it in bytes for the socket, so eight 32 MB report answers took the process to
 * 1.5 GB. Written in pieces of about 64 KB, an answer never holds more of its text than a piece or
 * two (the stream's buffer and the socket's), and a reader that stops reading is cut at the stall
 * deadline (stalledResponses.ts) rather than holding the text. The text is JSON.stringify's, byte
 * for byte; only Content-Length gives way to chunked transfer.
 */
export function answerJson(ctx: Context, value: unknown): void {
  ctx.type = "application/json; charset=utf-8";
  ctx.body = new JsonText(value);
}

/**
 * The text of a value as a byte stream. It lets go of the value as soon as the last piece is
 * out (or the stream is destroyed): Koa keeps the body as long as the request's context lives,
 * which an idle keep-alive connection stretches by seconds.
 */
class JsonText extends Readable {
  private parts: Generator<string, void, undefined> | null;

  constructor(value: unknown) {
    super({ highWaterMark: PIECE_CHARS });
    this.parts = pieces(value);
  }

  override _read(): void {
    const next = this.parts?.next();
    if (!next || next.done) {
      this.parts = null;
      this.push(null);
    } else {
      this.push(next.value, "utf8");
    }
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.parts?.return();
    this.parts = null;
    done(error);
  }
}

function* pieces(value: unknown): Generator<string, void, undefined> {
  let piece = "";
  for (const part of jsonParts(value, 0)) {
    piece += part;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = "";
    }
  }
  if (piece) yield piece;
}

/** Members JSON.stringify leaves out of an object (and writes as null in an array). */
const unwritten = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

function* jsonParts(value: unknown, depth: number): Generator<string, void, undefined> {
  if (typeof value === "string" && value.length > PIECE_CHARS) {
    yield* longString(value);
    return;
  }
  const whole =
    depth >= OPENED_DEPTH &&
    !(Array.isArray(value) && value.some((member) => typeof member === "string" && member.length > PIECE_CHARS));
  if (
    whole ||
    value === null ||
    typeof value !== "object" ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      const member: unknown = value[i];
      if (unwritten(member)) yield "null";
      else yield* jsonParts(member, depth + 1);
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (unwritten(member)) continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonParts(member, depth + 1);
  }
  yield "}";
}

/**
 * A long string (a value of many megabytes) written a piece at a time, as JSON.stringify writes
 * it whole: each piece escaped on its own, never split between the two halves of a surrogate pair
 * (which JSON.stringify would write as an escaped lone surrogate).
 */
function* longString(text: string): Generator<string, void, undefined> {
  yield '"';
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PIECE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(text.slice(start, end)).slice(1, -1);
    start = end;
  }
  yield '"';
}
