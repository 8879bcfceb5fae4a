import type { PatientsByIdCards } from "../patients/managePatients.ts";
import { setImmediate } from "node:timers/promises";
import { z } from "zod";
import {
  ConcurrencyConflict,
  type EventMetadata,
  type EventStore,
  type Queryable,
  type StreamAppend,
  type TransactionWriter,
} from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { CRITICAL_AT_RECEIPT, mayRaiseAlert } from "../alerts/criticalResults.ts";
import { CommandError } from "../kit/commandError.ts";
import { parseClientCodeMap, summarise, type ItemMapper, type MappedItem, type SenderMappings } from "./itemMapping.ts";
import { matchableIdCard, matchPatient, namesClaimedPerson, type KnownPatient, type Match } from "./patientMatching.ts";
import type { AcceptedReport, ReceivedReport } from "./events.ts";
import type { ReportKind } from "./reportKinds.ts";
import {
  evolveReportStream,
  initialReportStreamState,
  type FoldedReportEvent,
  type ReportStreamState,
} from "./reportStreamState.ts";
import { reportRejectionSchema, validateReport, type ReportRejection } from "./reportSchemas.ts";

export const MAX_REPORTS_PER_PUSH = 100;
const REPORTS_BETWEEN_YIELDS = 10;

export interface PushingClient {
  clientId: string;
  name: string;
  tenant: string;
  codeMap: ReadonlyMap<string, string>;
}

/** A client as read for a call (the code map as stored) made ready to push: read afresh each time, so a new map counts at once. */
export function pushingClient(client: {
  clientId: string;
  name: string;
  tenant: string;
  codeMap: Record<string, string>;
}): PushingClient {
  return {
    clientId: client.clientId,
    name: client.name,
    tenant: client.tenant,
    codeMap: parseClientCodeMap(client.codeMap),
  };
}

export interface IngestionDeps {
  store: EventStore;
  dictionary: Dictionary;
  mapper: ItemMapper;
  patientsByIdCards: PatientsByIdCards;
  /** The tenant's item mappings in force for a sender (contract F.1), asked only for a push with an item the dictionary leaves unmapped. */
  mappingsOf: (tenant: string, clientName: string) => Promise<SenderMappings>;
}

