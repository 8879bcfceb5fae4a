import type { EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { handleCommand, type Decider } from "../kit/handleCommand.ts";
import { DICTIONARY_STREAM, SHARED_TENANT, type DictionaryEvent } from "./events.ts";

/** The version recorded last, and a release to record unless it is that version. */
const releaseDecider: Decider<string | null, DictionaryEvent, DictionaryEvent> = {
  initialState: () => null,
  evolve: (_, event) => event.data.version,
  decide: (release, recorded) => (recorded === release.data.version ? [] : [release]),
};

/**
 * Records in the event store which dictionary was in force from when, whole (unit conversions
 * included), so that what a report was mapped and converted with can be proven later. Nothing is
 * appended when this version is recorded already, by this process or, at the same moment, another.
 */
export async function recordDictionaryRelease(
  store: EventStore,
  dictionary: Dictionary,
  version: string,
): Promise<boolean> {
  const released: DictionaryEvent = {
    type: "DictionaryReleased",
    data: { version, items: dictionary.items, examTypes: dictionary.examTypes, indicators: dictionary.indicators },
  };
  const { appended } = await handleCommand(
    store,
    { tenant: SHARED_TENANT, streamId: DICTIONARY_STREAM },
    releaseDecider,
    released,
    { actor: "system" },
  );
  return appended !== null;
}
