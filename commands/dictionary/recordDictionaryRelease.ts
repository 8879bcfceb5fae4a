import { ConcurrencyConflict, readStream, type EventStore } from "../../db/eventStore.ts";
import type { ServedDictionary } from "../../queries/dictionary.ts";

/** Reference data shared by every tenant lives under this tenant id, which no real tenant can have. */
export const SHARED_TENANT = "*";

/**
 * Records in the event store which dictionary was in force from when, so that what a report was
 * mapped against can be proven later. Nothing is appended when this version is recorded already.
 */
export async function recordDictionaryRelease(store: EventStore, dictionary: ServedDictionary): Promise<boolean> {
  const stream = await readStream(store.db, SHARED_TENANT, "dictionary");
  const last = stream.events.at(-1)?.data as { version?: string } | undefined;
  if (last?.version === dictionary.version) return false;
  try {
    await store.append({
      tenant: SHARED_TENANT,
      streamId: "dictionary",
      expectedVersion: stream.version,
      events: [{ type: "DictionaryReleased", data: { version: dictionary.version, items: dictionary.items, examTypes: dictionary.examTypes } }],
      metadata: { actor: "system" },
    });
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return false; // another process recorded it at the same moment
    throw error;
  }
}
