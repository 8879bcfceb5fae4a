import { CommandError } from "../kit/commandError.ts";

/*
 * Cuts an NDJSON upload into pieces of whole lines as it streams in, so that memory holds one
 * piece whatever the size of the upload. Blank lines are kept in the pieces (line numbers are the
 * ones an editor shows) but are not reports. Nothing is parsed but the lines up to the first JSON
 * object: enough to tell an NDJSON body from something else sent by mistake.
 */

export interface NdjsonLimits {
  /** Reports (non-blank lines) in one upload. */
  maxLines: number;
  /** Bytes of the uncompressed body. */
  maxBytes: number;
  /** Bytes of one line: one report, at most what a push may carry. */
  maxLineBytes: number;
}

export interface PieceSize {
  reports: number;
  bytes: number;
}

export interface NdjsonPiece {
  /** 1-based line number of the piece's first line. */
  firstLine: number;
  reports: number;
  body: string;
}

export interface NdjsonTotals {
  lines: number;
  bytes: number;
}

const NEWLINE = 0x0a;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== NEWLINE) return false;
  return true;
}

/** What the first lines are: a report-like object, a push body sent here by mistake, or not a JSON object. */
function jsonObjectKind(line: Buffer): "object" | "push-body" | null {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  return Array.isArray((value as { reports?: unknown }).reports) && !("externalId" in value) ? "push-body" : "object";
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** Yields the pieces of the body; returns the totals. Throws CommandError for a body that is not NDJSON or is over a limit. */
export async function* ndjsonPieces(
  source: AsyncIterable<Buffer>,
  limits: NdjsonLimits,
  size: PieceSize,
): AsyncGenerator<NdjsonPiece, NdjsonTotals> {
  let bytes = 0;
  let lineNo = 0;
  let reports = 0;
  let sawObject = false;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let parts: Buffer[] = [];
  let pieceFirstLine = 1;
  let pieceReports = 0;
  let pieceBytes = 0;

  const tooLarge = (what: string) => new CommandError("too-large", what);
  const lineTooLong = (line: number) =>
    tooLarge(
      `Line ${line} is longer than ${mb(limits.maxLineBytes)}; put one report on each line (a report is at most ${mb(limits.maxLineBytes)}, as in a push).`,
    );
  const take = (line: Buffer): NdjsonPiece | null => {
    lineNo++;
    if (line.length > limits.maxLineBytes) throw lineTooLong(lineNo);
    if (isBlank(line)) {
      // Blank lines before a piece's first report are not kept (the piece starts at its first
      // report's line number); between reports they are, so that line numbers stay right.
      if (pieceReports === 0) return null;
      parts.push(line);
      pieceBytes += line.length;
      return pieceBytes >= size.bytes ? flush() : null;
    }
    if (++reports > limits.maxLines)
      throw tooLarge(
        `The body has more than ${limits.maxLines.toLocaleString("en")} reports; split it into several jobs.`,
      );
    if (!sawObject) {
      const kind = jsonObjectKind(line);
      if (kind === "push-body") {
        throw new CommandError(
          "invalid",
          `Line ${lineNo} is a push body ({"reports": […]}); a bulk body has one report per line, each a JSON object, with no wrapper.`,
        );
      }
      sawObject = kind === "object";
    }
    if (pieceReports === 0) pieceFirstLine = lineNo;
    parts.push(line);
    pieceBytes += line.length;
    pieceReports++;
    return pieceReports >= size.reports || pieceBytes >= size.bytes ? flush() : null;
  };
  const flush = (): NdjsonPiece | null => {
    if (pieceReports === 0) return null;
    // PostgreSQL text cannot hold NUL; a line holding one raw is not JSON and will be rejected anyway.
    const piece = {
      firstLine: pieceFirstLine,
      reports: pieceReports,
      body: Buffer.concat(parts).toString("utf8").replaceAll("\0", "\ufffd"),
    };
    parts = [];
    pieceBytes = 0;
    pieceReports = 0;
    return piece;
  };

  for await (let chunk of source) {
    if (bytes === 0 && chunk.subarray(0, 3).equals(UTF8_BOM)) chunk = chunk.subarray(3);
    bytes += chunk.length;
    if (bytes > limits.maxBytes)
      throw tooLarge(`The body is larger than ${mb(limits.maxBytes)} uncompressed; split it into several jobs.`);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, end + 1);
      const line = partial.length === 0 ? tail : Buffer.concat([...partial, tail]);
      partial = [];
      partialBytes = 0;
      start = end + 1;
      const piece = take(line);
      if (piece) yield piece;
    }
    if (start < chunk.length) {
      partial.push(chunk.subarray(start));
      partialBytes += chunk.length - start;
      if (partialBytes > limits.maxLineBytes) throw lineTooLong(lineNo + 1);
    }
  }
  if (partial.length > 0) {
    const piece = take(Buffer.concat(partial));
    if (piece) yield piece;
  }
  const last = flush();
  if (last) yield last;
  if (reports === 0)
    throw new CommandError("invalid", "The body holds no reports; send one report as a JSON object on each line.");
  if (!sawObject) {
    throw new CommandError(
      "invalid",
      'The body is not NDJSON: no line holds a JSON object. Send one report per line, each a JSON object (not a JSON array, not a {"reports": …} push body).',
    );
  }
  return { lines: reports, bytes };
}
