import { createRequire } from "node:module";
import type pg from "pg";

/** pg's own conversion of a parameter to its wire text (arrays to array literals, …). */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue(value: unknown): unknown };

/** The messages of pg's connection this module writes (@types/pg types some of them too narrowly). */
interface Wire {
  stream: { cork(): void; uncork(): void };
  parse(message: { text: string; name: string; types: number[] }, more: boolean): void;
  bind(message: { values?: unknown[] }, more: boolean): void;
  describe(message: { type: "P"; name: string }, more: boolean): void;
  execute(message: { rows?: number }, more: boolean): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

export type RawRow = (string | null)[];

export interface CappedRows {
  fields: pg.FieldDef[];
  /** At most the count asked for, as PostgreSQL's text. */
  rows: RawRow[];
}

/**
 * A report statement read up to a row count, as a pg "submittable" that goes out in one write and
 * comes back in one answer: the opening statements (BEGIN READ ONLY, SET LOCAL …), the statement
 * itself with an Execute limited to the count (a portal: rows beyond it are never produced, so a
 * huge result is never materialised), the closing statements (ROLLBACK, …) and one Sync. A report
 * query thus costs one round trip and its connection is clean when the answer arrives; BEGIN,
 * pg-cursor's opening and read, its close and the ROLLBACK took five, each also waking the
 * database's process again (~2 ms of a 4-query data call).
 *
 * Only the statement's own rows are kept: the other statements' answers (a row of
 * `select pg_advisory_unlock_all()` among them) are told apart by counting the completions. When
 * anything fails, PostgreSQL skips the rest up to the Sync, the closing statements included: the
 * caller must then end the transaction itself.
 */
export class CappedRead {
  readonly done: Promise<CappedRows>;
  private fields: pg.FieldDef[] = [];
  private readonly rows: RawRow[] = [];
  private readonly text: string;
  private readonly values: unknown[];
  /** Statements answered so far; the statement's own is number opening.length. */
  private completed = 0;
  private failed = false;
  private resolve!: (rows: CappedRows) => void;
  private reject!: (error: unknown) => void;
  /**
   * Set by pg on a pool with query_timeout (the report pools): its wrapper clears the timeout's
   * timer, which otherwise holds this read, and every row of it, until the timeout has passed
   * (15 s after a 32 MB answer was sent: issue #52, finding 6). pg calls no callback of a
   * submittable itself; its own Query calls it when done, as this does.
   */
  callback?: (error: unknown) => void;

  constructor(
    private readonly opening: readonly string[],
    statement: { text: string; values: unknown[] },
    private readonly count: number,
    private readonly closing: readonly string[],
  ) {
    this.text = statement.text;
    // Converted before anything is written: a value that cannot be sent must not leave half a pipeline.
    this.values = statement.values.map((value) => prepareValue(value));
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    const plain = (text: string) => {
      wire.parse({ text, name: "", types: [] }, true);
      wire.bind({}, true);
      wire.execute({}, true);
    };
    wire.stream.cork();
    try {
      this.opening.forEach(plain);
      wire.parse({ text: this.text, name: "", types: [] }, true);
      wire.bind({ values: this.values }, true);
      wire.describe({ type: "P", name: "" }, true);
      wire.execute({ rows: this.count }, true);
      this.closing.forEach(plain);
      wire.sync();
    } finally {
      wire.stream.uncork();
    }
  }

  private get ownTurn(): boolean {
    return this.completed === this.opening.length;
  }

  handleRowDescription(message: { fields: pg.FieldDef[] }): void {
    if (this.ownTurn) this.fields = message.fields;
  }

  handleDataRow(message: { fields: RawRow }): void {
    if (this.ownTurn) this.rows.push(message.fields);
  }

  handleCommandComplete(): void {
    this.completed++;
  }

  /** The statement reached the count: it may have more rows, which are never made. */
  handlePortalSuspended(): void {
    this.completed++;
  }

  handleEmptyQuery(): void {
    this.completed++;
  }

  /** A report statement may not read from the client (COPY … FROM STDIN). */
  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as Wire).sendCopyFail("report queries cannot read from the client");
  }

  handleCopyData(): void {}

  /** pg hands the connection on after an error; its ReadyForQuery then reaches nobody. */
  handleError(error: unknown): void {
    this.failed = true;
    this.reject(error);
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    this.resolve({ fields: this.fields, rows: this.rows });
    this.callback?.(null);
  }

  /** What has arrived so far: for a read stopped midway (the byte cap), its whole rows. */
  partial(): CappedRows {
    return { fields: this.fields, rows: this.rows };
  }
}