const OUTCOMES = ["CREATED", "UPDATED", "UNCHANGED"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A stored (or unchanged) report's result entry (contract B.2). */
export const acceptedEntrySchema = z.object({
  externalId: z.string(),
  status: z.enum(OUTCOMES),
  matched: z.boolean(),
  patientRef: z.string().optional().meta({ description: "The dialysis patient the report was matched to" }),
  itemsMapped: z.int(),
  itemsUnmapped: z.int(),
  pendingReason: z
    .string()
    .optional()
    .meta({ description: "Why the report awaits claiming, e.g. no dialysis patient with this idCard" }),
});
export type AcceptedEntry = z.infer<typeof acceptedEntrySchema>;

export type ResultEntry = AcceptedEntry | ReportRejection;

/** The `data` of a push answer: one result entry per report, in the order sent. */
export const pushResultSchema = z.object({
  total: z.int(),
  accepted: z.int(),
  rejected: z.int(),
  results: z.array(z.union([acceptedEntrySchema, reportRejectionSchema])),
});
export type PushResult = z.infer<typeof pushResultSchema>;

export interface Prepared {
  index: number;
  externalId: string;
  streamId: string;
  patient: AcceptedReport["patient"];
  /** The report's JSON as validated: hashed, and stored as is (the report's objects are let go). */
  reportJson: string;
  contentHash: string;
  items: MappedItem[];
  summary: ReceivedReport["summary"];
  freshMatch: Match;
  /** How the report came when not as JSON (an HL7 message and its control id, a FHIR Bundle entry), kept in its event's metadata. */
  origin?: Record<string, unknown>;
  /** A laboratory report's: whether it may raise a critical-result alert (mayRaiseAlert), kept in its event's metadata. */
  criticalAtReceipt?: boolean;
}

/**
 * The body of a push. The batch is checked with `report` left `unknown`: each report is then
 * validated on its own by its kind's schema, so one invalid report stops nothing. The OpenAPI
 * document shows the same body with the kind's report schema in its place.
 */
export function pushBodySchema<R extends z.ZodType>(report: R) {
  const arrayOf = `an array of at most ${MAX_REPORTS_PER_PUSH} reports`;
  return z.object(
    {
      reports: z
        .array(report, {
          error: (iss) =>
            iss.input === undefined ? `reports is required: ${arrayOf}.` : `reports must be ${arrayOf}.`,
        })
        .max(MAX_REPORTS_PER_PUSH, {
          error: (iss) =>
            `reports has ${(iss.input as unknown[]).length} entries; send at most ${MAX_REPORTS_PER_PUSH} per call.`,
        }),
    },
    { error: "Send a JSON object with a reports array." },
  );
}
const pushBatch = pushBodySchema(z.unknown());

/** A request that cannot be handled as a batch at all (the per-report problems are in the results). */
export function batchProblem(body: unknown): string | null {
  const parsed = pushBatch.safeParse(body);
  return parsed.success ? null : parsed.error.issues[0]!.message;
}

/**
 * Validates, matches, maps and stores each report of a push on its own. Stored reports are
 * committed before this returns; an invalid report is answered REJECTED and stops nothing.
 * Takes the body over: each report is removed from it once checked.
 */
/** `origins`: how each report came when not as JSON (an HL7 message and its control id, a FHIR Bundle entry), by index, kept in its event's metadata. */
export async function pushReports(
  deps: IngestionDeps,
  kind: ReportKind,
  client: PushingClient,
  body: unknown,
  requestId: string,
  origins?: ReadonlyArray<Record<string, unknown>>,
): Promise<PushResult> {
  const problem = batchProblem(body);
  if (problem) throw new CommandError("invalid", problem);
  const checked = await checkReports(deps, kind, client, (body as { reports: unknown[] }).reports, origins);
  const metadata: EventMetadata = { actor: client.name, client: client.clientId, requestId };
  // A batch may name one externalId twice: the later copy is handled after the earlier is stored.
  for (const round of roundsOfDistinctIds(checked.prepared)) {
    for (const [index, entry] of await storeRound(deps, kind, client, round, metadata)) checked.results[index] = entry;
  }
  return pushResult(checked.results);
}

/** Reports checked and matched, not yet stored: the rejected ones' entries are in `results` already. */
export interface CheckedReports {
  /** One entry per report sent, by index; an accepted report's is filled in when it is stored. */
  results: ResultEntry[];
  prepared: Prepared[];
}

/**
 * Validation, item mapping and patient matching of each report (contract B.2, B.3): everything
 * a push decides before it reads the reports' streams. Shared by every way reports arrive.
 * Takes `sent` over: each report is removed from it once checked.
 */
export async function checkReports(
  deps: IngestionDeps,
  kind: ReportKind,
  client: PushingClient,
  sent: unknown[],
  origins?: ReadonlyArray<Record<string, unknown>>,
): Promise<CheckedReports> {
  const schema = kind.schema(deps.dictionary);
  const results: ResultEntry[] = new Array(sent.length);
  const prepared: Prepared[] = [];
  /** A laboratory report's items the dictionary left unmapped, for the tenant's item mappings to try. */
  const unmapped: Unmapped[] = [];
  for (let index = 0; index < sent.length; index++) {
    // A hundred reports take tens of milliseconds to check: let other requests and the
    // projections' database round trips through every few reports rather than after all of them.
    if (index > 0 && index % REPORTS_BETWEEN_YIELDS === 0) await setImmediate();
    const validation = validateReport(schema, sent[index], index);
    // A push holds a hundred reports for as long as its database round trips take: past this
    // point only their JSON text is needed, and what is let go here dies young (cheap to collect)
    // instead of being promoted and collected later at the cost of the whole heap.
    sent[index] = undefined;
    if (!validation.ok) {
      results[index] = validation.rejection;
      continue;
    }
    const report = validation.report as AcceptedReport;
    const items = (report.items ?? []).map((item) => deps.mapper.map(item, client.codeMap));
    const criticalAtReceipt = kind.name === "lab" ? mayRaiseAlert(report, items, new Date()) : undefined;
    const entry: Prepared = {
      index,
      externalId: report.externalId,
      streamId: kind.stream.id(report.externalId),
      patient: report.patient,
      reportJson: validation.json,
      contentHash: validation.contentHash,
      items,
      summary: summarise(items),
      freshMatch: { matched: false, pendingReason: "", idCard: null },
      ...(origins?.[index] ? { origin: origins[index] } : {}),
      ...(criticalAtReceipt !== undefined ? { criticalAtReceipt } : {}),
    };
    prepared.push(entry);
    if (kind.name === "lab" && entry.summary.itemsUnmapped > 0) unmapped.push({ entry, report });
  }
  if (unmapped.length > 0) await mapWithMappings(deps, client, unmapped);
  const registered = await registeredPatients(deps, client.tenant, prepared);
  for (const entry of prepared) entry.freshMatch = matchPatient(entry.patient, registered);
  return { results, prepared };
}

/**
 * Stores checked reports with the writer of the caller's transaction, so that they commit
 * together with whatever else the caller writes there (a bulk job's checkpoint). A report whose
 * stream another writer moved meanwhile throws ConcurrencyConflict: the caller rolls back and
 * checks again, since every outcome of the transaction must hold or none.
 */
export async function storeCheckedReports(
  writer: TransactionWriter,
  tx: Queryable,
  kind: ReportKind,
  client: PushingClient,
  checked: CheckedReports,
  metadata: EventMetadata,
): Promise<PushResult> {
  for (const round of roundsOfDistinctIds(checked.prepared)) {
    const { decisions, appends } = await decideRound(tx, kind, client, round);
    if (appends.length > 0) await writer.appendMany(client.tenant, appends, metadata);
    for (const decision of decisions) checked.results[decision.index] = decision.entry;
  }
  return pushResult(checked.results);
}

/** Checked reports stored in one transaction, every one or none (a FHIR transaction Bundle); a lost race decides them all again. */
export async function storeCheckedReportsAtOnce(
  deps: IngestionDeps,
  kind: ReportKind,
  client: PushingClient,
  checked: CheckedReports,
  metadata: EventMetadata,
): Promise<PushResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.store.transaction((writer, tx) =>
        storeCheckedReports(writer, tx, kind, client, checked, metadata),
      );
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 5)));
    }
  }
}

