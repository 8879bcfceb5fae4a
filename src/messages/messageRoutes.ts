import Router from "@koa/router";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { z } from "zod";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import { maskIdCard } from "../../commands/patients/events.ts";
import { isCalendarDate } from "../../db/localDateTime.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { messageById, searchMessages, type MessageKey } from "../../queries/messages/messageSearch.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { cursorOf, keyOfCursor, pageLimit } from "../http/paging.ts";
import { principalOf } from "../http/requestState.ts";
import { messageFacts } from "./messageFacts.ts";
import { patientKey } from "./messageRecorder.ts";
import { MESSAGE_CHANNELS, MESSAGE_OUTCOMES, type MessageChannel } from "./receivedMessage.ts";

const unzipped = promisify(gunzip);

const dayProblem = (name: string) => `${name} must be a real calendar day written yyyy-MM-dd, e.g. 2026-03-01`;
const day = (name: string) =>
  z
    .string({ error: dayProblem(name) })
    .refine(isCalendarDate, { error: dayProblem(name) })
    .optional();
const once = (name: string, max = 200) =>
  z
    .string({ error: `${name} is sent once` })
    .min(1, `${name} is not empty when sent; leave it out for any`)
    .max(max, `${name} is at most ${max} characters`)
    .optional();

/** `GET /api/messages` (contract G.5): every filter optional, local dates inclusive. */
export const messageSearchQuery = z.strictObject(
  {
    channel: z.enum(MESSAGE_CHANNELS, { error: `channel is one of ${MESSAGE_CHANNELS.join(", ")}` }).optional(),
    client: once("client").meta({ description: "A client's id or name" }),
    outcome: z.enum(MESSAGE_OUTCOMES, { error: `outcome is one of ${MESSAGE_OUTCOMES.join(", ")}` }).optional(),
    externalId: once("externalId", 128).meta({ description: "Messages that carried a report of this externalId" }),
    patientId: once("patientId", 64).meta({
      description: "A national id or HIS id: messages that carried it (searched by its keyed hash, never stored plain)",
    }),
    from: day("from").meta({ description: "First local day received, yyyy-MM-dd, inclusive" }),
    to: day("to").meta({ description: "Last local day received, yyyy-MM-dd, inclusive" }),
    limit: pageLimit(50, 500),
    cursor: z
      .string({ error: "cursor is sent once" })
      .max(200, "cursor is too long: send back the next of the page before")
      .optional()
      .meta({ description: "The next of the page before; opaque. Left out: the newest" }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `The query parameters are channel, client, outcome, externalId, patientId, from, to, limit and cursor`
        : undefined,
  },
);

const messageKey = z.object({ receivedAt: z.iso.datetime(), messageId: z.uuid() });

const messageError = z.object({
  externalId: z.string().nullable().optional(),
  field: z.string(),
  message: z.string(),
});

/** A kept message as the search answers it (contract G.5). */
export const keptMessage = z.object({
  messageId: z.uuid(),
  receivedAt: z.iso.datetime().meta({ description: "When it arrived (UTC, ISO 8601)" }),
  channel: z.enum(MESSAGE_CHANNELS),
  client: z.object({ clientId: z.string(), name: z.string() }),
  bytes: z.int().meta({ description: "The body's length as received" }),
  outcome: z.enum(MESSAGE_OUTCOMES).meta({
    description: "accepted: every report stored; partial: some stored, some refused; refused: nothing stored",
  }),
  externalIds: z.array(z.string()).meta({ description: "Every report's externalId, refused ones' too" }),
  errors: z.array(messageError),
  answer: z.unknown().meta({ description: "What the sender was told: the envelope, the ACK text, or the FHIR answer" }),
  truncated: z.boolean().meta({ description: "true: the body was over 1 MiB and only its first 1 MiB is kept" }),
});

export const messagePage = z.object({
  messages: z.array(keptMessage),
  next: z.string().nullable().meta({ description: "The cursor of the following page, or null when this is the last" }),
});

export const messageDetail = keptMessage.extend({
  body: z.string().nullable().meta({
    description: "The body as received (id cards masked unless the caller is admin; MSH-8 blanked); null once dropped",
  }),
});

/** The start of the day after `date` (yyyy-MM-dd), local time. */
function localDay(date: string, plusDays = 0): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays);
}

/** 18-character national ids whose check character is right: masked wherever they stand in a text. */
const ID_CARD_IN_TEXT = /(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])/g;

/** A text with each id card the message carried (and any other valid-looking one) shown as first 6 and last 4. */
function masked(text: string, idCards: readonly string[]): string {
  let out = text;
  for (const idCard of [...idCards].sort((a, b) => b.length - a.length))
    if (idCard.length > 4) out = out.split(idCard).join(maskIdCard(idCard));
  return out.replace(ID_CARD_IN_TEXT, (found) => maskIdCard(found));
}

export function messageRoutes(db: Db, adminToken: string | undefined, identifiers: IdentifierHasher): Router {
  const router = new Router();
  router.use("/api/messages", requireRole(adminToken, "integrator"));

  router.get("/api/messages", async (ctx) => {
    const parsed = messageSearchQuery.safeParse(ctx.query);
    if (!parsed.success) throw new HttpError(400, `${parsed.error.issues[0]!.message}.`);
    const query = parsed.data;
    if (query.from && query.to && query.from > query.to)
      throw new HttpError(400, "from is a day before or equal to to.");
    const after =
      query.cursor === undefined
        ? null
        : keyOfCursor<MessageKey>(query.cursor, messageKey, "the next of the page before");
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) =>
      searchMessages(
        reader,
        {
          channel: query.channel,
          client: query.client,
          outcome: query.outcome,
          externalId: query.externalId,
          patientKey: query.patientId === undefined ? undefined : patientKey(identifiers, query.patientId),
          from: query.from === undefined ? undefined : localDay(query.from),
          before: query.to === undefined ? undefined : localDay(query.to, 1),
        },
        after,
        query.limit,
      ),
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    ctx.body = {
      messages: page.map((row) => ({ ...row, receivedAt: row.receivedAt.toISOString() })),
      next:
        rows.length > query.limit && last
          ? cursorOf({ receivedAt: last.receivedAt.toISOString(), messageId: last.messageId })
          : null,
    };
  });

  router.get("/api/messages/:messageId", async (ctx) => {
    const messageId = ctx.params.messageId!;
    const found = z.uuid().safeParse(messageId).success
      ? await readAsTenant(db, ctx.state.tenant, (reader) => messageById(reader, messageId))
      : null;
    if (!found)
      throw new HttpError(404, `There is no message ${messageId} of this tenant; find one by GET /api/messages.`);
    const { body: zipped, ...message } = found;
    const body = zipped ? (await unzipped(zipped)).toString("utf8") : null;
    const answer = { ...message, receivedAt: message.receivedAt.toISOString(), body };
    if (principalOf(ctx).roles.includes("admin")) {
      ctx.body = answer;
      return;
    }
    // Contract G.5: id cards shown to anyone but an admin keep their first 6 and last 4 only.
    const idCards = body ? messageFacts(message.channel as MessageChannel, body, null).idCards : [];
    ctx.body = JSON.parse(masked(JSON.stringify(answer), idCards)) as z.input<typeof messageDetail>;
  });
  return router;
}
