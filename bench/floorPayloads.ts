import { NO_MAPPINGS } from "../commands/dictionary/events.ts";
import { createItemMapper } from "../commands/ingestion/itemMapping.ts";
import {
  checkReports,
  storeCheckedReports,
  type IngestionDeps,
  type PushingClient,
} from "../commands/ingestion/pushReports.ts";
import { labReports } from "../commands/ingestion/reportKinds.ts";
import type { ReceivedReport } from "../commands/ingestion/events.ts";
import type { EventMetadata, Queryable, StreamAppend, TransactionWriter } from "../db/eventStore.ts";
import { loadDefaultDictionary } from "../db/seed/defaultDictionary.ts";
import { makeBatch, registered, REPORTS_PER_BATCH } from "./ingestSenders.ts";

/*
 * The floor benchmark's reports as the store keeps them: the bulk group's reports (makeBatch of run
 * "B", its days) put through the service's own validation, item mapping, matching and decision
 * (checkReports, storeCheckedReports) with a writer that keeps the appends instead of storing
 * them. So each event's JSON is byte for byte what the service would append, and the item and
 * report rows are the columns its projections derive from that JSON, worked out here once.
 *
 * Holding every report of a run would take hundreds of MB (~7 kB of two-byte JSON each), so a
 * few batches are made this way and repeated: copy k of a template report differs only in its
 * externalId (and stream), as the reports of a big import differ from each other.
 */

export const TENANT = "bench";
const CLIENT: PushingClient = {
  clientId: "00000000-0000-4000-8000-00000000b011",
  name: "Central lab LIS",
  tenant: TENANT,
  codeMap: new Map(),
};
export const METADATA: EventMetadata = {
  actor: CLIENT.name,
  client: CLIENT.clientId,
  requestId: "00000000-0000-4000-8000-000000000000",
  bulkJob: "00000000-0000-4000-8000-0000000000b0",
};
const DAYS = 1000;

/** One item row of lab_results, as the projection derives it from the event (labResults.ts). */
export interface ItemRow {
  itemCode: string | null;
  itemName: string | null;
  stdCode: string | null;
  stdName: string | null;
  category: string | null;
  valueNum: number | null;
  valueText: string | null;
  unit: string | null;
  stdValue: number | null;
  stdUnit: string | null;
  unitStatus: string;
  refLow: number | null;
  refHigh: number | null;
  abnormalFlag: string | null;
  resultType: string | null;
}

/** A received report: its event's JSON, and what its lab_reports row and item rows hold besides. */
export interface TemplateReport {
  externalId: string;
  dataJson: string;
  reportNo: string | null;
  patientRef: string | null;
  matched: boolean;
  pendingReason: string | null;
  idCard: string | null;
  patientName: string | null;
  hisPatientId: string | null;
  panelName: string | null;
  specimen: string | null;
  status: string | null;
  labName: string | null;
  reporter: string | null;
  reviewer: string | null;
  collectedAt: string | null;
  reportedAt: string;
  items: ItemRow[];
}

function dayOf(batch: number): string {
  return new Date(Date.UTC(2020, 0, 1 + (batch % DAYS))).toISOString().slice(0, 10);
}

/** The service's ingestion dependencies with the bench tenant's 200 patients registered (as benchService registers them: P001…P200). */
function deps(): IngestionDeps {
  const dictionary = loadDefaultDictionary();
  const byIdCard = new Map(
    registered.map((p, i) => [
      p.idCard,
      { patientRef: `P${String(i + 1).padStart(3, "0")}`, name: p.name, idCard: p.idCard },
    ]),
  );
  return {
    store: null as never, // checkReports reads no stream; storeCheckedReports is given its writer
    dictionary,
    mapper: createItemMapper(dictionary),
    patientsByIdCards: async (_tenant, idCards) => idCards.flatMap((card) => byIdCard.get(card) ?? []),
    mappingsOf: async () => NO_MAPPINGS,
  };
}

/** No report stored yet: every stream's state is empty, so every report is CREATED. */
const emptyStore: Queryable = { query: (async () => ({ rows: [] })) as never };

