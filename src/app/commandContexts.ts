import type { CommandContext } from "../../commands/kit/commandContext.ts";
import type { EventMetadata, EventStore } from "../../db/eventStore.ts";
import { waitForProjection } from "../../projections/runtime/waitForProjection.ts";

/** A command's context for this store: read-your-writes waits on the projections' checkpoints. */
export function commandContext(store: EventStore, metadata: EventMetadata): CommandContext {
  return {
    store,
    metadata,
    caughtUp: (readModel, appended, timeoutMs) => waitForProjection(store.db, readModel, appended, timeoutMs),
  };
}
