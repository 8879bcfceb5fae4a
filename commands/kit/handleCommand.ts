import { ConcurrencyConflict, readStream, type AppendResult, type EventMetadata, type EventStore, type NewEvent, type StoredEvent, type StreamAppend } from "../../db/eventStore.ts";

/**
 * A command's business rules as pure functions (the Emmett "decider"): `evolve` folds a stream's
 * events into state, `decide` turns a command and that state into new events (or throws a
 * CommandError). No database, no HTTP: unit tests call them with plain objects.
 */
export interface Decider<State, Command, E extends NewEvent = NewEvent> {
  initialState: () => State;
  evolve: (state: State, event: StoredEvent<E>) => State;
  decide: (command: Command, state: State) => E[];
}

export interface CommandOutcome<State, E extends NewEvent = NewEvent> {
  events: E[];
  /** The state before the command. */
  state: State;
  appended: AppendResult | null;
}

export interface CommandOptions<State, E extends NewEvent = NewEvent> {
  attempts?: number;
  /**
   * Events for other streams that must be stored with the command's, or not at all (a uniqueness
   * claim), worked out from the decided events; a conflict on any stream decides everything again.
   */
  alongside?: (events: E[], state: State) => Promise<StreamAppend[]>;
}

/** Loads the stream, decides, appends with the expected version; decides again if another writer got there first. */
export async function handleCommand<State, Command, E extends NewEvent>(
  store: EventStore,
  target: { tenant: string; streamId: string },
  decider: Decider<State, Command, E>,
  command: Command,
  metadata: EventMetadata,
  { attempts = 5, alongside }: CommandOptions<State, E> = {},
): Promise<CommandOutcome<State, E>> {
  for (let attempt = 1; ; attempt++) {
    const stream = await readStream<E>(store.db, target.tenant, target.streamId);
    const state = stream.events.reduce(decider.evolve, decider.initialState());
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, appended: null };
    try {
      const others = alongside ? await alongside(events, state) : [];
      const appended =
        others.length === 0
          ? await store.append({ ...target, expectedVersion: stream.version, events, metadata })
          : (await store.appendMany(target.tenant, [{ streamId: target.streamId, expectedVersion: stream.version, events }, ...others], metadata))[0]!;
      return { events, state, appended };
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) || attempt >= attempts) throw error;
    }
  }
}
