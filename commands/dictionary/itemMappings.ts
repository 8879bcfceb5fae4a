import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { LARGEST_FACTOR, SMALLEST_FACTOR } from "../../db/numberBounds.ts";
import type { AppendResult, EventMetadata, StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { ItemMapper } from "../ingestion/itemMapping.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand, handleCommandInTransaction, type Decider } from "../kit/handleCommand.ts";
import {
  itemMappingStreams,
  type ItemMappingAddedData,
  type ItemMappingEvent,
  type ItemMappingRule,
  type MappedUnit,
} from "./events.ts";

/*
 * Contract F.1: staff map a sender's item that no dictionary entry matched to a standard item,
 * once; from then on pushes map it (itemMapping.ts, after the dictionary), and the results stored
 * before are re-mapped by the read models. Undone the same way.
 */

const key = (name: string, max: number) =>
  z
    .string({ error: `${name}, when sent, is a text` })
    .trim()
    .min(1, `${name}, when sent, is not empty`)
    .max(max, `${name} has at most ${max} characters`);

/** The keys of a mapping: which sent items it is for. */
const keyFields = {
  client: key("client", 100).optional().meta({
    description: "The sender's name as GET /api/dictionary/unmapped lists it; every sender of the tenant when left out",
    example: "Central lab LIS",
  }),
  itemCode: key("itemCode", 64)
    .optional()
    .meta({ description: "The item's code as sent (compared trimmed, exactly)", example: "L-UREA" }),
  itemName: key("itemName", 200)
    .optional()
    .meta({ description: "The item's name as sent (compared trimmed, exactly)", example: "本院尿素" }),
  unit: key("unit", 32).optional().meta({
    description: "The unit as sent that the mapping is for; results sent in any unit when left out",
    example: "mg/dL",
  }),
};
const codeOrName = {
  check: (input: { itemCode?: string; itemName?: string }) =>
    input.itemCode !== undefined || input.itemName !== undefined,
  message: "Send itemCode or itemName (or both), as GET /api/dictionary/unmapped lists the item",
};

/** `POST /api/dictionary/mappings/preview`: the keys alone. */
export const mappingKeysInput = z
  .strictObject(keyFields, {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? "Send { client?, itemCode?, itemName?, unit? }" : undefined,
  })
  .refine(codeOrName.check, { message: codeOrName.message });

/** A mapping's keys as the rules hold them: a key left out is null (it matches anything). */
export function mappingKeysOf(
  input: z.infer<typeof mappingKeysInput>,
): Pick<ItemMappingRule, "client" | "itemCode" | "itemName" | "unit"> {
  return {
    client: input.client ?? null,
    itemCode: input.itemCode ?? null,
    itemName: input.itemName ?? null,
    unit: input.unit ?? null,
  };
}

/** `POST /api/dictionary/mappings`. */
export const mappingInput = z
  .strictObject(
    {
      ...keyFields,
      stdCode: z
        .string({ error: "stdCode is required: the standard item's code (GET /api/dictionary/lab-items lists them)" })
        .trim()
        .min(1, "stdCode is required: the standard item's code (GET /api/dictionary/lab-items lists them)")
        .meta({ example: "UREA_PRE" }),
      factor: z
        .number({ error: "factor is a number: the standard value is the sent value times it" })
        .positive("factor is a number greater than 0")
        .refine(Number.isFinite, "factor is a finite number")
        .refine(
          (factor) => factor >= SMALLEST_FACTOR && factor <= LARGEST_FACTOR,
          "factor lies between 0.000000001 (1e-9) and 1000000000 (1e9); a unit conversion needs no more",
        )
        .optional()
        .meta({
          description:
            "For a unit neither the dictionary nor UCUM converts: the standard value is the sent value times factor",
          example: 0.357,
        }),
      reason: z
        .string({ error: "reason is a text" })
        .trim()
        .max(500, "reason has at most 500 characters")
        .optional()
        .meta({ description: "Why (kept with the mapping)", example: "The lab's in-house code for pre-dialysis urea" }),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? "Send { client?, itemCode?, itemName?, stdCode, unit?, factor?, reason? }"
          : undefined,
    },
  )
  .refine(codeOrName.check, { message: codeOrName.message });
export type MappingInput = z.infer<typeof mappingInput>;

/** `DELETE /api/dictionary/mappings/{mappingId}`: an optional reason. */
export const unmappingInput = z.strictObject(
  { reason: z.string({ error: "reason is a text" }).trim().max(500, "reason has at most 500 characters").optional() },
  { error: (issue) => (issue.code === "unrecognized_keys" ? "Send { reason? } or no body" : undefined) },
);

/** The stream of a mapping's keys: one mapping in force per sender, code, name and unit. */
export function mappingStreamOf(keys: Pick<ItemMappingRule, "client" | "itemCode" | "itemName" | "unit">): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([keys.client, keys.itemCode, keys.itemName, keys.unit]), "utf8")
    .digest("hex");
  return itemMappingStreams.id(digest.slice(0, 32));
}

