import { ConcurrencyConflict, readStream, type EventMetadata } from "../../db/eventStore.ts";
import {
  checkReports,
  storeCheckedReports,
  type CheckedReports,
  type IngestionDeps,
  type PushingClient,
  type ResultEntry,
} from "../ingestion/pushReports.ts";
import type { ReportKind } from "../ingestion/reportKinds.ts";
import { bulkJobStreams, NO_COUNTS, type BulkCounts, type BulkPieceImported, type BulkRejection } from "./events.ts";

export interface PieceOfJob {
  tenant: string;
  jobId: string;
  kind: ReportKind;
  piece: number;
  /** The job stream's version before this piece's checkpoint: a second worker's checkpoint of the same piece conflicts. */
  expectedVersion: number;
  /** Who the reports' events name: the client that submitted the job, and the upload's request. */
  metadata: EventMetadata;
}

/** The piece's body is gone: the job cannot go on (nothing the service does removes a submitted job's pieces). */
export class MissingPiece extends Error {}

/** The piece's checkpoint as appended, or "taken": another worker recorded this piece first (it took the job over while this one was slow). */
export type PieceOutcome = { checkpoint: BulkPieceImported; version: number } | "taken";

const MAX_ATTEMPTS = 10;

/** A piece read, parsed and checked (validation, item mapping, patient matching): what is left is to store it. */
export interface CheckedPiece {
  checked: CheckedReports;
  lineOf: number[];
  unreadable: BulkRejection[];
}

/**
 * Reads and checks one piece of a bulk job exactly as a push checks its reports. Nothing is
 * written: a worker checks the next piece while the database stores the one before.
 */
export async function checkBulkPiece(
  deps: IngestionDeps,
  client: PushingClient,
  piece: PieceOfJob,
): Promise<CheckedPiece> {
  const { rows } = await deps.store.db.query(
    "select first_line, body from bulk_job_bodies where job_id = $1 and piece = $2 and tenant = $3",
    [piece.jobId, piece.piece, piece.tenant],
  );
  if (rows.length === 0) throw new MissingPiece(`piece ${piece.piece} of bulk job ${piece.jobId} is missing`);
  const { sent, lineOf, unreadable } = readLines(rows[0].body as string, rows[0].first_line as number);
  return { checked: await checkReports(deps, piece.kind, client, sent), lineOf, unreadable };
}

/**
 * Stores a checked piece with the push's own decision and append, in one transaction with the
 * piece's checkpoint event. A worker killed at any moment leaves either the piece and its
 * checkpoint committed or neither, so a resumed job neither loses nor counts a line twice.
 */
export async function storeBulkPiece(
  deps: IngestionDeps,
  client: PushingClient,
  piece: PieceOfJob,
  { checked, lineOf, unreadable }: CheckedPiece,
): Promise<PieceOutcome> {
  const jobStream = bulkJobStreams.id(piece.jobId);
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.store.transaction(async (writer, tx) => {
        await storeCheckedReports(writer, tx, piece.kind, client, checked, piece.metadata);
        const checkpoint = {
          type: "BulkPieceImported" as const,
          data: pieceOutcome(piece.piece, checked.results, lineOf, unreadable),
        };
        const [appended] = await writer.appendMany(
          piece.tenant,
          [{ streamId: jobStream, expectedVersion: piece.expectedVersion, events: [checkpoint] }],
          piece.metadata,
        );
        return { checkpoint, version: appended!.nextVersion };
      });
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict)) throw error;
      // Either the job moved on (another worker recorded this piece) or a report's stream did (a
      // push of the same externalId meanwhile): only the second is worth deciding again.
      if ((await readStream(deps.store.db, piece.tenant, jobStream)).version !== piece.expectedVersion) return "taken";
      if (attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * attempt * 10));
    }
  }
}

/** The piece's non-blank lines, parsed; a line that is not JSON is rejected here with field "". */
function readLines(
  body: string,
  firstLine: number,
): { sent: unknown[]; lineOf: number[]; unreadable: BulkRejection[] } {
  const sent: unknown[] = [];
  const lineOf: number[] = [];
  const unreadable: BulkRejection[] = [];
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trim() === "") continue;
    const line = firstLine + i;
    try {
      sent.push(JSON.parse(text));
      lineOf.push(line);
    } catch (error) {
      const why = (error as Error).message.slice(0, 160);
      unreadable.push({
        line,
        externalId: null,
        errors: [
          {
            field: "",
            message: `the line is not JSON (${why}); send each report as one JSON object on a line of its own`,
            code: "not-json",
          },
        ],
      });
    }
  }
  return { sent, lineOf, unreadable };
}

function pieceOutcome(
  piece: number,
  results: ResultEntry[],
  lineOf: number[],
  unreadable: BulkRejection[],
): { piece: number; counts: BulkCounts; rejections: BulkRejection[] } {
  const counts: BulkCounts = {
    ...NO_COUNTS,
    processed: results.length + unreadable.length,
    rejected: unreadable.length,
  };
  const rejections = [...unreadable];
  results.forEach((entry, index) => {
    if (entry.status === "REJECTED") {
      counts.rejected++;
      rejections.push({ line: lineOf[index]!, externalId: entry.externalId, errors: entry.errors });
      return;
    }
    counts.accepted++;
    if (entry.status === "CREATED") counts.created++;
    else if (entry.status === "UPDATED") counts.updated++;
    else counts.unchanged++;
    if (!entry.matched) counts.unmatched++;
  });
  rejections.sort((a, b) => a.line - b.line);
  return { piece, counts, rejections };
}
