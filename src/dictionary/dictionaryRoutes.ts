import Router from "@koa/router";
import { z } from "zod";
import { isCalendarDate, localDate, localDaySpan } from "../../db/localDateTime.ts";
import {
  addItemMapping,
  mappingInput,
  mappingKeysInput,
  mappingKeysOf,
  removeItemMapping,
  unmappingInput,
} from "../../commands/dictionary/itemMappings.ts";
import type { ItemMapper } from "../../commands/ingestion/itemMapping.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant, type TenantReader } from "../../db/tenantScope.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { waitForProjection } from "../../projections/runtime/waitForProjection.ts";
import {
  clientNamed,
  itemMappingById,
  itemMappingKey,
  listItemMappings,
  mappingPreview,
  unitsSent,
} from "../../queries/dictionary/itemMappings.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { listTurn } from "../http/listTurns.ts";
import { commandContextOf } from "../http/requestState.ts";
import type { DictionaryAnswer, ServedDictionary } from "../../queries/dictionary/dictionary.ts";
import { unmappedItemKey, unmappedItems } from "../../queries/dictionary/unmappedItems.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";

const DAY_PROBLEM = "must be a day written yyyy-MM-dd, e.g. 2026-03-01";
/** Days listed when `from` is left out: a quarter holds three monthly panels of every patient. */
const DEFAULT_DAYS = 90;
const MAX_DAYS = 366;
/** How long DELETE /api/dictionary/mappings/{id} waits for the item rows to be unmapped before it answers anyway. */
const UNDO_WAIT_MS = 10_000;

/** `GET /api/dictionary/unmapped` (contract F.1): which days of receipt. */
export const unmappedQuery = z.strictObject(
  {
    from: z
      .string({ error: `from ${DAY_PROBLEM}` })
      .refine(isCalendarDate, `from ${DAY_PROBLEM}`)
      .optional()
      .meta({
        description: `First day of receipt (yyyy-MM-dd, local); ${DEFAULT_DAYS - 1} days before \`to\` when left out`,
        example: "2026-01-01",
      }),
    to: z
      .string({ error: `to ${DAY_PROBLEM}` })
      .refine(isCalendarDate, `to ${DAY_PROBLEM}`)
      .optional()
      .meta({
        description: "Last day of receipt (yyyy-MM-dd, local), included; today when left out",
        example: "2026-03-31",
      }),
    ...pageQuery,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The query parameters are from and to, days of receipt written yyyy-MM-dd, limit and cursor"
        : undefined,
  },
);

/** `GET /api/dictionary/mappings?limit=&cursor=`: newest first, a page at a time (contract E.6); other parameters are left alone, as before. */
export const mappingListQuery = z.object(pageQuery);

/** The instants of receipt a from/to pair of days spans: [from's midnight, the midnight after to). */
function receiptWindow(from: string | undefined, to: string | undefined): { since: Date; until: Date } {
  const toDay = to ?? localDate(new Date());
  const last = localDaySpan(toDay);
  if (!last) throw new HttpError(400, `to ${DAY_PROBLEM}`, {}, "unmapped-range-invalid");
  const earliest = new Date(last.start);
  earliest.setDate(earliest.getDate() - (DEFAULT_DAYS - 1));
  const fromDay = from ?? localDate(earliest);
  if (fromDay > toDay)
    throw new HttpError(
      400,
      `from (${fromDay}) is after to (${toDay}); send from on or before to.`,
      {},
      "unmapped-range-invalid",
    );
  const first = localDaySpan(fromDay);
  if (!first) throw new HttpError(400, `from ${DAY_PROBLEM}`, {}, "unmapped-range-invalid");
  if (last.end.getTime() - first.start.getTime() > (MAX_DAYS + 1) * 86_400_000)
    throw new HttpError(400, `Ask for at most ${MAX_DAYS} days at a time.`, {}, "unmapped-range-invalid");
  return { since: first.start, until: last.end };
}

/**
 * `GET /api/dictionary/lab-items`: the dictionary the service maps with, as senders see it on
 * `/open/v1/dict/lab-items` (contract B.4), for the staff pages: the report editor completes item
 * codes from it with their labels and names (issue #34, item 5). Not in the contract; any role may
 * ask, as it holds nothing of a tenant.
 *
 * `GET /api/dictionary/unmapped` (contract F.1): the sent items no dictionary entry matched.
 */
