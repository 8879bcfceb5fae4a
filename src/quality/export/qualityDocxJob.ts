/**
 * The month's document (contract G.2) as a job of the export's worker threads
 * (src/reports/export/docxWorker.ts): plain data, posted to a thread as it is. Apart from the
 * builder (qualityDocx.ts), so that the report export's job union can name it without importing
 * the builder, which imports the report export's parts.
 */
import type { MonthExport } from "../../../queries/quality/monthExport.ts";
import type { QualityExportLang } from "./qualityExportWords.ts";

/** A trend chart as drawn on a worker thread: its PNG, or null when it could not be drawn. */
export interface QualityChartImage {
  title: string;
  png: Uint8Array | null;
}

export interface QualityDocxJob {
  kind: "qualityDocument";
  exported: MonthExport;
  lang: QualityExportLang;
  /** yyyy-MM-dd HH:mm:ss */
  exportedAt: string;
  charts: QualityChartImage[];
}
