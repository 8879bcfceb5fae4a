import type pg from "pg";
import { withTransaction, type Db } from "./pool.ts";

/** Who caused an event, for the audit trail: every event says who, for whom, and in which request. */
export interface EventMetadata {
  actor: string;
  client?: string;
  requestId?: string;
  causationId?: string;
  [key: string]: unknown;
}

/** An event before it is stored: its type name and its data (a context's events.ts declares which). */
export interface NewEvent {
  type: string;
  data: unknown;
}

/** An event whose data the writer holds only as JSON text, already written: appended as is. */
export interface WrittenEvent {
  type: string;
  dataJson: string;
}

/** Where and when an event was stored, and who caused it. */
export interface EventEnvelope {
  position: number;
  transactionId: string;
  tenant: string;
  streamId: string;
  streamVersion: number;
  metadata: EventMetadata;
  recordedAt: Date;
}

/**
 * A stored event: its envelope and the event itself. Given a context's event union
 * (`StoredEvent<PatientEvent>`), it is a union too, so a switch on `type` gives typed `data`.
 */
export type StoredEvent<E extends NewEvent = NewEvent> = E extends NewEvent ? EventEnvelope & E : never;

/**
 * What the writer believes the stream's version is: a number (0 = the stream does not exist yet),
 * or "any" to append whatever is there (used only where order within the stream does not matter).
 */
export type ExpectedVersion = number | "any";

export interface AppendRequest {
  tenant: string;
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  metadata: EventMetadata;
}

export interface AppendResult {
  streamId: string;
  nextVersion: number;
  positions: number[];
  /** Where the last appended event stands in the global order (to wait for projections). */
  last: { transactionId: string; position: number };
}

/** The stream moved on since it was read: reload, decide again, append again. */
export class ConcurrencyConflict extends Error {
  constructor(
    readonly tenant: string,
    readonly streamId: string,
    readonly expectedVersion: ExpectedVersion,
  ) {
    super(`stream ${streamId} is no longer at version ${expectedVersion}`);
    this.name = "ConcurrencyConflict";
  }
}

export type Queryable = Pick<pg.ClientBase, "query"> | Db;

const UNIQUE_VIOLATION = "23505";

// One statement per stream: the version check, the numbering and the insert happen together.
// When two writers race with the same expected version, both pass the check, and the unique
// (tenant, stream_id, stream_version) constraint makes the second fail once the first commits.
const APPEND_SQL = `
  with head as (
    select coalesce(max(stream_version), 0) as version
    from events where tenant = $1 and stream_id = $2
  )
  insert into events (tenant, stream_id, stream_version, type, data, metadata)
  select $1, $2, head.version + e.ord, e.value->>'type', e.value->'data', $4::jsonb
  from head, jsonb_array_elements($3::jsonb) with ordinality as e(value, ord)
  where $5::integer is null or head.version = $5::integer
  returning position, stream_version, transaction_id::text as transaction_id_text`;

export async function appendToStream(db: Queryable, request: AppendRequest): Promise<AppendResult> {
  if (request.events.length === 0) throw new Error("appendToStream needs at least one event");
  const expected = request.expectedVersion === "any" ? null : request.expectedVersion;
  let result: pg.QueryResult<{ position: number; stream_version: number; transaction_id_text: string }>;
  try {
    result = await db.query(APPEND_SQL, [
      request.tenant,
      request.streamId,
      JSON.stringify(request.events.map(({ type, data }) => ({ type, data }))),
      JSON.stringify(request.metadata),
      expected,
    ]);
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      throw new ConcurrencyConflict(request.tenant, request.streamId, request.expectedVersion);
    }
    throw error;
  }
  if (result.rows.length === 0) {
    throw new ConcurrencyConflict(request.tenant, request.streamId, request.expectedVersion);
  }
  const positions = result.rows.map((row) => Number(row.position));
  const nextVersion = Math.max(...result.rows.map((row) => row.stream_version));
  const transactionId = result.rows[0]!.transaction_id_text;
  return {
    streamId: request.streamId,
    nextVersion,
    positions,
    last: { transactionId, position: Math.max(...positions) },
  };
}

