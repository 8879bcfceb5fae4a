import { qualityMonthStreams, type QualityMonthClosed, type QualityMonthEvent } from "../../commands/quality/events.ts";
import { readStream, type Queryable, type StoredEvent } from "../../db/eventStore.ts";
import { localIsoDateTime } from "../../db/localDateTime.ts";
import type { MonthAnswer } from "./months.ts";

/*
 * The closes of a month (contract G.2), read from its stream in the store: the frozen figures
 * are the event's own, never counted again, so nothing a later result, correction, claim, mapping
 * or release does can change them.
 */

export type MonthClose = StoredEvent<QualityMonthClosed>;

/** The closes of a tenant's month, by ward ("" for the whole tenant). */
export async function closesOf(db: Queryable, tenant: string, month: string): Promise<Map<string, MonthClose>> {
  const { events } = await readStream<QualityMonthEvent>(db, tenant, qualityMonthStreams.id(month));
  return new Map(events.map((event) => [event.data.ward ?? "", event]));
}

/** The close of a month of a ward (null: of the whole tenant), if it was closed. */
export async function closeOf(
  db: Queryable,
  tenant: string,
  month: string,
  ward: string | null,
): Promise<MonthClose | undefined> {
  return (await closesOf(db, tenant, month)).get(ward ?? "");
}

/** A closed month as `GET /api/quality/months/{yyyy-MM}` answers it: the figures as frozen. */
export function closedAnswer(close: MonthClose): MonthAnswer {
  const { month, ward, closedBy, indicators } = close.data;
  return {
    month,
    ward,
    state: "closed",
    closedAt: localIsoDateTime(close.recordedAt),
    closedBy,
    indicators: indicators.map(({ code, version, numerator, denominator, rate, patients }) => ({
      code,
      version,
      numerator,
      denominator,
      rate,
      patients: { met: [...patients.met], notMet: [...patients.notMet], untested: [...patients.untested] },
    })),
  };
}

/** The store's last event in the order projections apply them: what a close waits for its projection to reach. */
export async function storeHeadCheckpoint(db: Queryable): Promise<{ transactionId: string; position: number } | null> {
  const { rows } = await db.query<{ transaction_id: string; position: string }>(
    "select transaction_id::text, position from events order by transaction_id desc, position desc limit 1",
  );
  return rows[0] ? { transactionId: rows[0].transaction_id, position: Number(rows[0].position) } : null;
}
