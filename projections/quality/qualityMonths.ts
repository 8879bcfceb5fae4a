import {
  SHARED_TENANT,
  type DictionaryReleased,
  type ItemMappingAdded,
  type ItemMappingRemoved,
} from "../../commands/dictionary/events.ts";
import { externalIdOf, labReportStream, type LabReportEvent } from "../../commands/ingestion/events.ts";
import type { QualityMonthClosed } from "../../commands/quality/events.ts";
import type { WithPayload } from "../../commands/kit/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { formulaCodes } from "../../db/seed/derivedItems.ts";
import { RECEIVED_READ_IN_DATABASE } from "../ingestion/labReports.ts";
import { inRuns, lastPerStream } from "../runtime/eventRuns.ts";
import type { Projection } from "../runtime/projection.ts";
import {
  addMapping,
  applyMappings,
  claimReport,
  forgetReports,
  monthsOfReports,
  removeMapping,
  reportItems,
  writeReports,
  type MonthKey,
  type ReportMonth,
} from "./monthItems.ts";
import { careChanges, keepClose, keepMoves, tenantsWithCloses, type Cause, type MovesSettings } from "./monthMoves.ts";
import { recomputeMonths, type FormulaInForce } from "./monthValues.ts";

/*
 * The month's quality figures read (contract G.2): each patient's months with a result (under
 * care), and their last value of each indicator item in each month, derived values included
 * (monthValues.ts). A month of a tenant or a ward is then a read of its own rows, however many
 * years the store holds. Rows belong to patients, so a caller with wards sees their wards' alone
 * (G.1), and every table is rebuilt by replay.
 */

const dictionary = loadDefaultDictionary();

/**
 * The items the indicators of the service's dictionary read: the month's values are kept of these.
 * An indicator a later dictionary brings that reads another item wants this projection rebuilt:
 * KEPT_AT_VERSION (checked by test/projections/qualityMonths.test.ts) says which codes a version keeps.
 */
export const QUALITY_VALUE_CODES: readonly string[] = [
  ...new Set(dictionary.indicators.flatMap((indicator) => indicator.items)),
].sort();

/** The items whose results the projection keeps: the values' items, and those their formulas read or are sent as. */
export const QUALITY_ITEM_CODES: readonly string[] = [
  ...new Set([
    ...QUALITY_VALUE_CODES,
    ...dictionary.items.flatMap((item) =>
      item.formula && QUALITY_VALUE_CODES.includes(item.code) ? formulaCodes(item.formula) : [],
    ),
  ]),
].sort();

/**
 * The codes version 1 keeps and the months before a closed month it keeps moves of; a version
 * that keeps others is a new version (the test compares).
 */
export const KEPT_AT_VERSION = {
  version: 1,
  codes: "ALB,CA,CA_CORR,HBSAG,HCVAB,HGB,HIV,IPTH,KTV,P,TPAB,UREA_POST,UREA_PRE,URR",
  lookbackMonths: 6,
};

type Applied =
  | WithPayload<Extract<LabReportEvent, { type: "LabReportReceived" | "LabReportClaimed" }>, "LabReportReceived", null>
  | ItemMappingAdded
  | ItemMappingRemoved
  | DictionaryReleased
  | QualityMonthClosed;

const HANDLES = [
  "LabReportReceived",
  "LabReportClaimed",
  // A mapping applies to every stored item when it is made (monthItems.ts): its re-mapping steps change nothing here.
  "ItemMappingAdded",
  "ItemMappingRemoved",
  "DictionaryReleased",
  "QualityMonthClosed",
] as const satisfies ReadonlyArray<Applied["type"]>;

/** A close looks back over its month and the months before it that the longest tested window reaches. */
export const MOVES: MovesSettings = {
  lookbackMonths: Math.max(...dictionary.indicators.map((indicator) => indicator.windowMonths)),
};

export const qualityMonthsProjection: Projection<Applied> = {
  name: "quality_months",
  version: KEPT_AT_VERSION.version,
  handles: HANDLES,
  tables: ["quality_reports", "quality_values", "quality_moves", "quality_applied"],
  patientRows: {
    quality_reports: { patientRef: "patient_ref" },
    quality_values: { patientRef: "patient_ref" },
    quality_moves: { patientRef: "patient_ref" },
  },
  payload: RECEIVED_READ_IN_DATABASE,
  ddl: "projections/quality/qualityMonths.sql",
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events) {
    const batch = await openBatch(tx);
    await inRuns(
      events,
      "LabReportReceived",
      (run) => applyReceived(tx, batch, lastPerStream(run).filter(isReceived)),
      (event) => applyOther(tx, batch, event),
    );
    await noteApplied(tx, events);
  },
};