// Many streams in one statement (a pushed batch: one stream per report). Every stream's expected
// version is checked; if any is stale nothing is inserted and the caller falls back to one
// stream at a time. Each payload is a parameter of its own, parsed once, straight into jsonb
// (one JSON document of all rows would be parsed as json first, then again into jsonb).
const MAX_EVENTS_PER_APPEND = 10_000;

/** `ownMetadata`: each event has a sixth parameter, metadata merged over the call's (null: the call's alone). */
function appendManySql(rowCount: number, ownMetadata: boolean): string {
  const perEvent = ownMetadata ? 6 : 5;
  const values = Array.from({ length: rowCount }, (_, i) => {
    const p = 3 + i * perEvent;
    return `(${i}, $${p}::text, $${p + 1}::int, $${p + 2}::int, $${p + 3}::text, $${p + 4}::jsonb${ownMetadata ? `, $${p + 5}::jsonb` : ""})`;
  });
  return `
  with input(ord, stream_id, expected, seq, type, data${ownMetadata ? ", own_metadata" : ""}) as (
    values ${values.join(", ")}
  ), heads as (
    select s.stream_id, s.expected,
           coalesce((select max(e.stream_version) from events e where e.tenant = $1 and e.stream_id = s.stream_id), 0) as version
    from (select distinct stream_id, expected from input) s
  )
  insert into events (tenant, stream_id, stream_version, type, data, metadata)
  select $1, i.stream_id, i.expected + i.seq, i.type, i.data, ${ownMetadata ? "$2::jsonb || coalesce(i.own_metadata, '{}'::jsonb)" : "$2::jsonb"}
  from input i
  where not exists (select 1 from heads h where h.version <> h.expected)
  order by i.ord
  returning stream_id, position, stream_version, transaction_id::text as transaction_id_text`;
}

export interface StreamAppend {
  streamId: string;
  expectedVersion: number;
  events: Array<NewEvent | WrittenEvent>;
  /** What this stream's events record besides the call's metadata (the message a report came in). */
  metadata?: Record<string, unknown>;
}

export async function appendToStreams(
  db: Queryable,
  tenant: string,
  appends: StreamAppend[],
  metadata: EventMetadata,
): Promise<AppendResult[]> {
  const params: unknown[] = [tenant, JSON.stringify(metadata)];
  const ownMetadata = appends.some((append) => append.metadata);
  let rowCount = 0;
  for (const append of appends) {
    const own = append.metadata ? JSON.stringify(append.metadata) : null;
    append.events.forEach((event, index) => {
      params.push(
        append.streamId,
        append.expectedVersion,
        index + 1,
        event.type,
        "dataJson" in event ? event.dataJson : JSON.stringify(event.data),
      );
      if (ownMetadata) params.push(own);
      rowCount++;
    });
  }
  if (rowCount === 0) return [];
  // Five or six parameters an event; PostgreSQL takes at most 65,535 in one statement.
  if (rowCount > MAX_EVENTS_PER_APPEND)
    throw new Error(`appendToStreams takes at most ${MAX_EVENTS_PER_APPEND} events at once, not ${rowCount}`);
  let result: pg.QueryResult<{
    stream_id: string;
    position: number;
    stream_version: number;
    transaction_id_text: string;
  }>;
  try {
    result = await db.query(appendManySql(rowCount, ownMetadata), params);
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new ConcurrencyConflict(tenant, "(batch)", "any");
    throw error;
  }
  if (result.rows.length !== rowCount) throw new ConcurrencyConflict(tenant, "(batch)", "any");
  const byStream = new Map<string, AppendResult>();
  for (const row of result.rows) {
    const position = Number(row.position);
    const current = byStream.get(row.stream_id);
    const last = { transactionId: row.transaction_id_text, position };
    if (!current)
      byStream.set(row.stream_id, {
        streamId: row.stream_id,
        nextVersion: row.stream_version,
        positions: [position],
        last,
      });
    else {
      current.positions.push(position);
      current.nextVersion = Math.max(current.nextVersion, row.stream_version);
      if (position > current.last.position) current.last = last;
    }
  }
  return appends.map((append) => byStream.get(append.streamId)!);
}

