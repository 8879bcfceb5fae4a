import type { NewEvent, StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Checkpoint } from "./eventFeed.ts";

/**
 * A read model built from events. The runtime runs `ddl` and `setup`, and calls `apply`, with
 * `search_path` set to the generation's own schema, so a projection names its tables unqualified
 * and a rebuild can fill a fresh copy while the live one keeps serving.
 */
export interface Projection<E extends NewEvent = NewEvent> {
  /** `[a-z][a-z0-9_]*`; also the pg-boss queue and schema name stem. */
  readonly name: string;
  /** Bump when `ddl`, `setup` or `apply` changes meaning: the runtime then rebuilds by replay. */
  readonly version: number;
  /** The types of the events it applies: of the union `E` its contexts' events.ts declare. */
  readonly handles: readonly E["type"][];
  /**
   * What the runtime reads as `data` of a handled event: an SQL expression over the `events` row
   * (default `data`, the whole payload). A projection that reads the payload inside the database,
   * or needs a few fields of a large one, names less so that less crosses the wire and is parsed.
   */
  readonly payload?: string;
  /** Event types a reacting projection appends while applying; their consumers are woken after each batch. */
  readonly emits?: readonly string[];
  /** Tables exposed to queries as `read.<table>`; they follow the live generation. */
  readonly tables: readonly string[];
  /** Tables of reference data shared by all tenants; every other table must have a `tenant` column. */
  readonly sharedTables?: readonly string[];
  /**
   * Tables whose rows belong to a patient (contract E.2): a caller with wards sees only the rows
   * of its wards' patients. `patientRef` names the column holding the row's patient (null: none
   * yet, every caller sees it); the patients table itself names its `ward` column. A table with a
   * `patient_ref` or `ward` column left out here fails the ward-scope test (test/security).
   */
  readonly patientRows?: Readonly<Record<string, { patientRef: string } | { ward: string }>>;
  /**
   * Events per batch (default 1000). Each batch is one transaction, and a writing transaction
   * holds back every reader's horizon while it runs: heavy events want smaller batches.
   */
  readonly batchSize?: number;
  /**
   * Event types each of which ends its batch: work of its own size (a step of re-mapping stored
   * rows) commits on its own, so that its progress shows and one batch never holds several.
   */
  readonly batchEndsAfter?: readonly string[];
  /**
   * Its tables and indexes: files of plain SQL beside the projection, named by their path from the
   * checkout's root (`"projections/alerts/alerts.sql"`), which the runtime runs in order on each new
   * generation. A path from the root, not from the module, still holds in the bundled build.
   */
  readonly ddl?: string | readonly string[];
  /** What plain SQL cannot say (DDL built from shared parts, rows computed here); runs after `ddl`. */
  setup?(tx: Tx): Promise<void>;
  apply(tx: Tx, event: StoredEvent<E>): Promise<void>;
  /**
   * Optional set-based form of `apply` for projections that fold many events into few rows;
   * must have the same effect as applying the events one by one. While a rebuild loads a fresh
   * generation (`loading`), it may leave for `finishLoad` what is cheaper built once at the end.
   */
  applyBatch?(tx: Tx, events: StoredEvent<E>[], context?: ApplyContext): Promise<void>;
  /**
   * Optional: loads a fresh generation from every event up to and including `through` (in the
   * feed's order) in a few set-based statements, leaving the tables applying those events one by
   * one with `loading` would. A rebuild calls it once, in one transaction, then applies the events
   * past `through` in batches as usual; `finishLoad` follows. Should it fail on an event, the
   * rebuild applies them in batches instead, which names the event.
   */
  loadThrough?(tx: Tx, through: Checkpoint): Promise<void>;
  /**
   * Builds what batches applied while `loading` left undone (summaries, indexes): steps that each
   * make one pass over the loaded tables and need nothing another step makes. A rebuild runs them
   * side by side, each in its own transaction, in their order as connections free up
   * (finishSideBySide.ts): after a load by set and before the events that arrived during it, after
   * the batches of a load without one; a new empty generation runs them one after the other right
   * after `ddl` and `setup`.
   */
  readonly finishLoad?: readonly FinishStep[];
  /**
   * Called after every batch applied outside a rebuild's load, handled events or none, in the
   * batch's transaction (search_path set): what `applyBatch` left for later while `behind`, it
   * completes here once the batch is not (the checkpoint reaches the store's head only through such
   * a batch, so a reader that waits for the head finds it done).
   */
  afterBatch?(tx: Tx, context: ApplyContext): Promise<void>;
}

/** One step of a projection's finishLoad; `name` is logged with the step's time. */
export interface FinishStep {
  readonly name: string;
  run(tx: Tx): Promise<unknown>;
}

export interface ApplyContext {
  /** True while a rebuild loads history: a reactor does nothing then (what it did is in the store already). */
  loading: boolean;
  /** Jobs that exist exactly when the batch commits (a reactor's webhook); absent where none are configured. */
  jobs?: TransactionalJobs;
  /** True when the batch was full and committed events already lie past it: the projection is catching up. */
  behind?: boolean;
}

/** pg-boss jobs sent inside the projection's transaction. */
export interface TransactionalJobs {
  /** `startAfter`: the job is not fetched before then (an escalation step's time). */
  send(tx: Tx, queue: string, data: object, singletonKey: string, options?: { startAfter?: Date }): Promise<void>;
}

export function assertProjectionName(name: string): void {
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(name)) throw new Error(`projection name ${name} must match [a-z][a-z0-9_]{0,39}`);
}