/**
 * Notes the last event of each tenant the batch applied, and of the shared tenant for every tenant
 * (a release applies to all). Forward only: a held-back tenant's events, applied when it is let
 * go, lie behind it.
 */
async function noteApplied(tx: Tx, events: readonly StoredEvent<Applied>[]): Promise<void> {
  const last = new Map(events.map((event) => [event.tenant, event]));
  const shared = last.get(SHARED_TENANT);
  last.delete(SHARED_TENANT);
  if (shared)
    await tx.query("update quality_applied set tx = $1::xid8, position = $2 where (tx, position) < ($1::xid8, $2)", [
      shared.transactionId,
      shared.position,
    ]);
  if (last.size === 0) return;
  const tenants = [...last.values()];
  await tx.query(
    `insert into quality_applied as a select * from unnest($1::text[], $2::xid8[], $3::bigint[])
     on conflict (tenant) do update set tx = excluded.tx, position = excluded.position
     where (a.tx, a.position) < (excluded.tx, excluded.position)`,
    [
      tenants.map((event) => event.tenant),
      tenants.map((event) => event.transactionId),
      tenants.map((event) => event.position),
    ],
  );
}

/** What a batch reads once: the formulas in force and the tenants with a closed month. */
interface Batch {
  formulas: FormulaInForce[];
  closing: Set<string>;
}

async function openBatch(tx: Tx): Promise<Batch> {
  return { formulas: await formulasInForce(tx), closing: await tenantsWithCloses(tx) };
}

const causeOf = (event: StoredEvent<Applied>, externalId: string | null = null): Cause => ({
  position: event.position,
  type: event.type,
  externalId,
  at: event.recordedAt,
});

const monthKey = (key: MonthKey) => `${key.tenant}\u0000${key.patientRef}\u0000${key.month}`;

/**
 * Works out again the months the events touched (each report's months before and after them),
 * and, for the tenants with a closed month, keeps as moves what changed, each caused by the events
 * that touched its month (`careMayChange`: reports came or went, so a patient may have come under
 * care or left it).
 */
async function recompute(
  tx: Tx,
  batch: Batch,
  touched: ReadonlyArray<{ cause: Cause; before: ReportMonth[]; after: ReportMonth[] }>,
  careMayChange: boolean,
): Promise<void> {
  const keys = touched.flatMap(({ before, after }) => [...before, ...after]);
  const changed = await recomputeMonths(tx, keys, QUALITY_VALUE_CODES, batch.formulas);
  if (!keys.some((key) => batch.closing.has(key.tenant))) return;
  const causes = new Map<string, Cause[]>();
  for (const { cause, before, after } of touched)
    for (const key of new Set([...before, ...after].map(monthKey)))
      causes.set(key, [...(causes.get(key) ?? []), cause]);
  const care = careMayChange
    ? await careChanges(
        tx,
        touched.flatMap((touch) => touch.before),
        touched.flatMap((touch) => touch.after),
      )
    : [];
  await keepMoves(tx, [...changed, ...care], (key) => causes.get(monthKey(key)) ?? [], MOVES);
}

type Received = Extract<StoredEvent<Applied>, { type: "LabReportReceived" }>;
const isReceived = (event: StoredEvent<Applied>): event is Received => event.type === "LabReportReceived";

/** A run of received reports, each its last version of the run: a later version replaces a report wholly. */
async function applyReceived(tx: Tx, batch: Batch, received: Received[]): Promise<void> {
  const tenants = received.map((event) => event.tenant);
  const externalIds = received.map(externalIdOf);
  // Only a report received before has a version to replace (its first event is version 1).
  const updated = received.filter((event) => event.streamVersion > 1);
  const before = await monthsOfReports(
    tx,
    updated.map((event) => event.tenant),
    updated.map(externalIdOf),
  );
  if (updated.length > 0)
    await forgetReports(
      tx,
      updated.map((event) => event.tenant),
      updated.map(externalIdOf),
    );
  await writeReports(
    tx,
    received.map((event) => event.position),
    QUALITY_ITEM_CODES,
  );
  // A push maps with the mappings in force, but one that read them a moment before a mapping was made would not.
  await applyMappings(tx, reportItems(tenants, externalIds));
  const after = await monthsOfReports(tx, tenants, externalIds);
  // By report, once: a rebuild's or a bulk import's batch holds thousands of reports.
  const [beforeOf, afterOf] = [byReport(before), byReport(after)];
  await recompute(
    tx,
    batch,
    received.map((event, i) => {
      const key = reportKey(event.tenant, externalIds[i]!);
      return {
        cause: causeOf(event, externalIds[i]!),
        before: beforeOf.get(key) ?? [],
        after: afterOf.get(key) ?? [],
      };
    }),
    true,
  );
}