/** The mapping in force on a key's stream, and where the re-mapping steps of it taken so far began (a step is taken once). */
type MappingState = { inForce: ItemMappingAddedData | null; stepsFrom: Array<string | null> };
type RemapStep = Extract<ItemMappingEvent, { type: "ItemMappingApplied" }>["data"];
type MappingCommand =
  | { type: "add"; mapping: ItemMappingAddedData }
  | { type: "remove"; mappingId: string; reason: string | null }
  | { type: "apply"; step: RemapStep };

const mappingDecider: Decider<MappingState, MappingCommand, ItemMappingEvent> = {
  initialState: () => ({ inForce: null, stepsFrom: [] }),
  evolve: (state, event: StoredEvent<ItemMappingEvent>) => {
    if (event.type === "ItemMappingApplied") return { ...state, stepsFrom: [...state.stepsFrom, event.data.after] };
    return { inForce: event.type === "ItemMappingAdded" ? event.data : null, stepsFrom: [] };
  },
  decide: (command, { inForce, stepsFrom }) => {
    if (command.type === "add") {
      if (inForce) {
        throw new CommandError(
          "conflict",
          `This item already has a mapping in force, to ${inForce.stdCode} (mappingId ${inForce.mappingId}); ` +
            `undo it first with DELETE /api/dictionary/mappings/${inForce.mappingId}.`,
          "mapping-exists",
        );
      }
      return [{ type: "ItemMappingAdded", data: command.mapping }];
    }
    // A step of a mapping undone (or replaced) meanwhile is not taken: the undoing covers its results.
    if (command.type === "apply") {
      const current = inForce?.mappingId === command.step.mappingId && !stepsFrom.includes(command.step.after);
      return current ? [{ type: "ItemMappingApplied", data: command.step }] : [];
    }
    // Undone already: nothing more to do, and no error (a second click).
    if (inForce?.mappingId !== command.mappingId) return [];
    return [{ type: "ItemMappingRemoved", data: { mappingId: command.mappingId, reason: command.reason } }];
  },
};

/** What making a mapping needs besides its input: the dictionary's mapper, and the units its item was sent in so far. */
export interface MappingChecks {
  mapper: ItemMapper;
  /** Whether the tenant has a client of this name. */
  clientExists(name: string): Promise<boolean>;
  /** The stored unmapped results the mapping matches: how many, and the units they were sent in. */
  resultsSeen(
    keys: Pick<ItemMappingRule, "client" | "itemCode" | "itemName" | "unit">,
  ): Promise<{ results: number; units: string[] }>;
}

