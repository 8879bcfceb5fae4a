import type { EventMetadata, EventStore } from "../../db/eventStore.ts";

/** What every command needs besides its input: where to write, and who is asking. */
export interface CommandContext {
  store: EventStore;
  metadata: EventMetadata;
}
