import type { ReceivedReport } from "../../commands/ingestion/events.ts";
import type { NewEvent, StoredEvent } from "../../db/eventStore.ts";

/**
 * Splits a batch into runs of one bulk type (applied set-based, a few statements per run) and
 * the other events (applied one at a time), keeping their order.
 */
export async function inRuns<E extends NewEvent>(
  events: StoredEvent<E>[],
  bulkType: E["type"],
  onRun: (run: StoredEvent<E>[]) => Promise<void>,
  onOther: (event: StoredEvent<E>) => Promise<void>,
): Promise<void> {
  let run: StoredEvent<E>[] = [];
  for (const event of events) {
    if (event.type === bulkType) {
      run.push(event);
      continue;
    }
    if (run.length) await onRun(run);
    run = [];
    await onOther(event);
  }
  if (run.length) await onRun(run);
}

/** Within one run, only the last event of each report matters: a later push overwrites wholly. */
export function lastPerStream<E extends NewEvent>(events: StoredEvent<E>[]): StoredEvent<E>[] {
  const last = new Map<string, StoredEvent<E>>();
  for (const event of events) last.set(`${event.tenant}\u0000${event.streamId}`, event);
  return [...last.values()];
}

/** The columns every received report shares: who it is about, and whether it is matched. */
export function patientColumns(received: ReceivedReport) {
  const { match, report } = received;
  return {
    patient_ref: match.matched ? match.patientRef : null,
    matched: match.matched,
    pending_reason: match.matched ? null : match.pendingReason,
    id_card: match.idCard ?? report.patient.idCard ?? null,
    patient_name: report.patient.name ?? null,
    his_patient_id: report.patient.hisPatientId ?? null,
  };
}
