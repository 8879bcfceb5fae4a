import { externalIdOf, labReportStream, type LabReportEvent } from "../../commands/ingestion/events.ts";
import type { WithPayload } from "../../commands/kit/events.ts";
import { PATIENT_EVENT_TYPES, patientStreams, type PatientEvent } from "../../commands/patients/events.ts";
import { ITEM_MAPPING_EVENT_TYPES, type ItemMappingEvent } from "../../commands/dictionary/events.ts";
import { boundedSql } from "../../db/numberBounds.ts";
import { createDerivationIndex } from "./derivationIndex.ts";
import {
  applyMappingRules,
  applyStepWithSummaries,
  forgetMapping,
  keepMappingRule,
  loadMappingRules,
  recordStep,
  recordStoppedStep,
  remapEnded,
  stepScope,
  undoneSince,
  unmappedRowsOf,
  unmapRows,
} from "./itemRemapping.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Checkpoint } from "../runtime/eventFeed.ts";
import { inRuns, lastPerStream } from "../runtime/eventRuns.ts";
import { deferIndexes, LOAD_MEMORY_SQL } from "../runtime/deferredIndexes.ts";
import { lastOfEachStream, throughParams, upTo } from "../runtime/loadAtOnce.ts";
import { noLaterVersion, RECEIVED, RECEIVED_READ_IN_DATABASE, receivedReports } from "./labReports.ts";
import type { ApplyContext, FinishStep, Projection } from "../runtime/projection.ts";
import {
  countEveryMonth,
  fillClinicalTargets,
  findEveryLatest,
  findLatest,
  forgetLatest,
  offerLatest,
  patientScope,
  reportsScope,
  shiftMonths,
  type LostLatest,
  type RowScope,
} from "./resultSummaries.ts";

/**
 * One row per result item of a laboratory report, with its standard code and converted value:
 * what report SQL reads (clinical.lab_results), and the summaries dashboards read instead
 * (resultSummaries.ts); the values derived from them by the dictionary's formulas are worked out
 * on reading (queries/patients/derivedResults.ts, contract F.2). A dismissal changes nothing here.
 */
/** What it applies: received reports (their rows built in the database, RECEIVED), claims, and patients (their wards). */
type Applied =
  | WithPayload<Extract<LabReportEvent, { type: "LabReportReceived" | "LabReportClaimed" }>, "LabReportReceived", null>
  | PatientEvent
  | ItemMappingEvent;
type AppliedEvent<T extends Applied["type"]> = Extract<StoredEvent<Applied>, { type: T }>;

export const labResultsProjection: Projection<Applied> = {
  name: "lab_results",
  version: 8,
  handles: [
    "LabReportReceived",
    "LabReportClaimed",
    "PatientRegistered",
    "PatientUpdated",
    ...ITEM_MAPPING_EVENT_TYPES,
  ],
  tables: ["lab_results", "result_months", "latest_results", "patient_wards", "std_targets", "remap_progress"],
  sharedTables: ["std_targets"],
  patientRows: {
    lab_results: { patientRef: "patient_ref" },
    latest_results: { patientRef: "patient_ref" },
    patient_wards: { patientRef: "patient_ref" },
    result_months: { ward: "ward" },
  },
  payload: RECEIVED_READ_IN_DATABASE,
  // A report carries some twenty result rows. A batch held back every other reader of the store
  // until it committed, so it was kept to 200 reports; since readers pass over projection batches
  // (migration 0015), a larger one only costs its own rows' visibility, and a bulk import's read
  // models end 9 s after the job instead of 16 s (690 -> 753 reports/s, npm run bench -- bulk).
  batchSize: 1000,
  // A re-mapping step is some 20,000 rows' work: each commits on its own, its progress with it.
  batchEndsAfter: ["ItemMappingApplied"],
  ddl: ["projections/ingestion/labResults.sql", "projections/ingestion/resultSummaries.sql"],
  async setup(tx) {
    await fillClinicalTargets(tx);
    await createDerivationIndex(tx);
  },
  // Largest first: a rebuild runs them two at a time (finishSideBySide.ts), and at two million
  // reports the month summaries take about as long as the other three together.
  finishLoad: [
    finishStep("result_months", countEveryMonth),
    // A patient's results of an item: whether a patient already counts in a month, and the
    // patient chart, which reads what it draws from the index alone.
    finishStep("lab_results_by_patient", (tx) =>
      tx.query(`create index lab_results_by_patient on lab_results (tenant, patient_ref, std_code, reported_on)
                  include (collected_at, reported_at, std_value, abnormal_flag, external_id)`),
    ),
    finishStep("lab_results_by_item", (tx) =>
      tx.query("create index lab_results_by_item on lab_results (tenant, std_code, reported_on)"),
    ),
    finishStep("latest_results", findEveryLatest),
  ],
  loadThrough: loadItemRows,
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, context = { loading: false }) {
    const { loading, behind } = context;
    // A rebuild's load leaves the summaries to finishLoad, which counts them once at the end.
    if (loading) return applyEvents(tx, events, NO_SUMMARIES);
    if (behind && events.every(isFirstVersion)) return deferSummaries(tx, events);
    await summarisePending(tx);
    await applyEvents(tx, events, KEPT_SUMMARIES);
    summarisedIn.add(context);
  },
  async afterBatch(tx, context) {
    if (!context.behind && !summarisedIn.has(context)) await summarisePending(tx);
  },
};

