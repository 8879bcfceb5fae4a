import { ConcurrencyConflict, readStream, type EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { DICTIONARY_STREAM, SHARED_TENANT, type DictionaryEvent } from "./events.ts";

/**
 * Records in the event store which dictionary was in force from when, whole (unit conversions
 * included), so that what a report was mapped and converted with can be proven later. Nothing is
 * appended when this version is recorded already.
 */
export async function recordDictionaryRelease(store: EventStore, dictionary: Dictionary, version: string): Promise<boolean> {
  const stream = await readStream<DictionaryEvent>(store.db, SHARED_TENANT, DICTIONARY_STREAM);
  if (stream.events.at(-1)?.data.version === version) return false;
  const released: DictionaryEvent = { type: "DictionaryReleased", data: { version, items: dictionary.items, examTypes: dictionary.examTypes } };
  try {
    await store.append({ tenant: SHARED_TENANT, streamId: DICTIONARY_STREAM, expectedVersion: stream.version, events: [released], metadata: { actor: "system" } });
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return false; // another process recorded it at the same moment
    throw error;
  }
}
