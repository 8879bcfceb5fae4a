import { ConcurrencyConflict, type EventStore, type StreamAppend } from "../../db/eventStore.ts";
import { accessStreams, type AccessRecord, type PatientRecordsShown } from "./events.ts";

/** One access record on its way into the store: its tenant and the id its stream is named by. */
export interface AccessRecordToWrite {
  tenant: string;
  /** Chosen when the answer was given, so that a write retried after an unknown outcome cannot record it twice. */
  recordId: string;
  record: AccessRecord;
}

const WRITER = { actor: "access-log" };

/**
 * Appends access records, each as a new stream of one event: one multi-row insert per tenant, all
 * in one transaction. A batch retried after its commit went unconfirmed (the connection was lost
 * on the way back) finds some streams already written: those are left out and the rest appended.
 */
export async function appendAccessRecords(store: EventStore, records: readonly AccessRecordToWrite[]): Promise<void> {
  let pending = [...records];
  for (let attempt = 0; pending.length > 0; attempt++) {
    try {
      await appendOnce(store, pending);
      return;
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) || attempt > 0) throw error;
      const written = await alreadyWritten(store, pending);
      pending = pending.filter((entry) => !written.has(accessStreams.id(entry.recordId)));
    }
  }
}

function byTenant(records: readonly AccessRecordToWrite[]): Map<string, StreamAppend[]> {
  const grouped = new Map<string, StreamAppend[]>();
  for (const { tenant, recordId, record } of records) {
    const event: PatientRecordsShown = { type: "PatientRecordsShown", data: record };
    const appends = grouped.get(tenant) ?? [];
    // Each record's own actor and request, as every event carries them (the call's metadata is the writer's).
    appends.push({
      streamId: accessStreams.id(recordId),
      expectedVersion: 0,
      events: [event],
      metadata: { actor: record.who, requestId: record.requestId },
    });
    grouped.set(tenant, appends);
  }
  return grouped;
}

async function appendOnce(store: EventStore, records: readonly AccessRecordToWrite[]): Promise<void> {
  const grouped = [...byTenant(records)];
  if (grouped.length === 1) {
    const [tenant, appends] = grouped[0]!;
    await store.appendMany(tenant, appends, WRITER);
    return;
  }
  await store.transaction(async (writer) => {
    for (const [tenant, appends] of grouped) await writer.appendMany(tenant, appends, WRITER);
  });
}

/** The streams of these records that the store holds already. */
async function alreadyWritten(store: EventStore, records: readonly AccessRecordToWrite[]): Promise<Set<string>> {
  const { rows } = await store.db.query<{ stream_id: string }>(
    "select e.stream_id from events e join unnest($1::text[], $2::text[]) as r(tenant, stream_id) using (tenant, stream_id)",
    [records.map((entry) => entry.tenant), records.map((entry) => accessStreams.id(entry.recordId))],
  );
  return new Set(rows.map((row) => row.stream_id));
}
