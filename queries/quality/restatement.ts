import { z } from "zod";
import { patientStreams, type PatientEvent } from "../../commands/patients/events.ts";
import { EVENT_COLUMNS, toStoredEvent, type Queryable } from "../../db/eventStore.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import type { MonthClose } from "./closedMonths.ts";
import type { IndicatorInForce } from "./indicators.ts";
import type { MonthScope } from "./monthFacts.ts";
import { monthBefore, placeSchema, type IndicatorFigures, type Place } from "./monthFigures.ts";
import { liveMonth } from "./months.ts";

/*
 * Contract G.2's restatement: a closed month's figures as closed beside the same month counted
 * now, each patient whose place changed, and the events recorded after the close that moved them
 * (kept by the quality_months projection as moves, projections/quality/monthMoves.ts), with the
 * patient's move to or from the ward and the release that changed an indicator's version.
 */

const countedSchema = z.object({
  version: z
    .int()
    .nullable()
    .meta({ description: "The indicator's version counted by; null: the indicator was not in force" }),
  numerator: z.int(),
  denominator: z.int(),
  rate: z.number().nullable().meta({ description: "0–1, 4 decimals; null when the denominator is 0" }),
});

export const becauseSchema = z.object({
  event: z.string().meta({
    description:
      "The event's type: LabReportReceived (a late result or a corrected report), LabReportClaimed, ItemMappingAdded, ItemMappingRemoved, DictionaryReleased, PatientUpdated (moved to or from the ward)",
    example: "LabReportReceived",
  }),
  externalId: z
    .string()
    .optional()
    .meta({ description: "The report's externalId, for a report's event", example: "L-2026-1104" }),
  at: localIsoDateTimeText.meta({ description: "When it was recorded (local yyyy-MM-ddTHH:mm:ss)" }),
});
export type Because = z.infer<typeof becauseSchema>;

export const restatementAnswerSchema = z.object({
  month: z.string().meta({ example: "2026-10" }),
  ward: z.string().nullable(),
  closedAt: localIsoDateTimeText,
  closedBy: z.string(),
  indicators: z.array(
    z.object({
      code: z.string(),
      closed: countedSchema.meta({ description: "As closed, frozen" }),
      now: countedSchema.meta({ description: "Counted from what is known now, by the indicators in force" }),
      changes: z.array(
        z.object({
          patientRef: z.string(),
          closed: placeSchema.nullable().meta({ description: "The patient's place as closed; null: not counted then" }),
          now: placeSchema.nullable().meta({ description: "Their place now; null: not counted now" }),
          because: z.array(becauseSchema).meta({
            description: "The events recorded after the close that moved the patient, oldest first",
          }),
        }),
      ),
    }),
  ),
});
export type RestatementAnswer = z.infer<typeof restatementAnswerSchema>;

/** A move as read.quality_moves keeps it. */
interface Move {
  patientRef: string | null;
  month: string;
  stdCode: string;
  change: "came" | "changed" | "went";
  position: number;
  event: string;
  externalId: string | null;
  at: Date;
}

/** An event that moved a patient, with its place in the store to order and tell them apart. */
type Reason = Because & { position: number };

/**
 * The restatement of a closed month (of `scope`'s ward, or the whole tenant). `db` reads the
 * patients' streams, for a move to or from the ward after the close.
 */
export async function restateMonth(
  reader: TenantReader,
  db: Queryable,
  tenant: string,
  close: MonthClose,
  scope: MonthScope,
): Promise<RestatementAnswer> {
  const live = await liveMonth(reader, scope);
  const after = close.data.position ?? 0;
  const lookback = Math.max(1, ...live.indicators.map((indicator) => indicator.windowMonths));
  const moves = byPatient(await movesAfter(reader, scope.month, lookback, after));
  const codes = [
    ...new Set([...live.figures.map((figures) => figures.code), ...close.data.indicators.map(({ code }) => code)]),
  ];
  const rows = codes.map((code) => {
    const closed = close.data.indicators.find((figures) => figures.code === code);
    const now = live.figures.find((figures) => figures.code === code);
    const indicator = live.indicators.find((entry) => entry.code === code);
    const changed = placeChanges(closed, now);
    return { code, closed, now, indicator, changed };
  });
  const changedPatients = [...new Set(rows.flatMap((row) => row.changed.map((change) => change.patientRef)))];
  const wardMoves =
    scope.ward === null ? new Map<string, Reason[]>() : await wardMovesAfter(db, tenant, changedPatients, after);
  return {
    month: close.data.month,
    ward: close.data.ward,
    closedAt: localIsoDateTime(close.recordedAt),
    closedBy: close.data.closedBy,
    indicators: rows.map(({ code, closed, now, indicator, changed }) => ({
      code,
      closed: counted(closed),
      now: counted(now),
      changes: changed.map((change) => ({
        ...change,
        because: reasons([
          ...movedBy(moves, change.patientRef, scope.month, indicator),
          ...(wardMoves.get(change.patientRef) ?? []),
          ...releasedSince(indicator, closed, after),
        ]),
      })),
    })),
  };
}

function counted(figures: Pick<IndicatorFigures, "version" | "numerator" | "denominator" | "rate"> | undefined) {
  return figures
    ? { version: figures.version, numerator: figures.numerator, denominator: figures.denominator, rate: figures.rate }
    : { version: null, numerator: 0, denominator: 0, rate: null };
}

