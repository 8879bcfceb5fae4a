import type { Context, Middleware } from "koa";
import { Readable } from "node:stream";
import type { Logger } from "pino";
import { z } from "zod";
import { interfaceErrors } from "../../http/failureOf.ts";

/** Every /open/v1 answer (contract B.1), `data` described by the call; the HTTP status equals `code`. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.int().meta({ description: "Equals the HTTP status", example: 200 }),
    msg: z
      .string()
      .meta({ description: "ok, or one sentence that tells the sender how to fix the call", example: "ok" }),
    data,
    timestamp: z.int().meta({ description: "Epoch milliseconds", example: 1772325000000 }),
  });
}

/** Every /open/v1 answer: `{ code, msg, data, timestamp }`, with the HTTP status equal to `code`. */
export function answer(ctx: Context, data: unknown, code = 200, msg = "ok"): void {
  ctx.status = code;
  ctx.body = { code, msg, data, timestamp: Date.now() };
}

/** The pages of a list inside an answer's `data`, then the members that follow it, known once the last page is read. */
export interface StreamedList<Tail extends object> {
  /** The next page of the list, or null after the last. */
  next(): Promise<unknown[] | null>;
  totals(): Promise<Tail>;
}

/**
 * Answers the envelope of a success whose `data` holds a list larger than a page (contract E.6):
 * `data` is `head`'s members, then `name` with the list written a page at a time as the reader
 * takes it, then the tail's members. Only a page is held at once; the next is read when the
 * socket has taken the one before, so a slow reader holds back the reading, not the memory. The
 * first page is read before anything is sent, so a fault there is answered as any other; a fault
 * after that cuts the response, which the reader then cannot parse as whole.
 */
export async function answerStreamed<Tail extends object>(
  ctx: Context,
  head: Record<string, unknown>,
  name: string,
  list: StreamedList<Tail>,
): Promise<void> {
  const first = await list.next();
  async function* text(): AsyncGenerator<string> {
    const opening = JSON.stringify({ code: 200, msg: "ok", data: { ...head, [name]: [] } });
    // The opening up to the list's "[" (the empty list and the two closing braces are left off).
    yield opening.slice(0, -"]}}".length);
    let written = 0;
    for (let page = first; page !== null; page = await list.next()) {
      if (page.length === 0) continue;
      yield `${written === 0 ? "" : ","}${page.map((item) => JSON.stringify(item)).join(",")}`;
      written += page.length;
    }
    const tail = JSON.stringify(await list.totals());
    yield `]${tail === "{}" ? "" : `,${tail.slice(1, -1)}`}},"timestamp":${Date.now()}}`;
  }
  ctx.status = 200;
  ctx.type = "application/json";
  ctx.body = Readable.from(text(), { objectMode: false });
}

const SENTENCES = {
  unavailable: "The service cannot reach its database right now; push again in a few seconds, nothing was lost.",
  fault: "The service failed to handle this call; push again, and report the X-Request-Id if it persists.",
};

/** The one place /open/v1 failures are shaped. Faults of ours are logged whole and answered generically. */
export function openApiErrors(log: Logger): Middleware {
  return interfaceErrors(log, SENTENCES, {
    write: (ctx, status, message) => answer(ctx, null, status, message),
    unmatched: (ctx) =>
      answer(
        ctx,
        null,
        404,
        `There is no ${ctx.method} ${ctx.path}; the calls are listed at /md/integration-guide.md.`,
      ),
  });
}
