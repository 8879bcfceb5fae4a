import { PassThrough } from "node:stream";
import Router from "@koa/router";
import {
  exportEnabled,
  type HighlightRuleDef,
  type ShownNodeDef as NodeDef,
  type ShownParamDef as ParamDef,
} from "../../../commands/reports/spec/specSchema.ts";
import { localizeSpec, shownTitle } from "../../../commands/reports/spec/localizedText.ts";
import type { TemplateDef } from "../../../commands/reports/spec/sqlTemplate.ts";
import { EXPORT_ROW_LIMIT, EXPORT_TIMEOUT_FACTOR, streamQueryRows } from "../../../queries/reports/exportRows.ts";
import { PAGE_ROW_LIMIT } from "../../../queries/reports/queryResult.ts";
import type { ReportScope } from "../../../queries/reports/dataSources.ts";
import { currentWards } from "../../../db/wardScope.ts";
import { preparedQuery, type ReportRuntime } from "../../../queries/reports/runSpecQueries.ts";
import { exportsBusySentence, retryAfterSeconds, tenantBusySentence } from "../../../queries/reports/tenantGate.ts";
import { drillLayer, paramValues } from "../../../queries/reports/viewedLayer.ts";
import { shownLayer, versionToView } from "../../../queries/reports/viewing.ts";
import { localDate, localDateTime } from "../../../db/localDateTime.ts";
import { rulesOfColumn } from "../charts/highlight.ts";
import { XLSX_CONTENT_TYPE } from "../export/contentTypes.ts";
import type { SheetEvent, XlsxAbout, XlsxSheet } from "../export/xlsxExport.ts";
import { attachment, exportFileName } from "../../http/attachment.ts";
import { HttpError } from "../../http/httpError.ts";
import { viewingCaller } from "../../http/authorAuth.ts";
import type { ReportRoutesDeps } from "./reportRoutes.ts";
import type { ExportLimits } from "./exportsPerAddress.ts";
import {
  exportLangOf,
  readFor,
  refuseBeyondResearch,
  reportBody,
  reportIdOf,
  viewingRefusals,
} from "./reportRequests.ts";
import { exportWords, type ExportWords } from "../export/exportWords.ts";
import type { ExportEvent } from "../../../queries/reports/exportRows.ts";
import { notePatientsOfRows, shownBy, type ShownSubjects } from "../../access/shownSubjects.ts";
import { patientIdentifiers, type PatientIdentifiers } from "../../../queries/patients/patientIdentifiers.ts";
import { watchCaller } from "../../credentials/credentialWatch.ts";

/** The report routes' dependencies (the export reads with `db` and runs queries with `runtime`), and the count of exports per address. */
export type XlsxExportRouteDeps = ReportRoutesDeps & ExportLimits;

/**
 * `POST /api/reports/:id/export/xlsx {version, params, drill?, args?}` (contract A.3): the layer's
 * queries, one sheet each after an "About" sheet, streamed into the response as they are read.
 */