/** Each patient whose place differs between the figures as closed and now, by patientRef. */
function placeChanges(
  closed: Pick<IndicatorFigures, "patients"> | undefined,
  now: Pick<IndicatorFigures, "patients"> | undefined,
): Array<{ patientRef: string; closed: Place | null; now: Place | null }> {
  const placesOf = (figures: Pick<IndicatorFigures, "patients"> | undefined) => {
    const places = new Map<string, Place>();
    if (figures)
      for (const place of placeSchema.options) for (const ref of figures.patients[place]) places.set(ref, place);
    return places;
  };
  const before = placesOf(closed);
  const after = placesOf(now);
  return [...new Set([...before.keys(), ...after.keys()])]
    .sort()
    .map((patientRef) => ({ patientRef, closed: before.get(patientRef) ?? null, now: after.get(patientRef) ?? null }))
    .filter((change) => change.closed !== change.now);
}

/** The moves of the month and of the months before it its indicators look at, recorded after `position`. */
async function movesAfter(reader: TenantReader, month: string, lookback: number, position: number): Promise<Move[]> {
  const { rows } = await reader.query<Move>(
    `select patient_ref as "patientRef", to_char(month, 'YYYY-MM') as month, std_code as "stdCode", change, position::float8 as position,
            event_type as event, external_id as "externalId", at
     from read.quality_moves
     where month between $1::date and $2::date and position > $3
     order by position`,
    [`${monthBefore(month, lookback - 1)}-01`, `${month}-01`, position],
  );
  return rows;
}

/** The moves by patient (null: of every patient), so that each changed place looks at its own patient's alone. */
function byPatient(moves: readonly Move[]): ReadonlyMap<string | null, readonly Move[]> {
  const grouped = new Map<string | null, Move[]>();
  for (const move of moves) grouped.set(move.patientRef, [...(grouped.get(move.patientRef) ?? []), move]);
  return grouped;
}

/**
 * The moves that can have changed a patient's place in an indicator: of their being under care in
 * the month; of their last value of one of its items (a target: in the month, any change; a tested
 * indicator: in its window, a value that came or went); or of an event whose effect was not kept
 * item by item ('*', of the patient or of every patient).
 */
function movedBy(
  moves: ReadonlyMap<string | null, readonly Move[]>,
  patientRef: string,
  month: string,
  indicator: IndicatorInForce | undefined,
): Reason[] {
  const window = new Set(Array.from({ length: indicator?.windowMonths ?? 1 }, (_, back) => monthBefore(month, back)));
  const ofItem = (move: Move) =>
    indicator !== undefined &&
    indicator.items.includes(move.stdCode) &&
    window.has(move.month) &&
    (indicator.kind === "target" || move.change !== "changed");
  return [...(moves.get(patientRef) ?? []), ...(moves.get(null) ?? [])]
    .filter((move) => (move.stdCode === "" && move.month === month) || move.stdCode === "*" || ofItem(move))
    .map((move) => ({
      event: move.event,
      ...(move.externalId === null ? {} : { externalId: move.externalId }),
      at: localIsoDateTime(move.at),
      position: move.position,
    }));
}

/** The release that put an indicator's present version in force, when the month was closed by another. */
function releasedSince(
  indicator: IndicatorInForce | undefined,
  closed: Pick<IndicatorFigures, "version"> | undefined,
  after: number,
): Reason[] {
  if (!indicator || closed?.version === indicator.version || indicator.released.position <= after) return [];
  return [
    { event: "DictionaryReleased", at: localIsoDateTime(indicator.released.at), position: indicator.released.position },
  ];
}

/**
 * The patients' moves to or from another ward after `position`: each event of theirs that changed
 * their ward. Their streams are read in one statement: a restatement may name every patient of a ward.
 */
async function wardMovesAfter(
  db: Queryable,
  tenant: string,
  patientRefs: readonly string[],
  position: number,
): Promise<Map<string, Reason[]>> {
  const moved = new Map<string, Reason[]>();
  if (patientRefs.length === 0) return moved;
  const { rows } = await db.query(
    `select ${EVENT_COLUMNS} from events where tenant = $1 and stream_id = any($2::text[]) order by stream_id, stream_version`,
    [tenant, patientRefs.map((patientRef) => patientStreams.id(patientRef))],
  );
  const wards = new Map<string, string | null | undefined>();
  for (const row of rows) {
    const event = toStoredEvent<PatientEvent>(row);
    const patientRef = patientStreams.key(event.streamId);
    const ward = wards.get(patientRef);
    if (event.position > position && ward !== undefined && event.data.ward !== ward)
      moved.set(patientRef, [
        ...(moved.get(patientRef) ?? []),
        { event: event.type, at: localIsoDateTime(event.recordedAt), position: event.position },
      ]);
    wards.set(patientRef, event.data.ward);
  }
  return moved;
}

/** The reasons each once (an event is a move of several items), oldest first, as answered. */
function reasons(found: readonly Reason[]): Because[] {
  const unique = new Map<number, Reason>();
  for (const reason of found) if (!unique.has(reason.position)) unique.set(reason.position, reason);
  return [...unique.values()]
    .sort((a, b) => a.position - b.position)
    .map(({ position: _position, ...because }) => because);
}
