import { commandContextOf } from "../http/requestState.ts";
import Router from "@koa/router";
import { z } from "zod";
import { claimReport, dismissReport } from "../../commands/ingestion/manageQueue.ts";
import { claimInput, dismissInput } from "../../commands/ingestion/queueDecisions.ts";
import { reportKinds } from "../../commands/ingestion/reportKinds.ts";
import { reportEtagVersion } from "../../commands/ingestion/events.ts";
import type { Context } from "koa";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import {
  unmatchedKey,
  unmatchedQueue,
  unmatchedQueueState,
  withEtags,
  type QueueFilter,
} from "../../queries/ingestion/unmatched.ts";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import { normaliseIdCard } from "../../commands/patients/events.ts";
import { idCardSearchDigest } from "../secrets/idCardSearchKey.ts";
import { claimCheck } from "../../queries/ingestion/claimCheck.ts";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { requireRole } from "../http/authorAuth.ts";
import { listTurn } from "../http/listTurns.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";

/**
 * `GET /api/unmatched?limit=&cursor=&order=&kind=&q=`: the queue, a page at a time (contract E.6),
 * oldest or newest first, of one kind or both, searched (issue #54).
 */
export const unmatchedListQuery = z.strictObject(
  {
    ...pageQuery,
    order: z
      .enum(["oldest", "newest"], { error: "order is oldest (the default) or newest" })
      .default("oldest")
      .meta({ description: "oldest first (the default, as before) or newest first, as the staff page shows it" }),
    kind: z
      .enum(["lab", "exam"], { error: "kind is lab or exam, or left out for both" })
      .optional()
      .meta({ description: "Only laboratory (lab) or examination (exam) reports; left out: both" }),
    q: z
      .string({ error: "q is a search text, sent once" })
      .max(100, "q has at most 100 characters")
      .optional()
      .meta({
        description:
          "Reports whose patient name (spaces aside), externalId, report number or masked id card contains it; a " +
          "whole id card number (15 or 18 characters) finds the reports sent with that number, " +
          "compared by a keyed hash",
        example: "李四",
      }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The query parameters are limit, cursor, order (oldest or newest), kind (lab or exam) and q (a search text)"
        : undefined,
  },
);

/** A whole id card number as a person types it (GB 11643: 18 characters, or the 15 of the first generation). */
const WHOLE_ID_CARD = /^(\d{17}[\dX]|\d{15})$/;

/** What the search text asks: a whole id card only by its keyed hash (never sent to the database), any other text as it is. */
function queueFilter(query: z.infer<typeof unmatchedListQuery>, hasher: IdentifierHasher): QueueFilter {
  const text = query.q?.trim() ?? "";
  const idCard = normaliseIdCard(text);
  const whole = WHOLE_ID_CARD.test(idCard);
  return {
    newestFirst: query.order === "newest",
    kind: query.kind ?? null,
    text: whole || text === "" ? null : text,
    idCardDigest: whole ? idCardSearchDigest(hasher, idCard) : null,
  };
}

/** `GET /api/unmatched/{kind}/{externalId}/check?patientRef=`: the patient a person is about to claim the report for. */
export const claimCheckQuery = z.strictObject(
  {
    patientRef: z
      .string({ error: "patientRef is the patient the report would be claimed for, sent once" })
      .regex(
        PATIENT_REF_PATTERN,
        "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
      )
      .meta({ description: "The patient the report would be claimed for", example: "P001" }),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? "The query parameter is patientRef" : undefined) },
);

/**
 * The version of the report a claim or dismissal is based on: `If-Match` with the entry's `etag`
 * (issue #51 finding 6), or none (undefined) for a call that compares nothing, as before.
 */
function basedOn(ctx: Context): number | undefined {
  const ifMatch = ctx.get("if-match").trim();
  if (ifMatch === "") return undefined;
  const version = reportEtagVersion(ifMatch);
  if (version === null) {
    throw new HttpError(
      400,
      "If-Match takes the etag of the report as GET /api/unmatched (each entry's etag) or GET " +
        '/api/history/{kind}/{externalId} gives it, e.g. "report-2"; or leave it out.',
    );
  }
  return version;
}