export interface LoadedStream<E extends NewEvent = NewEvent> {
  version: number;
  events: StoredEvent<E>[];
}

/** A stream's events; `E` is the union its codec's context declares for it (events.ts). */
export async function readStream<E extends NewEvent = NewEvent>(
  db: Queryable,
  tenant: string,
  streamId: string,
): Promise<LoadedStream<E>> {
  const { rows } = await db.query(
    `select ${EVENT_COLUMNS} from events where tenant = $1 and stream_id = $2 order by stream_version`,
    [tenant, streamId],
  );
  const events = rows.map((row) => toStoredEvent<E>(row));
  return { version: events.at(-1)?.streamVersion ?? 0, events };
}

export const EVENT_COLUMNS =
  "position, transaction_id::text as transaction_id_text, tenant, stream_id, stream_version, type, data, metadata, recorded_at";

/**
 * Where rows enter as events. The type a caller names (a context's union) is taken on trust here,
 * once: what the store holds was written by that context's commands (and read back by upcasting
 * where a shape changed), so the cast stands for the contract between a stream and its events.ts.
 */
export function toStoredEvent<E extends NewEvent = NewEvent>(row: Record<string, unknown>): StoredEvent<E> {
  const event: EventEnvelope & NewEvent = {
    position: Number(row.position),
    transactionId: row.transaction_id_text as string,
    tenant: row.tenant as string,
    streamId: row.stream_id as string,
    streamVersion: row.stream_version as number,
    type: row.type as string,
    data: row.data,
    metadata: row.metadata as EventMetadata,
    recordedAt: row.recorded_at as Date,
  };
  return event as StoredEvent<E>;
}

/**
 * The position of the store's last event in the order projections apply them (writing transaction,
 * then position; eventFeed.ts). It is not always the greatest position: a transaction may take its
 * positions after another that began writing later, and commit first. A projection that has
 * applied everything stands exactly here.
 */
export async function storeHead(db: Queryable): Promise<number> {
  const { rows } = await db.query(
    "select coalesce((select position from events order by transaction_id desc, position desc limit 1), 0) as head",
  );
  return Number(rows[0].head);
}

export interface TransactionWriter {
  append(request: AppendRequest): Promise<AppendResult>;
  appendMany(tenant: string, appends: StreamAppend[], metadata: EventMetadata): Promise<AppendResult[]>;
}

export type AppendListener = (eventTypes: ReadonlySet<string>) => void;

/**
 * The write side's handle on the store: appends, and tells the projection wake-ups which event
 * types were committed. Listeners run only after commit, so a woken projection can see the events.
 */
export class EventStore {
  private readonly listeners = new Set<AppendListener>();

  constructor(readonly db: Db) {}

  onAppended(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    const result = await appendToStream(this.db, request);
    this.announce(new Set(request.events.map((event) => event.type)));
    return result;
  }

  async appendMany(tenant: string, appends: StreamAppend[], metadata: EventMetadata): Promise<AppendResult[]> {
    const results = await appendToStreams(this.db, tenant, appends, metadata);
    this.announce(new Set(appends.flatMap((append) => append.events.map((event) => event.type))));
    return results;
  }

  /** Appends (and any other writes) that commit or fail together; projections are told after the commit. */
  async transaction<T>(work: (writer: TransactionWriter, tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const types = new Set<string>();
    const noteTypes = (events: Array<{ type: string }>) => events.forEach((event) => types.add(event.type));
    const result = await withTransaction(this.db, (tx) =>
      work(
        {
          append: async (request) => {
            const appended = await appendToStream(tx, request);
            noteTypes(request.events);
            return appended;
          },
          appendMany: async (tenant, appends, metadata) => {
            const appended = await appendToStreams(tx, tenant, appends, metadata);
            appends.forEach((append) => noteTypes(append.events));
            return appended;
          },
        },
        tx,
      ),
    );
    if (types.size > 0) this.announce(types);
    return result;
  }

  private announce(types: ReadonlySet<string>): void {
    for (const listener of this.listeners) listener(types);
  }
}
