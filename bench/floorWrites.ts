import type pg from "pg";
import type { Queryable } from "../db/eventStore.ts";
import { insertItemRowsSql } from "../projections/ingestion/labResults.ts";
import { copyField, copyFromText } from "./copyIn.ts";
import { copyOf, METADATA, TENANT, type TemplateReport } from "./floorPayloads.ts";

/*
 * The least work of each write, as plain statements on the service's own tables: no decision, no
 * version check, no summary, only the rows each path must leave behind. Each takes the reports of
 * one piece (a bulk piece, a push) and runs one set-based statement per table.
 */

/** A piece's reports: the template reports it copies and which copy. */
export interface Piece {
  templates: TemplateReport[];
  copy: number;
}

/** Where the projections' live tables are (each generation has a schema of its own). */
export interface ReadSchemas {
  results: string;
  reports: string;
}

const RECEIVED_TYPE = "LabReportReceived";
const CLIENT_NAME = "Central lab LIS";
const METADATA_JSON = JSON.stringify(METADATA);

export type EventsForm = "unnest" | "values";

/**
 * The piece's events as the store keeps them (jsonb, lz4 out of line): `unnest` passes the streams
 * and payloads as two text arrays; `values` gives each payload a parameter of its own, as the
 * store's appendToStreams does (no array literal to escape on either side). Resolves with the
 * events' positions in the order of the piece.
 */
export async function insertEvents(tx: Queryable, piece: Piece, form: EventsForm): Promise<number[]> {
  const copies = piece.templates.map((t) => copyOf(t, piece.copy));
  let rows: Array<{ position: number }>;
  if (form === "unnest") {
    ({ rows } = await tx.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select $1, u.stream_id, 1, $2, u.data::jsonb, $3::jsonb from unnest($4::text[], $5::text[]) with ordinality as u(stream_id, data, ord)
       order by u.ord
       returning position`,
      [TENANT, RECEIVED_TYPE, METADATA_JSON, copies.map((c) => c.streamId), copies.map((c) => c.dataJson)],
    ));
  } else {
    const values = copies.map((_, i) => `($${4 + 2 * i}, $${5 + 2 * i}::jsonb)`).join(", ");
    ({ rows } = await tx.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select $1, v.stream_id, 1, $2, v.data, $3::jsonb from (values ${values}) as v(stream_id, data)
       returning position`,
      [TENANT, RECEIVED_TYPE, METADATA_JSON, ...copies.flatMap((c) => [c.streamId, c.dataJson])],
    ));
  }
  return rows.map((row) => Number(row.position));
}

/** The piece's events by COPY (text format); positions are not returned by COPY. */
export async function copyEvents(tx: pg.ClientBase, piece: Piece): Promise<void> {
  const metadata = copyField(METADATA_JSON);
  let lines = "";
  for (const template of piece.templates) {
    const c = copyOf(template, piece.copy);
    lines += `${TENANT}\t${copyField(c.streamId)}\t1\t${RECEIVED_TYPE}\t${copyField(c.dataJson)}\t${metadata}\n`;
  }
  await copyFromText(tx, "copy events (tenant, stream_id, stream_version, type, data, metadata) from stdin", lines);
}

/**
 * The piece's events by `form`; with COPY, which returns no positions, the positions (the report
 * rows' ledger receipt) are read back by stream.
 */
export async function writeEvents(tx: pg.ClientBase, piece: Piece, form: EventsForm | "copy"): Promise<number[]> {
  if (form !== "copy") return insertEvents(tx, piece, form);
  await copyEvents(tx, piece);
  const streams = piece.templates.map((t) => copyOf(t, piece.copy).streamId);
  const { rows } = await tx.query(
    "select stream_id, position from events where tenant = $1 and stream_id = any($2::text[])",
    [TENANT, streams],
  );
  const positions = new Map(rows.map((row) => [row.stream_id as string, Number(row.position)]));
  return streams.map((stream) => positions.get(stream)!);
}

/** The piece's item rows by `form`. */
export function writeItems(
  tx: pg.ClientBase,
  schemas: ReadSchemas,
  piece: Piece,
  form: "unnest" | "copy",
): Promise<void> {
  return form === "copy" ? copyItems(tx, schemas, piece) : insertItems(tx, schemas, piece);
}

/** A small event, one per piece: the bulk job's checkpoint, committed with the piece (what makes an import resumable). */
export async function insertCheckpoint(tx: Queryable, jobStream: string, piece: number): Promise<void> {
  await tx.query(
    `insert into events (tenant, stream_id, stream_version, type, data, metadata) values ($1, $2, $3, 'BulkPieceImported', $4::jsonb, $5::jsonb)`,
    [
      TENANT,
      jobStream,
      piece + 1,
      JSON.stringify({ piece, counts: { processed: 250, accepted: 250, created: 250 }, rejections: [] }),
      METADATA_JSON,
    ],
  );
}

