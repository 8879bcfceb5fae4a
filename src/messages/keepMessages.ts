import { randomUUID } from "node:crypto";
import type { Context, Middleware } from "koa";
import { outcomeOfReports, type MessageChannel, type MessageKeeper, type MessageOutcome } from "./receivedMessage.ts";

/** The calls that receive messages over HTTP (contract G.5), by the path under which they are mounted. */
function channelOf(ctx: Context): MessageChannel | null {
  if (ctx.method !== "POST") return null;
  switch (ctx.path.replace(/\/$/, "")) {
    case "/open/v1/lab/reports":
    case "/open/v1/exam/reports":
      return "open-v1";
    case "/open/v1/hl7":
      return "hl7-http";
    case "/fhir/r4":
      return "fhir";
    default:
      return null;
  }
}

/**
 * Hands each message received over HTTP to the message store with the answer its sender got. It
 * sits outside the interface's error middleware, so that a push refused whole (400, 413, 415) is
 * kept with the envelope or OperationOutcome that refused it; the answer goes out once the message
 * is queued, which is at once unless the queue is full. A call without a valid client key is not
 * a client's message and is not kept (it has no tenant to be kept under); neither is a call
 * refused for its rate (429), whose body was never read.
 */
export function keepMessages(keeper: MessageKeeper): Middleware {
  return async (ctx, next) => {
    const channel = channelOf(ctx);
    if (!channel) return next();
    const receivedAt = new Date();
    await next();
    const principal = ctx.state.principal;
    if (principal?.credential !== "client-key" || ctx.status === 429) return;
    const body = ctx.request.rawBody ?? Buffer.alloc(0);
    const declared = Number(ctx.get("content-length"));
    await keeper.keep({
      messageId: randomUUID(),
      tenant: principal.client.tenant,
      receivedAt,
      channel,
      clientId: principal.client.clientId,
      clientName: principal.client.name,
      body,
      bytes: Math.max(body.length, Number.isFinite(declared) ? declared : 0),
      outcome: outcomeOf(ctx, channel),
      answer: ctx.body,
    });
  };
}

function outcomeOf(ctx: Context, channel: MessageChannel): MessageOutcome {
  if (ctx.status >= 300) return "refused";
  const tally = ctx.state.push;
  const codes = channel === "hl7-http" ? (tally?.hl7Acks ?? []) : (tally?.outcomes ?? []);
  const refused = codes.filter((code) => (channel === "hl7-http" ? code !== "AA" : code === "REJECTED")).length;
  return outcomeOfReports(codes.length - refused, refused);
}