export interface DictionaryRouteDeps {
  served: ServedDictionary;
  mapper: ItemMapper;
  store: EventStore;
  adminToken: string | undefined;
}

export function dictionaryRoutes({ served, mapper, store, adminToken }: DictionaryRouteDeps): Router {
  const router = new Router();
  const db = store.db;
  router.get("/api/dictionary/lab-items", requireRole(adminToken, "viewer"), (ctx) => {
    const etag = `"${served.version}"`;
    ctx.set("ETag", etag);
    ctx.set("Cache-Control", "no-cache");
    if (
      ctx
        .get("if-none-match")
        .split(/\s*,\s*/)
        .includes(etag)
    ) {
      ctx.status = 304;
      return;
    }
    ctx.body = { version: served.version, items: served.items, examTypes: served.examTypes } satisfies DictionaryAnswer;
  });
  router.get("/api/dictionary/unmapped", requireRole(adminToken, "clinician"), listTurn, async (ctx) => {
    const query = parseBody(unmappedQuery, ctx.query);
    const { since, until } = receiptWindow(query.from, query.to);
    const page = pageOf(query, unmappedItemKey);
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) =>
      unmappedItems(reader, since, until, rowsFor(page)),
    );
    ctx.body = answerPage(ctx, page, rows, (item) => item.key).map(({ key: _, ...item }) => item);
  });

  router.get("/api/dictionary/mappings", requireRole(adminToken, "clinician"), listTurn, async (ctx) => {
    const page = pageOf(parseBody(mappingListQuery, ctx.query), itemMappingKey);
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) => listItemMappings(reader, rowsFor(page)));
    ctx.body = answerPage(ctx, page, rows, (mapping) => mapping.key).map(({ key: _, ...mapping }) => mapping);
  });

  // A mapping's checks and preview read every ward's results and senders: it maps them all.
  const everyWard = <T>(tenant: string, work: (reader: TenantReader) => Promise<T>) =>
    withWardScope(null, () => readAsTenant(db, tenant, work));

  router.post("/api/dictionary/mappings", requireRole(adminToken, "author"), async (ctx) => {
    const input = parseBody(mappingInput, ctx.request.body);
    const tenant: string = ctx.state.tenant;
    const { mappingId, appended } = await addItemMapping(commandContextOf(ctx, store), tenant, input, {
      mapper,
      clientExists: (name) => everyWard(tenant, (reader) => clientNamed(reader, name)),
      resultsSeen: (keys) => everyWard(tenant, (reader) => unitsSent(reader, tenant, keys)),
    });
    // Pushes read the mappings in force from the read model: the next push maps with this one.
    await waitForProjection(db, "item_mappings", appended.last);
    ctx.status = 201;
    ctx.body = { mappingId };
  });

  // What a mapping of these keys would re-map now, before it is made (the staff page's preview).
  router.post("/api/dictionary/mappings/preview", requireRole(adminToken, "author"), async (ctx) => {
    const keys = mappingKeysOf(parseBody(mappingKeysInput, ctx.request.body));
    const tenant: string = ctx.state.tenant;
    ctx.body = await everyWard(tenant, (reader) => mappingPreview(reader, tenant, keys));
  });

  router.delete("/api/dictionary/mappings/:mappingId", requireRole(adminToken, "author"), async (ctx) => {
    // A DELETE usually has no body; one with a reason is welcome.
    const { reason } = parseBody(unmappingInput, ctx.request.body ?? {});
    const tenant: string = ctx.state.tenant;
    const mappingId = ctx.params.mappingId!;
    const mapping = await readAsTenant(db, tenant, (reader) => itemMappingById(reader, mappingId));
    if (!mapping)
      throw new HttpError(
        404,
        `No mapping ${mappingId}; GET /api/dictionary/mappings lists them.`,
        {},
        "mapping-not-found",
      );
    const appended = await removeItemMapping(
      commandContextOf(ctx, store),
      tenant,
      mapping.streamId,
      mappingId,
      reason || null,
    );
    if (appended) {
      await waitForProjection(db, "item_mappings", appended.last);
      // The item rows unmap in one step: the answer waits for it (a while at most), so the next
      // read of the unmapped list, the chart or report SQL shows the results unmapped.
      await waitForProjection(db, "lab_results", appended.last, UNDO_WAIT_MS);
    }
    ctx.status = 204;
  });
  return router;
}