function pushResult(results: ResultEntry[]): PushResult {
  const rejected = results.filter((entry) => entry.status === "REJECTED").length;
  return { total: results.length, accepted: results.length - rejected, rejected, results };
}

/**
 * The items the dictionary left unmapped, mapped again with the tenant's item mappings for this
 * sender (read once per push, and only for a push that has such items: most have none).
 */
async function mapWithMappings(deps: IngestionDeps, client: PushingClient, unmapped: Unmapped[]): Promise<void> {
  const mappings = await deps.mappingsOf(client.tenant, client.name);
  for (const { entry, report } of unmapped) {
    entry.items = entry.items.map((item, i) =>
      item.stdCode === null ? deps.mapper.map(report.items![i]!, client.codeMap, mappings) : item,
    );
    entry.summary = summarise(entry.items);
    // A mapped item may be one that alerts (a local code for potassium).
    entry.criticalAtReceipt = mayRaiseAlert(report, entry.items, new Date());
  }
}

/** A laboratory report with items the dictionary left unmapped, as validated. */
interface Unmapped {
  entry: Prepared;
  report: AcceptedReport;
}

async function registeredPatients(
  deps: IngestionDeps,
  tenant: string,
  prepared: Prepared[],
): Promise<Map<string, KnownPatient>> {
  const idCards = [...new Set(prepared.map((p) => matchableIdCard(p.patient)).filter((c): c is string => c !== null))];
  const patients = await deps.patientsByIdCards(tenant, idCards);
  return new Map(patients.map((patient) => [patient.idCard, patient]));
}

function roundsOfDistinctIds(prepared: Prepared[]): Prepared[][] {
  const rounds: Prepared[][] = [];
  const seen = new Map<string, number>();
  for (const entry of prepared) {
    const round = seen.get(entry.externalId) ?? 0;
    seen.set(entry.externalId, round + 1);
    (rounds[round] ??= []).push(entry);
  }
  return rounds;
}

async function storeRound(
  deps: IngestionDeps,
  kind: ReportKind,
  client: PushingClient,
  round: Prepared[],
  metadata: EventMetadata,
): Promise<Map<number, AcceptedEntry>> {
  for (let attempt = 1; ; attempt++) {
    const { decisions, appends } = await decideRound(deps.store.db, kind, client, round);
    try {
      if (appends.length > 0) await deps.store.appendMany(client.tenant, appends, metadata);
      return new Map(decisions.map((decision) => [decision.index, decision.entry]));
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict)) throw error;
      // Another push of one of these externalIds got in first: settle the reports one by one.
      if (round.length > 1) {
        const settled = new Map<number, AcceptedEntry>();
        for (const entry of round)
          for (const [index, result] of await storeRound(deps, kind, client, [entry], metadata))
            settled.set(index, result);
        return settled;
      }
      // Each lost race means another push of this report was stored: someone always progresses.
      if (attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 5)));
    }
  }
}

const MAX_ATTEMPTS = 30;

/** Each report of a round decided against its stream as it stands, and the appends that store the decisions. */
async function decideRound(db: Queryable, kind: ReportKind, client: PushingClient, round: Prepared[]) {
  const states = await loadStates(
    db,
    client.tenant,
    round.map((entry) => entry.streamId),
  );
  const decisions = round.map((entry) => decide(kind, entry, states.get(entry.streamId), client));
  const appends: StreamAppend[] = decisions.flatMap((decision) => (decision.append ? [decision.append] : []));
  return { decisions, appends };
}