/**
 * The batches (by their context) whose applyBatch counted every pending report and left none:
 * afterBatch has nothing to count for them, and a live push's batch makes one statement fewer.
 */
const summarisedIn = new WeakSet<ApplyContext>();

/**
 * Catching up (a bulk import, or a backlog after a pause), the item rows of first versions are
 * written batch by batch and their summaries counted in one pass every DEFERRED_REPORTS reports, and
 * when the projection catches up or meets any other event (a correction, a claim, a patient's move
 * takes rows out of the summaries, which must then hold every row). A batch's summaries were half
 * the projection's time, most of it spent on groups (a patient's month of an item) that the next
 * batch touched again. The probe for a patient's other rows in a month leaves out every pending
 * report (they are the pass's scope), so the count is the same as batch by batch.
 *
 * A pass is one transaction, and a writing transaction holds back every reader of the store until it
 * commits (eventFeed.ts): passes of 10,000 reports (1-2 s) held a push's reconciliation back 2.3 s.
 * With 2,000, a push burst (npm run bench -- ingest, A/B alternated on one machine) has its item rows
 * whole 9-11 s after it instead of 16 s and reconciliation p50 480 ms instead of 600, for p99 1.5 s
 * instead of 1.0 s and 8% fewer reports/s while it lasts (the projection's work is done during the
 * burst instead of after it); a bulk import's read models keep up (584 -> 730 reports/s).
 */
const DEFERRED_REPORTS = 2_000;

const isFirstVersion = (event: StoredEvent<Applied>) => event.type === "LabReportReceived" && event.streamVersion === 1;

async function deferSummaries(tx: Tx, events: StoredEvent<Applied>[]): Promise<void> {
  const received = lastPerStream(events);
  await tx.query(insertItemRowsSql("lab_results"), [received.map((event) => event.position)]);
  await applyMappingRules(
    tx,
    reportsScope(
      received.map((event) => event.tenant),
      received.map(externalIdOf),
    ),
  );
  const { rows } = await tx.query(
    `with added as (insert into unsummarised_reports select * from unnest($1::text[], $2::text[]) returning 1)
     select (select count(*) from added) + (select count(*) from unsummarised_reports) as pending`,
    [received.map((event) => event.tenant), received.map(externalIdOf)],
  );
  if (Number(rows[0].pending) >= DEFERRED_REPORTS) await summarisePending(tx);
}

/**
 * Counts the pending reports into the summaries at once, named by arrays as a batch's reports are:
 * the statements keep the plan they have batch by batch (the reports' rows by primary key), which a
 * subquery of the pending table did not without statistics (a pass held every reader back seconds).
 */
async function summarisePending(tx: Tx): Promise<void> {
  const { rows } = await tx.query("delete from unsummarised_reports returning tenant, external_id");
  if (rows.length === 0) return;
  const pending = reportsScope(
    rows.map((row) => row.tenant as string),
    rows.map((row) => row.external_id as string),
  );
  await shiftMonths(tx, 1, pending);
  await offerLatest(tx, pending);
}

async function applyEvents(tx: Tx, events: StoredEvent<Applied>[], summaries: Summaries): Promise<void> {
  await inRuns(
    events,
    "LabReportReceived",
    (run) => applyReceived(tx, lastPerStream(run), summaries),
    (event) => {
      if (event.type === "LabReportClaimed") return applyClaim(tx, event, summaries);
      if (event.type === "PatientRegistered" || event.type === "PatientUpdated")
        return applyPatient(tx, event, summaries);
      if (event.type === "LabReportReceived") return Promise.resolve(); // inRuns passes runs of these to the first function
      return applyMapping(tx, event, summaries);
    },
  );
}

/**
 * The item rows of the received reports at the positions of $1 (or of those `received` selects),
 * into `table`: the floor benchmarks write them the same way.
 */