/** The template reports: `batches` of the bulk group's run "B", each a batch of 100, as the service would store them. */
export async function templateReports(batches: number): Promise<TemplateReport[]> {
  const ingestion = deps();
  const reports: TemplateReport[] = [];
  for (let b = 0; b < batches; b++) {
    const appends: StreamAppend[] = [];
    const writer: TransactionWriter = {
      append: () => Promise.reject(new Error("not used")),
      appendMany: async (_tenant, many) => {
        appends.push(...many);
        return [];
      },
    };
    const checked = await checkReports(ingestion, labReports, CLIENT, makeBatch("B", 0, b, dayOf(b)).reports);
    await storeCheckedReports(writer, emptyStore, labReports, CLIENT, checked, METADATA);
    if (appends.length !== REPORTS_PER_BATCH)
      throw new Error(`batch ${b}: ${appends.length} of ${REPORTS_PER_BATCH} reports accepted`);
    for (const append of appends) reports.push(templateReport(append));
  }
  return reports;
}

function templateReport(append: StreamAppend): TemplateReport {
  const event = append.events[0]!;
  const dataJson = "dataJson" in event ? event.dataJson : JSON.stringify(event.data);
  const d = JSON.parse(dataJson);
  const report = d.report;
  const text = (value: unknown) => (value === undefined || value === null ? null : String(value));
  const num = (value: unknown) => (value === undefined || value === null ? null : Number(value));
  return {
    externalId: d.externalId,
    dataJson,
    reportNo: text(report.reportNo),
    patientRef: d.match.matched ? d.match.patientRef : null,
    matched: d.match.matched,
    pendingReason: d.match.matched ? null : text(d.match.pendingReason),
    idCard: text(d.match.idCard ?? report.patient?.idCard),
    patientName: text(report.patient?.name),
    hisPatientId: text(report.patient?.hisPatientId),
    panelName: text(report.panelName),
    specimen: text(report.specimen),
    status: text(report.status),
    labName: text(report.labName),
    reporter: text(report.reporter),
    reviewer: text(report.reviewer),
    collectedAt: text(report.collectedAt),
    reportedAt: report.reportedAt,
    items: (d.items as Array<Record<string, unknown>>).map((m, i) => {
      const s = report.items[i] as Record<string, unknown>;
      return {
        itemCode: text(s.itemCode),
        itemName: text(s.itemName),
        stdCode: text(m.stdCode),
        stdName: text(m.stdName),
        category: text(m.category),
        valueNum: num(m.valueNum),
        valueText: text(m.valueText),
        unit: text(s.unit),
        stdValue: num(m.stdValue),
        stdUnit: text(m.stdUnit),
        unitStatus: m.unitStatus as string,
        refLow: num(s.refLow),
        refHigh: num(s.refHigh),
        abnormalFlag: text(s.abnormalFlag),
        resultType: text(s.resultType),
      };
    }),
  };
}

/** Copy `copy` of a template report: another externalId (and so stream) in the same JSON. Copy 0 is the template itself. */
export function copyOf(
  template: TemplateReport,
  copy: number,
): { externalId: string; streamId: string; dataJson: string } {
  if (copy === 0)
    return {
      externalId: template.externalId,
      streamId: labReports.stream.id(template.externalId),
      dataJson: template.dataJson,
    };
  const externalId = template.externalId.replace("LIS-B-", `LIS-B${copy}-`);
  return {
    externalId,
    streamId: labReports.stream.id(externalId),
    dataJson: template.dataJson.replaceAll(`"${template.externalId}"`, `"${externalId}"`),
  };
}

/**
 * The same reports with deliverable 3's compact item mapping in their events: per item only what
 * the dictionary version the event names cannot give back (standard code, converted value, unit
 * status, how it was mapped). Names, categories, units and the sent value's copies go; the item
 * and report rows stay as they are. What such an event format would save the floor.
 */
export function withCompactMapping(templates: TemplateReport[]): TemplateReport[] {
  return templates.map((template) => {
    const data: ReceivedReport = JSON.parse(template.dataJson);
    const items = data.items.map(({ stdCode, stdValue, unitStatus, mappedBy }) => ({
      stdCode,
      stdValue,
      unitStatus,
      mappedBy,
    }));
    return { ...template, dataJson: JSON.stringify({ ...data, items }) };
  });
}
