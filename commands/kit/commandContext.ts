import type { AppendResult, EventMetadata, EventStore } from "../../db/eventStore.ts";

/** What every command needs besides its input: where to write, who is asking, and how to read its own writes. */
export interface CommandContext {
  store: EventStore;
  metadata: EventMetadata;
  /**
   * Read-your-writes: resolves true once the named read model has applied the events up to
   * `appended` (false when it has not within `timeoutMs`), so a call that answers "done" is
   * seen by the next one. Given by the wiring (src/app/commandContexts.ts): commands know no read side.
   */
  caughtUp(readModel: string, appended: AppendResult["last"], timeoutMs?: number): Promise<boolean>;
}