function decide(
  kind: ReportKind,
  entry: Prepared,
  state: ReportStreamState | undefined,
  client: PushingClient,
): { index: number; entry: AcceptedEntry; append: StreamAppend | null } {
  if (state && state.contentHash === entry.contentHash) {
    const stored = state.claim ? { matched: true as const, patientRef: state.claim.patientRef } : state.match;
    return {
      index: entry.index,
      entry: accepted(entry.externalId, "UNCHANGED", stored ?? entry.freshMatch, state.summary ?? entry.summary),
      append: null,
    };
  }
  const outcome = state ? "UPDATED" : "CREATED";
  // A report claimed by hand stays with that patient through updates that still name the same person.
  const keepClaim =
    !entry.freshMatch.matched && state?.claim && namesClaimedPerson(state.claim.idCard, state.patient, entry.patient);
  const match: Match = keepClaim
    ? { matched: true, patientRef: state!.claim!.patientRef, idCard: entry.freshMatch.idCard, viaClaim: true }
    : entry.freshMatch;
  // Everything of the ReceivedReport but the report, whose JSON was written at validation.
  const rest: Omit<ReceivedReport, "report"> = {
    externalId: entry.externalId,
    contentHash: entry.contentHash,
    outcome,
    match,
    items: entry.items,
    summary: entry.summary,
    client: { clientId: client.clientId, name: client.name },
  };
  return {
    index: entry.index,
    entry: accepted(entry.externalId, outcome, match, entry.summary),
    append: {
      streamId: entry.streamId,
      expectedVersion: state?.version ?? 0,
      events: [{ type: kind.events.received, dataJson: receivedJson(rest, entry.reportJson) }],
      ...ownMetadata(entry),
    },
  };
}

/** What a report's event records besides the push's metadata: how it came, whether it may raise an alert. */
function ownMetadata({ origin, criticalAtReceipt }: Prepared): Pick<StreamAppend, "metadata"> {
  if (!origin && criticalAtReceipt === undefined) return {};
  return {
    metadata: {
      ...(origin ? { origin } : {}),
      ...(criticalAtReceipt !== undefined ? { [CRITICAL_AT_RECEIPT]: criticalAtReceipt } : {}),
    },
  };
}

/** A ReceivedReport's JSON: the report's, written once at validation (it is large), and the rest. */
function receivedJson(rest: Omit<ReceivedReport, "report">, reportJson: string): string {
  return `{"report":${reportJson},${JSON.stringify(rest).slice(1)}`;
}

function accepted(
  externalId: string,
  status: Outcome,
  match: { matched: boolean; patientRef?: string; pendingReason?: string },
  summary: ReceivedReport["summary"],
): AcceptedEntry {
  return {
    externalId,
    status,
    matched: match.matched,
    ...(match.matched ? { patientRef: match.patientRef } : {}),
    itemsMapped: summary.itemsMapped,
    itemsUnmapped: summary.itemsUnmapped,
    ...(!match.matched && match.pendingReason ? { pendingReason: match.pendingReason } : {}),
  };
}

/**
 * Each stream's state (reportStreamState.ts) for a whole batch in one query: the fold is the one
 * every report stream has, fed with only the fields it reads. Each payload is read once ("offset
 * 0" keeps the planner from inlining `data->…` into every expression, which would decompress a
 * received report each time). The ids are looked up one by one (lateral): with
 * `stream_id = any(…)` the planner may scan every event of the tenant instead, which it did while
 * the table grew faster than its statistics.
 */
async function loadStates(db: Queryable, tenant: string, streamIds: string[]): Promise<Map<string, ReportStreamState>> {
  const { rows } = await db.query<{ stream_id: string; events: FoldedReportEvent[] }>(
    `select s.stream_id, st.events
     from unnest($2::text[]) as s(stream_id)
     cross join lateral (
       select jsonb_agg(jsonb_build_object('type', e.type, 'streamVersion', e.stream_version, 'data', p.folded) order by e.stream_version) as events
       from events e
       cross join lateral (
         select jsonb_build_object('contentHash', d->'contentHash', 'match', d->'match', 'summary', d->'summary',
           'report', jsonb_build_object('patient', d->'report'->'patient'),
                                   'patientRef', d->'patientRef', 'idCard', d->'idCard') as folded
         from (select e.data as d offset 0) payload offset 0
       ) p
       where e.tenant = $1 and e.stream_id = s.stream_id
     ) st
     where st.events is not null`,
    [tenant, streamIds],
  );
  return new Map(rows.map((row) => [row.stream_id, row.events.reduce(evolveReportStream, initialReportStreamState())]));
}
