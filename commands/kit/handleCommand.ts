import {
  appendToStream,
  ConcurrencyConflict,
  readStream,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type LoadedStream,
  type NewEvent,
  type StoredEvent,
  type StreamAppend,
} from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";

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

type Target = { tenant: string; streamId: string };

/**
 * The one read–decide–append loop: loads the stream, folds it, decides, appends with the expected
 * version; when another writer got there first, it decides again on the stream as it now stands.
 */
async function decideAndAppend<State, Command, E extends NewEvent>(
  read: () => Promise<LoadedStream<E>>,
  decider: Decider<State, Command, E>,
  command: Command,
  append: (stream: LoadedStream<E>, events: E[], state: State) => Promise<AppendResult>,
  attempts: number,
  stillCurrent: (stream: LoadedStream<E>) => boolean = () => true,
): Promise<CommandOutcome<State, E>> {
  for (let attempt = 1; ; attempt++) {
    const stream = await read();
    const state = stream.events.reduce(decider.evolve, decider.initialState());
    const events = stillCurrent(stream) ? decider.decide(command, state) : [];
    if (events.length === 0) return { events, state, appended: null };
    try {
      return { events, state, appended: await append(stream, events, state) };
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) || attempt >= attempts) throw error;
    }
  }
}

/** A command on the store: its events are appended in a transaction of their own, and projections are woken after. */
export async function handleCommand<State, Command, E extends NewEvent>(
  store: EventStore,
  target: Target,
  decider: Decider<State, Command, E>,
  command: Command,
  metadata: EventMetadata,
  { attempts = 5, alongside }: CommandOptions<State, E> = {},
): Promise<CommandOutcome<State, E>> {
  return decideAndAppend(
    () => readStream<E>(store.db, target.tenant, target.streamId),
    decider,
    command,
    async (stream, events, state) => {
      const others = alongside ? await alongside(events, state) : [];
      return others.length === 0
        ? store.append({ ...target, expectedVersion: stream.version, events, metadata })
        : (
            await store.appendMany(
              target.tenant,
              [{ streamId: target.streamId, expectedVersion: stream.version, events }, ...others],
              metadata,
            )
          )[0]!;
    },
    attempts,
  );
}

/**
 * A command issued inside a transaction the caller holds (a reactor's batch, which commits with
 * its checkpoint): each try appends under a savepoint, so a lost race undoes only that try and
 * the batch goes on.
 *
 * `atVersion`: a reactor decides as things stood when the event it reacts to happened, which is
 * the stream at the version it last saw. When the stream has moved past it (a later push, a
 * person's claim), nothing is decided: the reactor meets those events in their turn. So a replay
 * decides nothing that the store's later events already settled.
 */
export async function handleCommandInTransaction<State, Command, E extends NewEvent>(
  tx: Tx,
  target: Target,
  decider: Decider<State, Command, E>,
  command: Command,
  metadata: EventMetadata,
  { attempts = 5, atVersion }: Pick<CommandOptions<State, E>, "attempts"> & { atVersion?: number } = {},
): Promise<CommandOutcome<State, E>> {
  return decideAndAppend(
    () => readStream<E>(tx, target.tenant, target.streamId),
    decider,
    command,
    async (stream, events) => {
      await tx.query("savepoint command");
      try {
        const appended = await appendToStream(tx, { ...target, expectedVersion: stream.version, events, metadata });
        await tx.query("release savepoint command");
        return appended;
      } catch (error) {
        await tx.query("rollback to savepoint command");
        throw error;
      }
    },
    attempts,
    atVersion === undefined ? undefined : (stream) => stream.version === atVersion,
  );
}
