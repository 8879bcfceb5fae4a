import { ConcurrencyConflict, readStream, type EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";

/** Reference data shared by every tenant lives under this tenant id, which no real tenant can have. */
export const SHARED_TENANT = "*";

/**
 * Records in the event store which dictionary was in force from when, whole (unit conversions
 * included), so that what a report was mapped and converted with can be proven later. Nothing is
 * appended when this version is recorded already.
 */
export async function recordDictionaryRelease(store: EventStore, dictionary: Dictionary, version: string): Promise<boolean> {
  const stream = await readStream(store.db, SHARED_TENANT, "dictionary");
  const last = stream.events.at(-1)?.data as { version?: string } | undefined;
  if (last?.version === version) return false;
  try {
    await store.append({
      tenant: SHARED_TENANT,
      streamId: "dictionary",
      expectedVersion: stream.version,
      events: [{ type: "DictionaryReleased", data: { version, items: dictionary.items, examTypes: dictionary.examTypes } }],
      metadata: { actor: "system" },
    });
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return false; // another process recorded it at the same moment
    throw error;
  }
}
