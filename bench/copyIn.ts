import type pg from "pg";

/*
 * COPY … FROM STDIN with node-postgres alone (pg-copy-streams is not among the project's packages):
 * a "submittable" query, the hook pg offers for protocols of its own. The server asks for the data
 * (CopyInResponse), gets it in one message, and answers CommandComplete and ReadyForQuery.
 */

interface Connection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

class CopyFromText {
  private done!: (rows: number) => void;
  private failed!: (error: Error) => void;
  private rows = 0;
  private error: Error | null = null;
  readonly finished = new Promise<number>((resolve, reject) => {
    this.done = resolve;
    this.failed = reject;
  });

  constructor(
    private readonly text: string,
    private readonly data: Buffer,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }
  handleCommandComplete(message: { text: string }): void {
    this.rows = Number(/\d+$/.exec(message.text)?.[0] ?? 0);
  }
  handleError(error: Error): void {
    this.error = error;
  }
  handleReadyForQuery(): void {
    if (this.error) this.failed(this.error);
    else this.done(this.rows);
  }
  // Not sent in answer to COPY FROM, but pg calls them on whatever query is active.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
}

/** Runs `copy table (columns) from stdin` with `lines` (COPY's text format, each ending in \n); resolves with the rows copied. */
export function copyFromText(client: pg.ClientBase, statement: string, lines: string): Promise<number> {
  const copy = new CopyFromText(statement, Buffer.from(lines, "utf8"));
  client.query(copy as unknown as pg.Submittable);
  return copy.finished;
}

/** A value as a field of COPY's text format: \N for null; backslash, tab, newline and carriage return escaped. */
export function copyField(value: string | number | null): string {
  if (value === null) return "\\N";
  const text = String(value);
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"))
    : text;
}
