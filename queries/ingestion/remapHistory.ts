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
      let mapped = false;
      owners = owners.map((owner, i) => {
        if (owner !== null || best(i) !== moment.mappingId) return owner;
        mapped = true;
        return moment.mappingId;
      });
      if (mapped)
        entries.push({
          position: moment.place.position,
          at: moment.at,
          by: life.added.by,
          mappingId: moment.mappingId,
          stdCode: life.rule.stdCode,
        });
    } else {
      const { rule, removed } = moment.life;
      inForce.delete(rule.mappingId);
      const outcomes = new Set<string | null>();
      owners = owners.map((owner, i) => {
        if (owner !== rule.mappingId) return owner;
        const taker = best(i);
        outcomes.add(taker === null ? null : inForce.get(taker)!.rule.stdCode);
        return taker;
      });
      for (const stdCode of outcomes)
        entries.push({
          position: moment.place.position,
          at: removed!.at,
          by: removed!.by,
          mappingId: rule.mappingId,
          stdCode,
        });
    }
  }
  return entries;
}