export function insertItemRowsSql(table: string, received = RECEIVED): string {
  return `insert into ${table}
     select tenant, external_id, (ord - 1)::integer, patient_ref,
            s->>'itemCode', s->>'itemName', m->>'stdCode', m->>'stdName', m->>'category',
            ${boundedSql("(m->>'valueNum')::double precision")}, m->>'valueText', s->>'unit',
            ${boundedSql("(m->>'stdValue')::double precision")}, m->>'stdUnit', m->>'unitStatus',
            ${boundedSql("(s->>'refLow')::double precision")}, ${boundedSql("(s->>'refHigh')::double precision")}, s->>'abnormalFlag', s->>'resultType',
            collected_at, reported_at, collected_at::date, reported_at::date,
            case when m->>'stdCode' is null or m->>'mappedBy' = 'mapping' then client_name end, (m->>'mappingId')::uuid
     from (
       select received.*, jsonb_array_elements(mapped) as m, jsonb_array_elements(sent) as s, generate_series(1, jsonb_array_length(mapped)) as ord
       from (${received}) received
     ) item`;
}

async function applyReceived(tx: Tx, events: StoredEvent<Applied>[], summaries: Summaries): Promise<void> {
  // Only a report received before has item rows to replace (its first event is version 1).
  const updated = events.filter((event) => event.streamVersion > 1);
  let lost: LostLatest = [];
  if (updated.length > 0) {
    const replaced = reportsScope(
      updated.map((event) => event.tenant),
      updated.map(externalIdOf),
    );
    lost = await summaries.leaving(tx, replaced);
    await tx.query(`delete from lab_results r where ${replaced.where("r")}`, replaced.params);
  }
  // The mapped items and the sent items are parallel arrays, zipped by position (set-returning
  // functions side by side in a select list run in step); what every item row of a report shares
  // (patient, times) is worked out once per report, in RECEIVED. Not a lateral join: the planner
  // puts a memoize over one, hashing each whole payload, which cost a fifth of a rebuild.
  await tx.query(insertItemRowsSql("lab_results"), [events.map((event) => event.position)]);
  const received = reportsScope(
    events.map((event) => event.tenant),
    events.map(externalIdOf),
  );
  await applyMappingRules(tx, received);
  await summaries.arrived(tx, received, lost);
}

/** Contract F.1 (itemRemapping.ts): a mapping made, a step of re-mapping the rows stored before it, a mapping undone. */
async function applyMapping(tx: Tx, event: StoredEvent<ItemMappingEvent>, summaries: Summaries): Promise<void> {
  if (event.type === "ItemMappingAdded") return keepMappingRule(tx, event);
  if (event.type === "ItemMappingApplied") {
    // Undone since the step was planned: the re-mapping stops here (STOPPED), mapping nothing more.
    if (await undoneSince(tx, event)) return recordStoppedStep(tx, event);
    // The rows were unmapped, so in no summary: they only arrive, counted in the step's own statement.
    await recordStep(tx, event, await summaries.remapStep(tx, event));
    return;
  }
  const stopped = !(await remapEnded(tx, event.data.mappingId));
  const undone = await unmapRows(tx, event);
  if (undone.count > 0) {
    const lost = await summaries.leaving(tx, undone.scope);
    await forgetMapping(tx, undone.scope);
    // Another mapping in force may match them: the best of those takes them.
    const taken = await applyMappingRules(tx, undone.scope);
    await summaries.arrived(tx, taken.scope, lost);
  }
  // Rows its stopped steps did not reach, which another mapping's steps left to it (it ranked
  // first then): that mapping takes them now, as a rebuild would give them to it. Unmapped, they
  // were in no summary.
  if (stopped) {
    const reached = await applyMappingRules(tx, unmappedRowsOf(event.tenant, event.data.mappingId));
    if (reached.count > 0) await summaries.arrived(tx, reached.scope, []);
  }
}

/** A finish step over every loaded row: built once, not row by row, its sorts and hashes want memory. */
function finishStep(name: string, work: (tx: Tx) => Promise<unknown>): FinishStep {
  return {
    name,
    async run(tx) {
      await tx.query(LOAD_MEMORY_SQL);
      await work(tx);
    },
  };
}

/**
 * A rebuild's load by set (Projection.loadThrough), leaving what applying the events with
 * NO_SUMMARIES would: each report's item rows from its last version received (a later one replaces
 * them wholly); the patient of the last claim made after that version, if any; each patient's
 * last ward. Versions, and a claim after a version, follow each other in their stream.
 */