export function xlsxExportRoute(deps: XlsxExportRouteDeps): Router {
  const router = new Router({ prefix: "/api/reports" });
  router.use(viewingRefusals);

  // The credential the export is made with, if any (viewingCaller), is watched while the file is written.
  router.post(
    "/:id/export/xlsx",
    viewingCaller(deps.adminToken, deps.viewingAuth),
    deps.exportsPerAddress,
    deps.access.recorded,
    async (ctx) => {
      // exceljs is loaded on the first export, not at start (it is some 30 MB of the process).
      const { excelNumberFormat, frozenSheetEvents, liveSheetEvents, writeXlsx } =
        await import("../export/xlsxExport.ts");
      const reportId = reportIdOf(ctx);
      const body = reportBody(ctx);
      const lang = exportLangOf(body);
      const words = exportWords(lang);
      const version = await versionToView(deps.db, ctx.state.tenant, reportId, body.version);
      refuseBeyondResearch(ctx, version);
      if (!exportEnabled(version.spec, "xlsx"))
        throw new HttpError(400, "The xlsx export is switched off for this report.");
      const drilling = body.drill !== undefined && body.drill !== null;
      if (!drilling && body.args !== undefined && body.args !== null) {
        throw new HttpError(
          400,
          "args belong to a drill-through: send drill with the name of the target as well, or leave args out.",
        );
      }
      const params = paramValues(version, body.params);
      const layer = shownLayer(
        version,
        params,
        drilling ? drillLayer(version, body.drill, body.args, params, lang) : null,
        lang,
      );
      const drill = layer.drill;
      // The report's own words in the file's language (issue #54).
      const spec = localizeSpec(version.spec, lang);
      const tenant: string = ctx.state.tenant;
      // The caller's wards, taken now: the sheets are read after this handler has returned (contract G.1).
      const scope: ReportScope = { tenant, wards: currentWards() };
      const now = new Date();

      const about: XlsxAbout = {
        report: shownTitle(version.title, version.spec, lang),
        version: version.version,
        mode: drill && version.mode === "snapshot" ? words.modes.snapshotDrill : words.modes[version.mode],
        // Both times written one way, as the rows write date-times (issue #54 read two ways in one sheet).
        publishedAt: version.publishedAt.replace("T", " "),
        exportedAt: localDateTime(now),
        datasource: version.datasource,
        filters: (spec.params ?? []).map((param) => ({
          label: param.label || param.name,
          value: shownValue(param, layer.params[param.name], words),
        })),
        ...(drill
          ? {
              drill: {
                title: layer.title,
                args: drill.drill.args.map((arg) => ({
                  name: arg.name,
                  value: shownValue(null, layer.values[arg.name], words),
                })),
              },
            }
          : {}),
        lang,
      };
      const timeoutMs = deps.runtime.timeoutMs * EXPORT_TIMEOUT_FACTOR;
      const nodes = drill ? (spec.drills?.[drill.key]?.nodes ?? []) : spec.nodes;
      const formats = columnFormats(nodes, excelNumberFormat);
      const highlights = columnHighlights(nodes);
      const frozen = layer.frozen;
      const stop = new AbortController();
      // The file is written as its rows are read: the patients it shows are gathered on the way, and recorded when the response ends.
      const shown = shownBy(ctx);
      const identifiers = await readFor(deps.db, ctx, patientIdentifiers);
      const sheets: XlsxSheet[] = inReadingOrder(layer.queries, nodes).map(([name, query]) => ({
        query: name,
        events: patientsOnTheWay(
          frozen
            ? frozenSheetEvents(frozen[name], PAGE_ROW_LIMIT, words)
            : liveEvents(
                deps.runtime,
                version.datasource,
                scope,
                query.sql ?? "",
                layer.defs,
                layer.values,
                { timeoutMs, signal: stop.signal },
                (events, limit) => liveSheetEvents(events, limit, words),
                words,
              ),
          shown,
          identifiers,
        ),
        numberFormats: formats.get(name),
        highlights: highlights.get(name),
      }));

      // The sheets are read one after another, so a live export is one query of its tenant at a time
      // for its whole length (E.5): it waits its turn like any query, and one that cannot start says so.
      // Its turn is a streaming answer's, of which there are fewer (tenantGate.ts): a reader that does
      // not read holds it until the response is cut (RESPONSE_STALL_MS).
      const gate = deps.runtime.gate;
      const leave = frozen ? () => {} : await gate.enter(tenant, undefined, "stream");
      if (!leave) {
        if (gate.streamsFull(tenant))
          throw new HttpError(
            503,
            exportsBusySentence(gate),
            { "Retry-After": retryAfterSeconds(gate) },
            "exports-busy",
          );
        throw new HttpError(503, tenantBusySentence(gate), { "Retry-After": retryAfterSeconds(gate) });
      }
      const out = new PassThrough();
      let complete = false;
      // Koa destroys the body when the response ends early (the client went away): stop reading.
      out.once("close", () => {
        if (!complete) stop.abort();
      });
      ctx.status = 200;
      ctx.type = XLSX_CONTENT_TYPE;
      ctx.set("Content-Disposition", attachment(exportFileName(layer.title, version.version, localDate(now), "xlsx")));
      ctx.set("Cache-Control", "no-store");
      ctx.body = out;
      // A reader that stops reading (or reads a few bytes a minute) would keep the export's turn, its
      // report connection and its transaction for as long as it likes: the whole export has
      // REPORT_EXPORT_MAX_MS, then it is stopped and the response cut.
      const deadline = setTimeout(() => stop.abort(), deps.runtime.exportMaxMs);
      // Its credential ended (revoked, expired, signed out): the rest of the file is not the caller's to read.
      // Watched until the response is gone, its last buffered bytes included.
      const unwatch = watchCaller(ctx, () => {
        stop.abort();
        out.destroy(new Error("the export's credential ended"));
        ctx.res.destroy();
      });
      ctx.res.once("close", unwatch);
      writeXlsx(out, about, sheets, stop.signal)
        .then(
          () => (complete = true),
          // Headers are gone already: a failure can only cut the response, which the client sees as an error.
          (error) => out.destroy(error instanceof Error ? error : new Error(String(error))),
        )
        .finally(() => {
          clearTimeout(deadline);
          leave();
        });
    },
  );
  return router;
}