/** Records a mapping (contract F.1) and answers its id and the event's position. */
export async function addItemMapping(
  ctx: CommandContext,
  tenant: string,
  input: MappingInput,
  checks: MappingChecks,
): Promise<{ mappingId: string; appended: AppendResult }> {
  const keys = mappingKeysOf(input);
  const { mapper } = checks;
  const target = mapper.dictionary.items.find((item) => item.code.toLowerCase() === input.stdCode.toLowerCase());
  if (!target)
    throw new CommandError(
      "invalid",
      `stdCode: ${input.stdCode} is not an item of the dictionary; GET /api/dictionary/lab-items lists them.`,
      "mapping-invalid",
    );
  const known = mapper.map({
    itemCode: keys.itemCode ?? undefined,
    itemName: keys.itemName ?? undefined,
    value: 0,
    unit: keys.unit ?? undefined,
  });
  if (known.stdCode !== null) {
    throw new CommandError(
      "invalid",
      `The dictionary maps this item already, to ${known.stdCode}; a mapping is for items it leaves unmapped (a client's code map sends a code elsewhere).`,
      "mapping-invalid",
    );
  }
  const numericWithUnit = target.valueType === "numeric" && target.unit.trim() !== "";
  if (input.factor !== undefined && !numericWithUnit)
    throw new CommandError(
      "invalid",
      `factor: ${target.code} has no unit to convert to; leave factor out.`,
      "mapping-invalid",
    );
  if (keys.client !== null && !(await checks.clientExists(keys.client))) {
    throw new CommandError(
      "invalid",
      `client: no sender of this tenant is named ${keys.client}; use the name GET /api/dictionary/unmapped lists, or leave client out for every sender.`,
      "mapping-invalid",
    );
  }
  const factor = input.factor ?? null;
  const seen = await checks.resultsSeen(keys);
  const units = [...new Set([...(keys.unit !== null ? [keys.unit] : []), ...seen.units.map((unit) => unit.trim())])];
  // A value of an item that is not numeric has no standard value, whatever its unit.
  const conversionOf = (unit: string): Omit<MappedUnit, "unit"> =>
    target.valueType === "numeric"
      ? mapper.unitConversion(target.code, unit, factor)!
      : { unitStatus: "not-applicable", factor: null, offset: 0 };
  // A unit not seen yet: only the mapping's own factor, or none (a unit-less item needs none).
  const otherUnits: Omit<MappedUnit, "unit"> = !numericWithUnit
    ? conversionOf("")
    : factor !== null
      ? { unitStatus: "converted", factor, offset: 0 }
      : { unitStatus: "unknown", factor: null, offset: 0 };
  const mapping: ItemMappingAddedData = {
    mappingId: randomUUID(),
    ...keys,
    stdCode: target.code,
    stdName: target.name,
    category: target.category,
    stdUnit: target.unit,
    factor,
    reason: input.reason || null,
    units: units.map((unit): MappedUnit => ({ unit, ...conversionOf(unit) })),
    otherUnits,
    matched: seen.results,
  };
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: mappingStreamOf(keys) },
    mappingDecider,
    { type: "add", mapping },
    ctx.metadata,
  );
  return { mappingId: mapping.mappingId, appended: appended! };
}

/** Records a step of re-mapping stored results in the reactor's transaction; nothing when the mapping is no longer in force. */
export async function recordRemapStep(
  tx: Tx,
  tenant: string,
  streamId: string,
  step: RemapStep,
  metadata: EventMetadata,
): Promise<boolean> {
  const { appended } = await handleCommandInTransaction(
    tx,
    { tenant, streamId },
    mappingDecider,
    { type: "apply", step },
    metadata,
  );
  return appended !== null;
}

/** Undoes a mapping in force on `streamId` (the read model knows which); null when it was undone already. */
export async function removeItemMapping(
  ctx: CommandContext,
  tenant: string,
  streamId: string,
  mappingId: string,
  reason: string | null,
): Promise<AppendResult | null> {
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId },
    mappingDecider,
    { type: "remove", mappingId, reason },
    ctx.metadata,
  );
  return appended;
}