async function loadItemRows(tx: Tx, through: Checkpoint): Promise<void> {
  const bounds = throughParams(through);
  // The later versions are found by hashing every report's stream, the key built by sorting.
  await tx.query(LOAD_MEMORY_SQL);
  await deferIndexes(tx, ["lab_results"]);
  await tx.query(
    insertItemRowsSql(
      "lab_results",
      // Read in the store's order, each passed over when a later version follows in its stream:
      // the positions of the last versions, found first and looked up one by one, read the
      // payloads out of order (7 M block reads at two million reports, 184 s against 95 s).
      receivedReports(`e.type = 'LabReportReceived' and ${upTo("e")} and ${noLaterVersion("e")}`),
    ),
    bounds,
  );
  await tx.query(
    `update lab_results r set patient_ref = c.data->>'patientRef'
     from ${lastOfEachStream(["LabReportClaimed"])} c
     where r.tenant = c.tenant and r.external_id = substr(c.stream_id, length($3) + 1)
       and ${noLaterVersion("c")}`,
    [...bounds, labReportStream.prefix],
  );
  await tx.query(
    `insert into patient_wards
     select tenant, substr(stream_id, length($3) + 1), data->>'ward' from ${lastOfEachStream(PATIENT_EVENT_TYPES)} p`,
    [...bounds, patientStreams.prefix],
  );
  await loadMappingRules(tx, lastOfEachStream(["ItemMappingAdded", "ItemMappingRemoved"]), bounds);
  // The finish steps are planned on what the load leaves. Without statistics the planner took the
  // 21 M item rows of two million reports for 8.5 M, each a group of its own, and sorted them for
  // the month summaries instead of hashing them into some thousands (the same statement on that
  // store: 272 s planned so, 124 s on statistics). ANALYZE reads a sample: seconds.
  await tx.query("analyze lab_results, patient_wards");
}

async function applyClaim(tx: Tx, event: AppliedEvent<"LabReportClaimed">, summaries: Summaries): Promise<void> {
  const { patientRef } = event.data;
  const report = reportsScope([event.tenant], [externalIdOf(event)]);
  const lost = await summaries.leaving(tx, report);
  await tx.query("update lab_results set patient_ref = $3 where tenant = $1 and external_id = $2", [
    event.tenant,
    externalIdOf(event),
    patientRef,
  ]);
  await summaries.arrived(tx, report, lost);
}

/** A patient who changes ward takes their results to the new ward's summaries. */
async function applyPatient(
  tx: Tx,
  event: AppliedEvent<"PatientRegistered" | "PatientUpdated">,
  summaries: Summaries,
): Promise<void> {
  const { ward } = event.data;
  const patientRef = patientStreams.key(event.streamId);
  await summaries.moving(tx, event.tenant, patientRef, ward, () =>
    tx.query(
      "insert into patient_wards values ($1, $2, $3) on conflict (tenant, patient_ref) do update set ward = excluded.ward",
      [event.tenant, patientRef, ward],
    ),
  );
}

interface Summaries {
  /** Before item rows change or go: takes them out of the summaries. */
  leaving(tx: Tx, scope: RowScope): Promise<LostLatest>;
  /** After item rows are written: puts them into the summaries. */
  arrived(tx: Tx, scope: RowScope, lost: LostLatest): Promise<void>;
  /** Around `setWard`, which records the patient's ward: moves their results to it if it changed. */
  moving(
    tx: Tx,
    tenant: string,
    patientRef: string,
    ward: string | null,
    setWard: () => Promise<unknown>,
  ): Promise<void>;
  /** A re-mapping step of an item mapping (itemRemapping.ts): maps its rows, which were in no summary; how many. */
  remapStep(tx: Tx, event: AppliedEvent<"ItemMappingApplied">): Promise<number>;
}

const KEPT_SUMMARIES: Summaries = {
  async leaving(tx, scope) {
    await shiftMonths(tx, -1, scope);
    return forgetLatest(tx, scope);
  },
  // The latest results the old rows held are found again among all rows first: offered first, a
  // corrected result dated earlier would take a place left empty without being compared with the
  // patient's other results.
  async arrived(tx, scope, lost) {
    await shiftMonths(tx, 1, scope);
    await findLatest(tx, lost);
    await offerLatest(tx, scope);
  },
  async moving(tx, tenant, patientRef, ward, setWard) {
    const { rows } = await tx.query("select ward from patient_wards where tenant = $1 and patient_ref = $2", [
      tenant,
      patientRef,
    ]);
    const moved = rows.length > 0 && rows[0].ward !== ward;
    if (moved) await shiftMonths(tx, -1, patientScope(tenant, patientRef));
    await setWard();
    if (moved) await shiftMonths(tx, 1, patientScope(tenant, patientRef));
  },
  remapStep: applyStepWithSummaries,
};

const NO_SUMMARIES: Summaries = {
  leaving: async () => [],
  arrived: async () => {},
  async moving(_tx, _tenant, _patientRef, _ward, setWard) {
    await setWard();
  },
  remapStep: async (tx, event) => (await applyMappingRules(tx, stepScope(event), event.data.mappingId)).count,
};