async function* liveEvents(
  runtime: ReportRuntime,
  datasource: string,
  scope: ReportScope,
  sql: string,
  defs: readonly TemplateDef[],
  values: Record<string, unknown>,
  reading: { timeoutMs: number; signal: AbortSignal },
  liveSheetEvents: (events: AsyncIterable<ExportEvent>, limit: number) => AsyncGenerator<SheetEvent, void, undefined>,
  words: ExportWords,
): AsyncGenerator<SheetEvent, void, undefined> {
  const prepared = await preparedQuery(runtime, datasource, sql, defs, values);
  if ("error" in prepared) {
    yield { kind: "error", reason: words.queryFailure(prepared) };
    return;
  }
  const rows = streamQueryRows(prepared.source, prepared.compiled, {
    ...scope,
    ...reading,
    timeZone: runtime.timeZone,
    limit: EXPORT_ROW_LIMIT,
    maxBatchBytes: runtime.maxResultBytes,
  });
  yield* liveSheetEvents(rows, EXPORT_ROW_LIMIT);
}

/** A sheet's events as they are, noting in `shown` the patients its values name (contract E.4, shownSubjects.ts). */
async function* patientsOnTheWay(
  events: AsyncIterable<SheetEvent>,
  shown: ShownSubjects,
  identifiers: PatientIdentifiers,
): AsyncGenerator<SheetEvent, void, undefined> {
  for await (const event of events) {
    if (event.kind === "rows" && notePatientsOfRows(event.rows, identifiers, shown)) shown.recordable = true;
    yield event;
  }
}

type TableNode = Extract<NodeDef, { type: "table" }>;

/**
 * What the layer's table nodes say of their queries' columns, by query and column. A sheet is a
 * query's, not a node's, so when two tables of one query say something of the same column, the
 * first table's word is taken.
 */
function firstTableSays<T>(
  nodes: readonly NodeDef[],
  says: (node: TableNode) => Array<[string, T]>,
): Map<string, Map<string, T>> {
  const byQuery = new Map<string, Map<string, T>>();
  for (const node of nodes) {
    if (node.type !== "table") continue;
    const columns = byQuery.get(node.query) ?? new Map<string, T>();
    for (const [column, value] of says(node)) if (!columns.has(column)) columns.set(column, value);
    byQuery.set(node.query, columns);
  }
  return byQuery;
}

/** The Excel number formats the table nodes give their queries' columns. */
const columnFormats = (nodes: readonly NodeDef[], excelNumberFormat: (format: string) => string) =>
  firstTableSays(nodes, (node) =>
    (node.columns ?? []).flatMap((column): Array<[string, string]> =>
      typeof column === "string" || !column.format ? [] : [[column.column, excelNumberFormat(column.format)]],
    ),
  );

/**
 * The highlight rules the table nodes give their queries' columns, each column's rules in their
 * order. A stat's rules are not carried over: they judge the first row's value of its column, not
 * every row of the sheet.
 */
const columnHighlights = (nodes: readonly NodeDef[]) =>
  firstTableSays(nodes, (node) => {
    const columns = new Set((node.highlight ?? []).flatMap((rule) => (rule.column === undefined ? [] : [rule.column])));
    return [...columns].map((column): [string, HighlightRuleDef[]] => [column, rulesOfColumn(node.highlight, column)]);
  });

/**
 * The stored spec keeps no order of its queries (PostgreSQL's jsonb reorders keys), so the sheets
 * follow the layer's nodes, as a reader meets them; queries no node shows (option lists) follow.
 */
function inReadingOrder<Q>(queries: Record<string, Q>, nodes: ReadonlyArray<object>): Array<[string, Q]> {
  const shown = nodes.map((node) => ("query" in node && typeof node.query === "string" ? node.query : undefined));
  const names = [
    ...new Set([
      ...shown.filter((name): name is string => !!name && Object.hasOwn(queries, name)),
      ...Object.keys(queries),
    ]),
  ];
  return names.map((name) => [name, queries[name]!]);
}

/** A filter or drill value as the About sheet shows it: null as "(all)", a range as "from – to". */
function shownValue(param: ParamDef | null, value: unknown, words: ExportWords): string {
  const one = (v: unknown): string =>
    v === null || v === undefined ? "…" : typeof v === "boolean" ? (v ? words.yes : words.no) : String(v);
  if (value === null || value === undefined) return words.all;
  if (param && (param.type === "dateRange" || param.type === "numberRange") && Array.isArray(value)) {
    const [from, to] = value;
    return from == null && to == null ? words.all : `${one(from)} – ${one(to)}`;
  }
  if (Array.isArray(value)) return value.length ? value.map(one).join(", ") : words.all;
  return one(value);
}
