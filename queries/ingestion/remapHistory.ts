import { senderMappings } from "../../commands/dictionary/events.ts";
import type { ReceivedReport } from "../../commands/ingestion/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { FeedPlace, MappingLife, MappingTimeline } from "../dictionary/itemMappings.ts";

/*
 * A report's REMAPPED history entries (contract F.1, D.1): when an item mapping re-mapped its
 * results, or undoing one unmapped them. Worked out from events alone, as the history is: the
 * report's received versions, the tenant's mappings and the re-mapping steps that covered the
 * report, replayed in the feed's order with the rules the item rows follow
 * (projections/ingestion/itemRemapping.ts):
 *   - a version's items are as its event mapped them, and an item left unmapped is taken by the
 *     best mapping then in force (a push that read the mappings a moment before it was made);
 *   - a step of mapping X maps the unmapped items X is the best mapping in force for;
 *   - undoing X unmaps the items X mapped, and the best mapping still in force takes them.
 */

export interface RemapEntry {
  position: number;
  at: Date;
  by: string;
  mappingId: string;
  /** The standard item the results were mapped to; null when undoing left them unmapped. */
  stdCode: string | null;
  /** The report's items it re-mapped (or unmapped), as sent, with the standard value each now has. */
  items: RemappedItem[];
}

/** One sent item a REMAPPED entry is about, and what it now counts as (issue #54). */
export interface RemappedItem {
  itemCode: string | null;
  itemName: string | null;
  /** The value and unit as the laboratory sent them. */
  value: number | string | null;
  unit: string | null;
  /** The value in the standard item's unit (six significant digits, as stored); null when it has none. */
  stdValue: number | null;
  /** How `value` became `stdValue` (stdValue = value × factor + offset); null when it was not converted. */
  conversion: { unit: string; factor: number; offset: number } | null;
}

type SentItem = NonNullable<ReceivedReport["report"]["items"]>[number];

/** Six significant digits, as the item rows keep a converted value (projections/ingestion/itemRemapping.ts). */
const sixDigits = (value: number) => (value === 0 ? 0 : Number(value.toPrecision(6)));

/** A sent item as mapping `life` maps it (null: as undoing leaves it, unmapped). */
function remapped(item: SentItem, life: MappingLife | null): RemappedItem {
  const unit = typeof item.unit === "string" ? item.unit : null;
  const sent = {
    itemCode: item.itemCode ?? null,
    itemName: item.itemName ?? null,
    value: typeof item.value === "number" || typeof item.value === "string" ? item.value : null,
    unit,
  };
  if (!life) return { ...sent, stdValue: null, conversion: null };
  const key = (unit ?? "").trim();
  const how = life.units.find((conversion) => conversion.unit === key) ?? life.otherUnits;
  if (typeof item.value !== "number" || !how || how.factor === null)
    return { ...sent, stdValue: null, conversion: null };
  const offset = how.offset ?? 0;
  const unchanged = how.factor === 1 && offset === 0;
  return {
    ...sent,
    stdValue: unchanged ? item.value : sixDigits(item.value * how.factor + offset),
    conversion: unchanged ? null : { unit: key, factor: how.factor, offset },
  };
}

type ReceivedEvent = StoredEvent & { data: ReceivedReport };

type Moment =
  | { place: FeedPlace; kind: "received"; event: ReceivedEvent }
  | { place: FeedPlace; kind: "added"; life: MappingLife }
  | { place: FeedPlace; kind: "removed"; life: MappingLife }
  | { place: FeedPlace; kind: "step"; mappingId: string; at: Date };

const DICTIONARY = "dictionary";
const before = (a: FeedPlace, b: FeedPlace) => (a.tx === b.tx ? a.position - b.position : a.tx < b.tx ? -1 : 1);

export function remapEntries(received: readonly ReceivedEvent[], timeline: MappingTimeline): RemapEntry[] {
  if (timeline.mappings.length === 0) return [];
  const moments: Moment[] = [
    ...received.map((event): Moment => ({
      place: { tx: BigInt(event.transactionId), position: event.position },
      kind: "received",
      event,
    })),
    ...timeline.mappings.flatMap((life): Moment[] => [
      { place: life.added, kind: "added", life },
      ...(life.removed ? [{ place: life.removed, kind: "removed" as const, life }] : []),
    ]),
    ...timeline.steps.map((step): Moment => ({ place: step, kind: "step", mappingId: step.mappingId, at: step.at })),
  ].sort((a, b) => before(a.place, b.place));

  const inForce = new Map<string, MappingLife>();
  const entries: RemapEntry[] = [];
  /** Who mapped each item of the current version: a mapping's id, the dictionary, or nobody. */
  let owners: Array<string | null> = [];
  let sent: NonNullable<ReceivedReport["report"]["items"]> = [];
  let client = "";
  const best = (i: number) =>
    senderMappings(
      [...inForce.values()].map((life) => life.rule),
      client,
    ).find(sent[i]!)?.mappingId ?? null;

  for (const moment of moments) {
    if (moment.kind === "received") {
      const data = moment.event.data;
      sent = data.report.items ?? [];
      client = data.client.name;
      owners = data.items.map((item, i) => (item.stdCode === null ? best(i) : (item.mappingId ?? DICTIONARY)));
    } else if (moment.kind === "added") {
      inForce.set(moment.life.rule.mappingId, moment.life);
    } else if (moment.kind === "step") {
      const life = inForce.get(moment.mappingId);
      if (!life) continue;
      const mapped: RemappedItem[] = [];
      owners = owners.map((owner, i) => {
        if (owner !== null || best(i) !== moment.mappingId) return owner;
        mapped.push(remapped(sent[i]!, life));
        return moment.mappingId;
      });
      if (mapped.length > 0)
        entries.push({
          position: moment.place.position,
          at: moment.at,
          by: life.added.by,
          mappingId: moment.mappingId,
          stdCode: life.rule.stdCode,
          items: mapped,
        });
    } else {
      const { rule, removed } = moment.life;
      inForce.delete(rule.mappingId);
      // One entry per standard item the unmapped results went to (another mapping's, or none).
      const outcomes = new Map<string | null, RemappedItem[]>();
      owners = owners.map((owner, i) => {
        if (owner !== rule.mappingId) return owner;
        const taker = best(i);
        const life = taker === null ? null : inForce.get(taker)!;
        const stdCode = life ? life.rule.stdCode : null;
        outcomes.set(stdCode, [...(outcomes.get(stdCode) ?? []), remapped(sent[i]!, life)]);
        return taker;
      });
      for (const [stdCode, items] of outcomes)
        entries.push({
          position: moment.place.position,
          at: removed!.at,
          by: removed!.by,
          mappingId: rule.mappingId,
          stdCode,
          items,
        });
    }
  }
  return entries;
}
