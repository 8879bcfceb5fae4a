import { z } from "zod";
import {
  examReportStream,
  isClaimed,
  isDismissed,
  isReceived,
  labReportStream,
  reportEtag,
  type Match,
  type ReportStreamEvent,
  type ReportStreamKind,
} from "../../commands/ingestion/events.ts";
import { criticalResultsStreams, type CriticalResultEvent } from "../../commands/alerts/events.ts";
import { readStream, type StoredEvent } from "../../db/eventStore.ts";
import type { Db } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { itemNamesOf, itemNamesShape } from "../dictionary/itemNames.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { jsonChanges } from "../kit/jsonChanges.ts";
import { localDateTime, localDateTimeText } from "../../db/localDateTime.ts";
import type { MappingTimeline } from "../dictionary/itemMappings.ts";
import { remapEntries } from "./remapHistory.ts";

/*
 * The history of one report (contract D.1), read from its stream in the event store: what was
 * received, claimed and dismissed, by whom and when, and every version exactly as accepted. Never
 * from a read table, which a later update overwrites.
 */

export const historyEntrySchema = z.object({
  seq: z.int().meta({ description: "1, 2, … in the order of the entries" }),
  event: z
    .enum([
      "RECEIVED",
      "CLAIMED",
      "DISMISSED",
      "REQUEUED",
      "ALERT_RAISED",
      "ALERT_ACKNOWLEDGED",
      "ALERT_CLOSED",
      "REMAPPED",
    ])
    .meta({
      description:
        "ALERT_*: a critical-result or delta alert of the report's results (contracts D.7, F.3; its kind says " +
        "which); REMAPPED: an item mapping re-mapped its results, or undoing one unmapped them (contract F.1)",
    }),
  at: localDateTimeText,
  by: z.string().meta({ description: "The sending client's name, the person's name, or auto for an automatic claim" }),
  requestId: z.string().nullable(),
  version: z.int().optional().meta({ description: "RECEIVED: the stored version's counter (1, 2, …)" }),
  contentHash: z
    .string()
    .optional()
    .meta({ description: 'RECEIVED: "sha256:" + hex of the canonical JSON of the report as accepted' }),
  status: z.enum(["CREATED", "UPDATED"]).optional(),
  matched: z.boolean().optional(),
  patientRef: z.string().nullable().optional(),
  reason: z.string().optional().meta({
    description:
      "DISMISSED: why; REQUEUED: why the report waits again; ALERT_RAISED: why the result is critical, or how far it moved; ALERT_CLOSED: why it no longer is",
  }),
  alertId: z.string().optional(),
  kind: z.enum(["CRITICAL", "DELTA"]).optional().meta({ description: "ALERT_*: the alert's kind (contract F.3)" }),
  handledAs: z
    .enum(["critical", "info"])
    .optional()
    .meta({
      description:
        "ALERT_* of kind DELTA that is no alert of its own (decision 0073): critical, the change of a critical " +
        "result, carried by its CRITICAL alert; info, a value back inside the reference range, " +
        "shown as information",
    }),
  code: z.string().optional().meta({ description: "ALERT_RAISED: the critical result's item code" }),
  note: z.string().optional().meta({ description: "ALERT_ACKNOWLEDGED: what was done" }),
  mappingId: z.string().optional().meta({ description: "REMAPPED: the item mapping (GET /api/dictionary/mappings)" }),
  stdCode: z.string().nullable().optional().meta({
    description:
      "REMAPPED: the standard item the results now count as; null when undoing the mapping left them unmapped",
  }),
  standardItem: z
    .object({
      code: z.string(),
      ...itemNamesShape,
      unit: z.string().meta({ description: 'Its standard unit; "" for none' }),
      decimals: z.int().nullable().meta({ description: "How many decimals the dictionary shows its values with" }),
    })
    .nullable()
    .optional()
    .meta({ description: "REMAPPED: stdCode's item, as the dictionary in force names it; null with stdCode null" }),
  items: z
    .array(
      z.object({
        itemCode: z.string().nullable(),
        itemName: z.string().nullable(),
        value: z.union([z.number(), z.string()]).nullable().meta({ description: "As sent" }),
        unit: z.string().nullable().meta({ description: "As sent" }),
        stdValue: z
          .number()
          .nullable()
          .meta({ description: "The value in the standard item's unit, as stored; null when it has none" }),
        conversion: z
          .object({ unit: z.string(), factor: z.number(), offset: z.number() })
          .nullable()
          .meta({ description: "How value became stdValue: stdValue = value × factor + offset; null: not converted" }),
      }),
    )
    .optional()
    .meta({ description: "REMAPPED: the report's items the mapping re-mapped, or its undoing unmapped (issue #54)" }),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const reportHistorySchema = z.object({
  kind: z.enum(["lab", "exam"]),
  externalId: z.string(),
  current: z.int().meta({ description: "The newest stored version" }),
  etag: z.string().meta({
    description:
      "The report as this history shows it (issue #51), also the answer's ETag: If-Match for a claim or " +
      "dismissal, refused (409) when the report changed since; the one way to claim a dismissed report",
    example: '"report-3"',
  }),
  entries: z.array(historyEntrySchema),
});
export type ReportHistory = z.infer<typeof reportHistorySchema>;

export const reportVersionSchema = z.object({
  version: z.int(),
  receivedAt: localDateTimeText,
  by: z.string(),
  report: z
    .record(z.string(), z.unknown())
    .meta({ description: "The report exactly as accepted in that version (unknown fields stripped)" }),
  standardItems: z.array(z.object({ code: z.string(), ...itemNamesShape }).nullable()).meta({
    description:
      "The dictionary item each of report.items was mapped to when the version was received, in the same " +
      "order: null where it was not mapped. Named as the dictionary in force names them",
  }),
});
export type ReportVersion = z.infer<typeof reportVersionSchema>;

export const reportDiffSchema = z.object({
  from: z.int(),
  to: z.int(),
  changes: z.array(
    z.object({ path: z.string().meta({ example: "items[3].value" }), before: z.unknown(), after: z.unknown() }),
  ),
});
export type ReportDiff = z.infer<typeof reportDiffSchema>;

type ReportStored = StoredEvent<ReportStreamEvent>;

interface Received {
  version: number;
  event: Extract<ReportStored, { type: `${string}Received` }>;
}

async function streamOf(
  db: Db,
  tenant: string,
  kind: ReportStreamKind,
  externalId: string,
): Promise<ReportStored[] | null> {
  const { events } = await readStream<ReportStreamEvent>(db, tenant, kind.stream.id(externalId));
  return events.some(isReceived) ? events : null;
}

/** The report's own events and, for a laboratory report, its critical-result alerts', in the order they happened. */
async function historyEventsOf(
  db: Db,
  tenant: string,
  kind: ReportStreamKind,
  externalId: string,
): Promise<Array<ReportStored | StoredEvent<CriticalResultEvent>> | null> {
  const events = await streamOf(db, tenant, kind, externalId);
  if (!events || kind.name !== "lab") return events;
  const alerts = (await readStream<CriticalResultEvent>(db, tenant, criticalResultsStreams.id(externalId))).events;
  return [...events, ...alerts].sort((a, b) => a.position - b.position);
}

/** A report's versions are its received events, numbered from 1 (claims and dismissals make none). */
function receivedVersions(events: readonly ReportStored[]): Received[] {
  return events.filter(isReceived).map((event, i) => ({ version: i + 1, event }));
}

const isReportEvent = (event: ReportStored | StoredEvent<CriticalResultEvent>): event is ReportStored =>
  labReportStream.owns(event.streamId) || examReportStream.owns(event.streamId);

/**
 * Whether the reader sees the report in the read model: unmatched, or of a patient of the
 * caller's wards (the read table's ward scope decides, db/wardScope.ts). The history itself is
 * read from the event streams, which know no wards, so a caller limited to wards asks this first.
 */
export async function reportInScope(
  reader: TenantReader,
  kind: ReportStreamKind,
  externalId: string,
): Promise<boolean> {
  const table = kind.name === "lab" ? "read.lab_reports" : "read.exam_reports";
  const { rowCount } = await reader.query(`select 1 from ${table} where external_id = $1`, [externalId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The report's history, oldest first; null when the tenant holds no such report. `timeline` (a
 * laboratory report's) adds when item mappings re-mapped its results (remapHistory.ts).
 */
export async function reportHistory(
  db: Db,
  tenant: string,
  kind: ReportStreamKind,
  externalId: string,
  timeline?: MappingTimeline,
  dictionary?: Dictionary,
): Promise<ReportHistory | null> {
  const events = await historyEventsOf(db, tenant, kind, externalId);
  if (!events) return null;
  const placed: Array<{ position: number; entry: Omit<HistoryEntry, "seq"> }> = [];
  const add = (event: StoredEvent, entry: Omit<HistoryEntry, "seq" | "at" | "requestId">) =>
    placed.push({
      position: event.position,
      entry: { at: localDateTime(event.recordedAt), requestId: event.metadata.requestId ?? null, ...entry },
    });
  // Waiting in the queue: received unmatched and neither claimed nor dismissed since.
  let waiting = false;
  let version = 0;
  let streamVersion = 0;
  const alertKinds = new Map<string, "CRITICAL" | "DELTA">();
  const handled = new Map<string, "critical" | "info">();
  const handledOf = (alertId: string) => {
    const as = handled.get(alertId);
    return as ? { handledAs: as } : {};
  };
  for (const event of events) {
    if (isReportEvent(event)) streamVersion = event.streamVersion;
    if (isReportEvent(event) && isReceived(event)) {
      const data = event.data;
      const match: Match = data.match;
      version += 1;
      add(event, {
        event: "RECEIVED",
        by: data.client.name,
        version,
        contentHash: `sha256:${data.contentHash}`,
        status: data.outcome,
        matched: match.matched,
        patientRef: match.matched ? match.patientRef : null,
      });
      if (!match.matched && !waiting && version > 1)
        add(event, {
          event: "REQUEUED",
          by: data.client.name,
          matched: false,
          patientRef: null,
          reason: match.pendingReason,
        });
      waiting = !match.matched;
    } else if (isReportEvent(event) && isClaimed(event)) {
      const data = event.data;
      add(event, {
        event: "CLAIMED",
        by: data.auto ? "auto" : (data.by ?? event.metadata.actor),
        matched: true,
        patientRef: data.patientRef,
      });
      waiting = false;
    } else if (isReportEvent(event) && isDismissed(event)) {
      const data = event.data;
      add(event, { event: "DISMISSED", by: data.by ?? event.metadata.actor, reason: data.reason });
      waiting = false;
    } else if (!isReportEvent(event)) {
      const alert = event;
      const kindOf = (alertId: string) => alertKinds.get(alertId) ?? "CRITICAL";
      if (alert.type === "CriticalResultRaised" || alert.type === "DeltaAlertRaised") {
        alertKinds.set(alert.data.alertId, alert.type === "DeltaAlertRaised" ? "DELTA" : "CRITICAL");
        if (alert.type === "DeltaAlertRaised" && alert.data.handledAs)
          handled.set(alert.data.alertId, alert.data.handledAs);
        add(event, {
          event: "ALERT_RAISED",
          by: event.metadata.actor,
          alertId: alert.data.alertId,
          kind: kindOf(alert.data.alertId),
          ...handledOf(alert.data.alertId),
          code: alert.data.code,
          reason: alert.data.reason,
        });
      }
      if (alert.type === "CriticalResultAcknowledged")
        add(event, {
          event: "ALERT_ACKNOWLEDGED",
          by: alert.data.by,
          alertId: alert.data.alertId,
          kind: kindOf(alert.data.alertId),
          note: alert.data.note,
        });
      if (alert.type === "CriticalResultClosed" || alert.type === "DeltaAlertClosed")
        add(event, {
          event: "ALERT_CLOSED",
          by: event.metadata.actor,
          alertId: alert.data.alertId,
          kind: kindOf(alert.data.alertId),
          ...handledOf(alert.data.alertId),
          reason: alert.data.reason,
        });
    }
  }
  if (timeline) {
    const received = events.filter(
      (event): event is Extract<ReportStored, { type: `${string}Received` }> =>
        isReportEvent(event) && isReceived(event),
    );
    for (const remap of remapEntries(received, timeline)) {
      placed.push({
        position: remap.position,
        entry: {
          event: "REMAPPED",
          at: localDateTime(remap.at),
          by: remap.by,
          requestId: null,
          mappingId: remap.mappingId,
          stdCode: remap.stdCode,
          standardItem: standardItemOf(dictionary, remap.stdCode),
          items: remap.items,
        },
      });
    }
  }
  // Stable: entries of one event keep the order they were added in.
  placed.sort((a, b) => a.position - b.position);
  return {
    kind: kind.name,
    externalId,
    current: version,
    etag: reportEtag(streamVersion),
    entries: placed.map(({ entry }, i) => ({ seq: i + 1, ...entry })),
  };
}

/** A REMAPPED entry's standard item, named as the dictionary in force names it (null: none, or no dictionary given). */
function standardItemOf(dictionary: Dictionary | undefined, stdCode: string | null): HistoryEntry["standardItem"] {
  const item = dictionary && stdCode !== null ? dictionary.items.find((one) => one.code === stdCode) : undefined;
  if (!item) return null;
  return {
    code: item.code,
    name: item.name,
    nameEn: item.nameEn,
    label: item.label,
    unit: item.unit,
    decimals: item.decimals ?? null,
  };
}

/**
 * The patients a report was ever matched or claimed to: whom its history, versions and diffs show
 * (the access log names them, contract E.4).
 */
function patientsOf(events: readonly ReportStored[]): string[] {
  const refs = events.flatMap((event) =>
    isReceived(event)
      ? event.data.match.matched
        ? [event.data.match.patientRef]
        : []
      : isClaimed(event)
        ? [event.data.patientRef]
        : [],
  );
  return [...new Set(refs)];
}

/** Version `n` as accepted, and the report's patients; null when the report or that version does not exist. */
export async function reportVersion(
  db: Db,
  dictionary: Dictionary,
  tenant: string,
  kind: ReportStreamKind,
  externalId: string,
  n: number,
): Promise<{ version: ReportVersion; patientRefs: string[] } | null> {
  const events = await streamOf(db, tenant, kind, externalId);
  const found = events ? receivedVersions(events).find((received) => received.version === n) : undefined;
  if (!found) return null;
  return {
    version: {
      version: n,
      receivedAt: localDateTime(found.event.recordedAt),
      by: found.event.data.client.name,
      report: found.event.data.report as unknown as Record<string, unknown>,
      standardItems: found.event.data.items.map(({ stdCode }) => {
        const names = stdCode === null ? undefined : itemNamesOf(dictionary, stdCode);
        return names ? { code: stdCode!, ...names } : null;
      }),
    },
    patientRefs: patientsOf(events!),
  };
}

/** What changed from version `from` to `to`, and the report's patients; null when the report or either version does not exist. */
export async function reportDiff(
  db: Db,
  tenant: string,
  kind: ReportStreamKind,
  externalId: string,
  from: number,
  to: number,
): Promise<{ diff: ReportDiff; patientRefs: string[] } | { missing: number } | null> {
  const events = await streamOf(db, tenant, kind, externalId);
  if (!events) return null;
  const versions = receivedVersions(events);
  const before = versions.find((received) => received.version === from);
  const after = versions.find((received) => received.version === to);
  if (!before) return { missing: from };
  if (!after) return { missing: to };
  return {
    diff: { from, to, changes: reportChanges(before.event.data.report, after.event.data.report) },
    patientRefs: patientsOf(events),
  };
}

const itemKey = (item: unknown) => {
  const fields = typeof item === "object" && item !== null ? (item as Record<string, unknown>) : {};
  return String(fields.itemCode ?? fields.itemName ?? "");
};

/**
 * Every changed leaf between two reports. Items are paired by itemCode (else itemName), not by
 * position, so a report whose items were only re-ordered has no changes.
 */
export function reportChanges(before: unknown, after: unknown): ReportDiff["changes"] {
  return jsonChanges(before, after, (path) => (path.length === 1 && path[0] === "items" ? itemKey : null));
}
