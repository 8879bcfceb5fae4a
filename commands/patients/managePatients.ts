import { createHash } from "node:crypto";
import { readStream, type EventStore, type LoadedStream, type StreamAppend } from "../../db/eventStore.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { patientsByIdCards } from "../../queries/patients/patients.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import { patientDecider, patientStream, type Patient, type RegisterPatient } from "./registerPatient.ts";

export interface PatientSaved {
  patientRef: string;
  created: boolean;
  changed: boolean;
}

/*
 * One identity number belongs to one patient of a tenant: a second patient with the same number
 * would make report matching ambiguous. A check of the patients table alone let two registrations
 * made at the same moment both pass, so each number has a stream of its own that says who holds
 * it, written in the same append as the patient's event (handleCommand's `alongside`): of two
 * writers, the store lets exactly one through (the other's expected version is stale) and the
 * other, deciding again, sees the holder.
 */
// Named by a hash: a stream id shows in logs and error messages, an id card number must not.
const idCardStream = (idCard: string) => `patient-id-card:${createHash("sha256").update(idCard).digest("hex").slice(0, 32)}`;
const TAKEN = "PatientIdCardTaken";
const FREED = "PatientIdCardFreed";

function holderOf(stream: LoadedStream): string | null {
  const last = stream.events.at(-1);
  return last?.type === TAKEN ? (last.data as { patientRef: string }).patientRef : null;
}

/** Registers or updates a dialysis patient. */
export async function savePatient(ctx: CommandContext, db: Db, tenant: string, patientRef: string, input: RegisterPatient): Promise<PatientSaved> {
  const { appended, state } = await handleCommand(ctx.store, { tenant, streamId: patientStream(patientRef) }, patientDecider, input, ctx.metadata, {
    alongside: (events, before) => idCardAppends(ctx.store, db, tenant, patientRef, (events[0]!.data as Patient).idCard, before?.idCard ?? null),
  });
  // The next push must match against this patient: wait until the read model has it.
  if (appended) await ctx.caughtUp("patients", appended.last);
  return { patientRef, created: state === null, changed: appended !== null };
}

/** Takes the patient's id card (refused when another patient holds it) and frees the one it had before. */
async function idCardAppends(store: EventStore, db: Db, tenant: string, patientRef: string, idCard: string, before: string | null): Promise<StreamAppend[]> {
  const taken = await readStream(store.db, tenant, idCardStream(idCard));
  const holder = holderOf(taken);
  const other = holder === null ? await registeredElsewhere(db, tenant, idCard, patientRef) : holder === patientRef ? null : holder;
  if (other) throw new CommandError("conflict", `idCard is already registered to patient ${other}; update that patient instead.`);
  const appends: StreamAppend[] = [];
  if (holder !== patientRef) appends.push({ streamId: idCardStream(idCard), expectedVersion: taken.version, events: [{ type: TAKEN, data: { patientRef } }] });
  if (before !== null && before !== idCard) {
    const freed = await readStream(store.db, tenant, idCardStream(before));
    if (holderOf(freed) === patientRef) appends.push({ streamId: idCardStream(before), expectedVersion: freed.version, events: [{ type: FREED, data: { patientRef } }] });
  }
  return appends;
}

/** Patients registered before id cards had streams are known from the patients table only. */
async function registeredElsewhere(db: Db, tenant: string, idCard: string, patientRef: string): Promise<string | null> {
  const holders = await readAsTenant(db, tenant, (reader) => patientsByIdCards(reader, [idCard]));
  return holders.find((holder) => holder.patientRef !== patientRef)?.patientRef ?? null;
}