/** The piece's item rows (lab_results, with the indexes report SQL reads them by) from arrays, one statement. */
export async function insertItems(tx: Queryable, schemas: ReadSchemas, piece: Piece): Promise<void> {
  const columns: unknown[][] = Array.from({ length: 20 }, () => []);
  for (const template of piece.templates) {
    const externalId = copyOf(template, piece.copy).externalId;
    template.items.forEach((item, index) => {
      const row = [
        externalId,
        index,
        template.patientRef,
        item.itemCode,
        item.itemName,
        item.stdCode,
        item.stdName,
        item.category,
        item.valueNum,
        item.valueText,
        item.unit,
        item.stdValue,
        item.stdUnit,
        item.unitStatus,
        item.refLow,
        item.refHigh,
        item.abnormalFlag,
        item.resultType,
        template.collectedAt,
        template.reportedAt,
      ];
      row.forEach((value, c) => columns[c]!.push(value));
    });
  }
  await tx.query(
    `insert into ${schemas.results}.lab_results
     select $1, external_id, item_index, patient_ref, item_code, item_name, std_code, std_name, category, value_num, value_text, unit,
            std_value, std_unit, unit_status, ref_low, ref_high, abnormal_flag, result_type, collected_at, reported_at, collected_at::date, reported_at::date
     from unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::float8[], $11::text[],
                 $12::text[], $13::float8[], $14::text[], $15::text[], $16::float8[], $17::float8[], $18::text[],
                   $19::text[], $20::timestamp[], $21::timestamp[])
       as u(external_id, item_index, patient_ref, item_code, item_name, std_code, std_name, category, value_num, value_text,
            unit, std_value, std_unit, unit_status, ref_low, ref_high, abnormal_flag, result_type, collected_at, reported_at)`,
    [TENANT, ...columns],
  );
}

/** The piece's item rows by COPY (text format): the days, which the statement computes, are cut from the times here. */
export async function copyItems(tx: pg.ClientBase, schemas: ReadSchemas, piece: Piece): Promise<void> {
  let lines = "";
  for (const template of piece.templates) {
    const externalId = copyField(copyOf(template, piece.copy).externalId);
    const shared = [template.patientRef].map(copyField).join("\t");
    const times = [
      template.collectedAt,
      template.reportedAt,
      template.collectedAt?.slice(0, 10) ?? null,
      template.reportedAt.slice(0, 10),
    ]
      .map(copyField)
      .join("\t");
    template.items.forEach((item, index) => {
      const own = [
        item.itemCode,
        item.itemName,
        item.stdCode,
        item.stdName,
        item.category,
        item.valueNum,
        item.valueText,
        item.unit,
        item.stdValue,
        item.stdUnit,
        item.unitStatus,
        item.refLow,
        item.refHigh,
        item.abnormalFlag,
        item.resultType,
      ]
        .map(copyField)
        .join("\t");
      // client_name and mapping_id: null for an item the dictionary mapped (labResults.sql).
      lines += `${TENANT}\t${externalId}\t${index}\t${shared}\t${own}\t${times}\t\\N\t\\N\n`;
    });
  }
  await copyFromText(tx, `copy ${schemas.results}.lab_results from stdin`, lines);
}

/**
 * The piece's item rows as the projection writes them: one INSERT … SELECT from the stored
 * payloads (RECEIVED: each decompressed once), the events being those at `positions`.
 */
export async function insertItemsFromEvents(tx: Queryable, schemas: ReadSchemas, positions: number[]): Promise<void> {
  await tx.query(insertItemRowsSql(`${schemas.results}.lab_results`), [positions]);
}

/**
 * The piece's report rows: lab_reports (what reconciliation and the unmatched queue read) and
 * lab_report_days (reconciliation as of a moment), from arrays. `positions`: the events' (the
 * rows' ledger receipt); the writing transaction stands for the event's.
 */
export async function insertReportRows(
  tx: Queryable,
  schemas: ReadSchemas,
  piece: Piece,
  positions: number[],
): Promise<void> {
  const t = piece.templates;
  const externalIds = t.map((template) => copyOf(template, piece.copy).externalId);
  await tx.query(
    `with reports as (
       select * from unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                            $12::text[], $13::text[], $14::text[], $15::text[], $16::timestamp[], $17::timestamp[], $18::int[], $19::bigint[])
         as u(external_id, report_no, patient_ref, matched, pending_reason, id_card, patient_name, his_patient_id, panel_name, specimen,
              status, lab_name, reporter, reviewer, collected_at, reported_at, item_count, position)
     ), days as (
       insert into ${schemas.reports}.lab_report_days (tenant, external_id, version, valid_from, report_day, unmatched, ledger_tx, ledger_position)
       select $1, external_id, 1, now(), reported_at::date, not matched, pg_current_xact_id(), position from reports
     )
     insert into ${schemas.reports}.lab_reports
     select $1, external_id, report_no, patient_ref, matched, pending_reason, id_card, patient_name, his_patient_id, panel_name, specimen,
            status, lab_name, reporter, reviewer, collected_at, reported_at, reported_at::date, now(), $20,
              item_count, null, null, pg_current_xact_id(), position
     from reports`,
    [
      TENANT,
      externalIds,
      t.map((r) => r.reportNo),
      t.map((r) => r.patientRef),
      t.map((r) => r.matched),
      t.map((r) => r.pendingReason),
      t.map((r) => r.idCard),
      t.map((r) => r.patientName),
      t.map((r) => r.hisPatientId),
      t.map((r) => r.panelName),
      t.map((r) => r.specimen),
      t.map((r) => r.status),
      t.map((r) => r.labName),
      t.map((r) => r.reporter),
      t.map((r) => r.reviewer),
      t.map((r) => r.collectedAt),
      t.map((r) => r.reportedAt),
      t.map((r) => r.items.length),
      positions,
      CLIENT_NAME,
    ],
  );
}
