import type { NewEvent } from "../../db/eventStore.ts";

/*
 * The shapes every context's published language (commands/<context>/events.ts) is written in,
 * after Emmett's `Event<Type, Data>` and EventStore's stream name mappers.
 */

/** One kind of event: its type name and the shape of its data. A context's events are a union of these. */
export type Event<Type extends string = string, Data = unknown> = { type: Type; data: Data };

/**
 * The union `E` with the data of its events of type `T` replaced by `D`: what a projection receives
 * when its `payload` SQL leaves those events' data in the database (or reads a part of it).
 */
export type WithPayload<E extends NewEvent, T extends E["type"], D> = E extends { type: T } ? Event<E["type"], D> : E;

/** The data of the event of type `T` in the union `E`. */
export type DataOf<E extends NewEvent, T extends E["type"]> = Extract<E, { type: T }>["data"];

/**
 * A kind of stream's name: the one place its id is built from its key and read back. Ids are
 * `<prefix><key>` and never change once written (they are in the store for good).
 */
export interface StreamCodec {
  readonly prefix: string;
  id(key: string): string;
  /** The key a stream id was built from; throws for an id of another kind of stream. */
  key(streamId: string): string;
  owns(streamId: string): boolean;
}

export function streamCodec(prefix: string): StreamCodec {
  return {
    prefix,
    id: (key) => `${prefix}${key}`,
    key: (streamId) => {
      if (!streamId.startsWith(prefix)) throw new Error(`${streamId} is not a ${prefix} stream`);
      return streamId.slice(prefix.length);
    },
    owns: (streamId) => streamId.startsWith(prefix),
  };
}
