import { readStream, type EventStore, type LoadedStream, type StreamAppend } from "../../db/eventStore.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import type { IdentifierHasher } from "../kit/identifierHasher.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import { idCardStreamId, patientStreams, type IdCardEvent } from "./events.ts";
import { patientDecider, type RegisterPatient } from "./registerPatient.ts";

export interface PatientSaved {
  patientRef: string;
  created: boolean;
  changed: boolean;
}

/**
 * The tenant's registered patients holding these (normalised) id cards, from the patients read
 * model. The wiring (src/patients/registeredPatients.ts) gives it to the commands that need it,
 * since commands know no read side: saving a patient (patients registered before id cards had
 * streams are known there only) and the push, which matches reports against them.
 */
export type PatientsByIdCards = (
  tenant: string,
  idCards: readonly string[],
) => Promise<Array<{ patientRef: string; name: string; idCard: string }>>;

/**
 * Whether the caller of the request under way may see this patient (their ward scope, contract
 * E.2). A refusal names a patient only when it does (issue #51 finding 5).
 */
export type PatientVisibleToCaller = (tenant: string, patientRef: string) => Promise<boolean>;

/** What saving a patient needs of the wiring: who holds id cards (the read model), whom the caller sees, and the hasher that names an id card's stream. */
export interface IdCardRegister {
  holders: PatientsByIdCards;
  visible: PatientVisibleToCaller;
  hasher: IdentifierHasher;
}

/*
 * One identity number belongs to one patient of a tenant: a second patient with the same number
 * would make report matching ambiguous. A check of the patients table alone let two registrations
 * made at the same moment both pass, so each number has a stream of its own that says who holds
 * it, written in the same append as the patient's event (handleCommand's `alongside`): of two
 * writers, the store lets exactly one through (the other's expected version is stale) and the
 * other, deciding again, sees the holder.
 */
function holderOf(stream: LoadedStream<IdCardEvent>): string | null {
  const last = stream.events.at(-1);
  return last?.type === "PatientIdCardTaken" ? last.data.patientRef : null;
}

/** How long a registration waits for the patients read model to have it. */
const PATIENT_READ_WAIT_MS = 15_000;

/** Registers or updates a dialysis patient. */
export async function savePatient(
  ctx: CommandContext,
  register: IdCardRegister,
  tenant: string,
  patientRef: string,
  input: RegisterPatient,
): Promise<PatientSaved> {
  const { appended, state } = await handleCommand(
    ctx.store,
    { tenant, streamId: patientStreams.id(patientRef) },
    patientDecider,
    input,
    ctx.metadata,
    {
      alongside: (events, before) =>
        idCardAppends(ctx.store, register, tenant, patientRef, events[0]!.data.idCard, before?.idCard ?? null),
    },
  );
  // The next push must match against this patient, and the answer shows it as registered: wait
  // until the read model has it, longer than a read's usual wait, as a process just started on a
  // busy machine may take seconds to apply its first events (the answer was an empty 204 then).
  if (appended) await ctx.caughtUp("patients", appended.last, PATIENT_READ_WAIT_MS);
  return { patientRef, created: state === null, changed: appended !== null };
}

/** Takes the patient's id card (refused when another patient holds it) and frees the one it had before. */
async function idCardAppends(
  store: EventStore,
  register: IdCardRegister,
  tenant: string,
  patientRef: string,
  idCard: string,
  before: string | null,
): Promise<StreamAppend[]> {
  const streamOf = (card: string) => idCardStreamId(register.hasher, card);
  const taken = await readStream<IdCardEvent>(store.db, tenant, streamOf(idCard));
  const holder = holderOf(taken);
  const other =
    holder === null
      ? await registeredElsewhere(register.holders, tenant, idCard, patientRef)
      : holder === patientRef
        ? null
        : holder;
  if (other) throw await idCardTaken(register, tenant, other);
  const appends: StreamAppend[] = [];
  if (holder !== patientRef)
    appends.push({ streamId: streamOf(idCard), expectedVersion: taken.version, events: [took(patientRef)] });
  if (before !== null && before !== idCard) {
    const freed = await readStream<IdCardEvent>(store.db, tenant, streamOf(before));
    if (holderOf(freed) === patientRef)
      appends.push({ streamId: streamOf(before), expectedVersion: freed.version, events: [gaveUp(patientRef)] });
  }
  return appends;
}

/**
 * One number is one patient's, so the card is refused whoever holds it; but the holder is named only
 * to a caller who may see them. For a caller limited to other wards the refusal says no more than
 * that the number is taken: otherwise registering any number would tell whose it is (an oracle).
 */
async function idCardTaken(register: IdCardRegister, tenant: string, holder: string): Promise<CommandError> {
  if (await register.visible(tenant, holder))
    return new CommandError(
      "conflict",
      `idCard is already registered to patient ${holder}; update that patient instead.`,
      "id-card-taken",
    );
  return new CommandError(
    "conflict",
    "idCard is already registered to another patient, of a ward outside yours; one number is one patient's, so " +
      "check the number, or ask someone who acts on every ward to update or move that patient.",
    "id-card-taken-outside-wards",
  );
}

const took = (patientRef: string): IdCardEvent => ({ type: "PatientIdCardTaken", data: { patientRef } });
const gaveUp = (patientRef: string): IdCardEvent => ({ type: "PatientIdCardFreed", data: { patientRef } });

async function registeredElsewhere(
  registered: PatientsByIdCards,
  tenant: string,
  idCard: string,
  patientRef: string,
): Promise<string | null> {
  return (await registered(tenant, [idCard])).find((holder) => holder.patientRef !== patientRef)?.patientRef ?? null;
}