const noQuery = z.strictObject({}, { error: () => "This call takes no query parameters" });

const queuedReport = { kind: z.enum(["lab", "exam"]), externalId: z.string() };
export const claimedAnswer = z.object({ ...queuedReport, matched: z.literal(true), patientRef: z.string() });
export const dismissedAnswer = z.object({ ...queuedReport, dismissed: z.literal(true), reason: z.string() });

/** The queue of reports whose patient could not be matched: list, claim, dismiss (contract C.4). */
export function unmatchedRoutes(
  store: EventStore,
  adminToken: string | undefined,
  access: AccessRecording,
  hasher: IdentifierHasher,
): Router {
  const router = new Router({ prefix: "/api/unmatched" });
  router.use(requireRole(adminToken, "clinician"));

  router.get("/", access.recorded, listTurn, async (ctx) => {
    const query = parseBody(unmatchedListQuery, ctx.query);
    const page = pageOf(query, unmatchedKey);
    const filter = queueFilter(query, hasher);
    const read = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      unmatchedQueue(reader, rowsFor(page), filter),
    );
    const rows = await withEtags(store.db, ctx.state.tenant, read);
    const entries = answerPage(ctx, page, rows, (row) => row.key).map((row) => {
      const { key, ...entry } = row;
      void key;
      return entry;
    });
    // These people are no patients yet: the record names the reports shown (and with them, the names and masked id cards).
    if (entries.length > 0) showing(ctx, { reports: entries });
    ctx.body = entries;
  });

  // Whether the queue changed, for an open page to read it again only then (issue #54): it names no patient, so it is not in the access log.
  router.get("/summary", async (ctx) => {
    parseBody(noQuery, ctx.query);
    ctx.set("Cache-Control", "no-store");
    ctx.body = await readAsTenant(store.db, ctx.state.tenant, (reader) => unmatchedQueueState(reader));
  });

  const kindOf = (name: string) => {
    if (name !== "lab" && name !== "exam")
      throw new HttpError(404, "The kind of report is 'lab' or 'exam': /api/unmatched/{lab|exam}/{externalId}/….");
    return reportKinds[name];
  };

  // Before claiming: the report's patient beside the chosen one (issue #34 item 2), the staff pages ask to confirm when they differ.
  router.get("/:kind/:externalId/check", access.recorded, async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const { patientRef } = parseBody(claimCheckQuery, ctx.query);
    const externalId = ctx.params.externalId!;
    // It shows the patient (found or not: an attempt on a patient is part of its log), and the
    // report once found: an id the caller typed that names no report of the tenant is theirs, not the tenant's.
    showing(ctx, { patientRefs: [patientRef] });
    const check = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      claimCheck(reader, kind.name, externalId, patientRef),
    );
    if (!check)
      throw new HttpError(
        404,
        `No report ${externalId} awaits claiming, or there is no patient ${patientRef}; GET /api/unmatched and GET /api/patients list them.`,
        {},
        "claim-not-found",
      );
    showing(ctx, { reports: [{ kind: kind.name, externalId }] });
    ctx.body = check;
  });

  router.post("/:kind/:externalId/claim", async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const { patientRef } = parseBody(claimInput, ctx.request.body);
    await claimReport(
      commandContextOf(ctx, store),
      store.db,
      ctx.state.tenant,
      kind,
      ctx.params.externalId!,
      patientRef,
      basedOn(ctx),
    );
    ctx.body = { kind: kind.name, externalId: ctx.params.externalId!, matched: true, patientRef } satisfies z.infer<
      typeof claimedAnswer
    >;
  });

  router.post("/:kind/:externalId/dismiss", async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const { reason } = parseBody(dismissInput, ctx.request.body);
    await dismissReport(
      commandContextOf(ctx, store),
      store.db,
      ctx.state.tenant,
      kind,
      ctx.params.externalId!,
      reason,
      basedOn(ctx),
    );
    ctx.body = { kind: kind.name, externalId: ctx.params.externalId!, dismissed: true, reason } satisfies z.infer<
      typeof dismissedAnswer
    >;
  });
  return router;
}