const reportKey = (tenant: string, externalId: string) => `${tenant}\u0000${externalId}`;

function byReport(months: readonly ReportMonth[]): Map<string, ReportMonth[]> {
  const grouped = new Map<string, ReportMonth[]>();
  for (const month of months) {
    const key = reportKey(month.tenant, month.externalId);
    grouped.set(key, [...(grouped.get(key) ?? []), month]);
  }
  return grouped;
}

async function applyOther(tx: Tx, batch: Batch, event: StoredEvent<Applied>): Promise<void> {
  switch (event.type) {
    case "LabReportReceived":
      return; // inRuns passes runs of these to applyReceived
    case "LabReportClaimed": {
      const externalId = externalIdOf(event);
      const before = await monthsOfReports(tx, [event.tenant], [externalId]);
      await claimReport(tx, event.tenant, externalId, event.data.patientRef);
      const after = await monthsOfReports(tx, [event.tenant], [externalId]);
      return recompute(tx, batch, [{ cause: causeOf(event, externalId), before, after }], true);
    }
    case "ItemMappingAdded":
    case "ItemMappingRemoved": {
      const touched = event.type === "ItemMappingAdded" ? await addMapping(tx, event) : await removeMapping(tx, event);
      const months = await monthsOfReports(tx, touched.tenants, touched.externalIds);
      return recompute(tx, batch, [{ cause: causeOf(event), before: months, after: months }], false);
    }
    case "DictionaryReleased": {
      const changed = await keepFormulas(tx, event);
      batch.formulas = await formulasInForce(tx);
      if (changed.length === 0) return;
      const months = await monthsReading(tx, changed);
      return recompute(tx, batch, [{ cause: causeOf(event), before: months, after: months }], false);
    }
    case "QualityMonthClosed":
      await keepClose(tx, event, HANDLES, labReportStream.prefix);
      batch.closing.add(event.tenant);
      return;
  }
}

async function formulasInForce(tx: Tx): Promise<FormulaInForce[]> {
  const { rows } = await tx.query<FormulaInForce>(
    "select std_code, version, expression, decimals, sent_as from quality_formulas order by std_code",
  );
  return rows;
}

/**
 * A release's formulas of the values' items: kept when their version is new (versions only go
 * forward, as formula_versions keeps them). Returns the codes the formulas read or are sent as of
 * those whose version changed, so that the months holding them are worked out again.
 */
async function keepFormulas(tx: Tx, event: StoredEvent<DictionaryReleased>): Promise<string[]> {
  const released = event.data.items.flatMap((item) =>
    item.formula && QUALITY_VALUE_CODES.includes(item.code) ? [{ code: item.code, formula: item.formula }] : [],
  );
  const { rows } = await tx.query<{ std_code: string }>(
    `insert into quality_formulas as f
     select code, version, expression, decimals, array(select jsonb_array_elements_text("sentAs"))
     from jsonb_to_recordset($1::jsonb) as x(code text, version integer, expression text, decimals integer, "sentAs" jsonb)
     on conflict (std_code) do update set version = excluded.version, expression = excluded.expression, decimals = excluded.decimals, sent_as = excluded.sent_as
     where excluded.version > f.version
     returning std_code`,
    [JSON.stringify(released.map(({ code, formula }) => ({ code, ...formula })))],
  );
  const changed = new Set(rows.map((row) => row.std_code));
  return [
    ...new Set(
      released.filter(({ code }) => changed.has(code)).flatMap(({ code, formula }) => [code, ...formulaCodes(formula)]),
    ),
  ];
}

/** Every patient's month holding an item of `codes`: those a formula's new version changes. */
async function monthsReading(tx: Tx, codes: string[]): Promise<ReportMonth[]> {
  const { rows } = await tx.query<ReportMonth>(
    `select distinct r.tenant, r.patient_ref as "patientRef", r.month::text as month, '' as "externalId"
     from quality_items i join quality_reports r using (tenant, external_id)
     where i.std_code = any($1::text[]) and r.patient_ref is not null`,
    [codes],
  );
  return rows;
}
