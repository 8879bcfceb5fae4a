import type { Writable } from "node:stream";
import type ExcelJS from "exceljs";
import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { textCell, wallClockDate } from "../reports/export/xlsxCells.ts";
import { abortWorkbook, awaitCompression, workbookWriter } from "../reports/export/xlsxStreamingWorkbook.ts";
import type { ExportLang } from "../reports/export/exportWords.ts";

/*
 * The access log as a file (contract E.4, issue #54: 35 records in 20 minutes and no way to take
 * them away): the records a filter chose, one row each, in the order the list answers them, as
 * xlsx through the report exports' streaming workbook (exceljs, with their formula-injection-safe
 * text cells), or as CSV (UTF-8 with a byte order mark, which Excel needs to read Chinese). The
 * file's own words follow the page's language; the records' values are written as recorded.
 */

export type AccessExportFormat = "xlsx" | "csv";

/** At most this many records in a file: past it, the file says it was cut and how to narrow it. */
export const ACCESS_EXPORT_LIMIT = 100_000;

interface AccessExportWords {
  sheet: string;
  about: string;
  headings: [at: string, who: string, credential: string, roles: string, action: string, ...rest: string[]];
  outcomes: Record<AccessRecordAnswer["outcome"], string>;
  exportedAt: string;
  tenant: string;
  filters: string;
  filterNames: Record<keyof AccessExportFilters, string>;
  any: string;
  records: string;
  cut: (limit: number) => string;
}

const WORDS: Record<ExportLang, AccessExportWords> = {
  zh: {
    sheet: "访问日志",
    about: "说明",
    headings: ["时间", "访问者", "凭据", "角色", "操作（接口）", "显示的患者", "显示的报告", "请求编号", "结果"],
    outcomes: {
      shown: "已显示",
      cut: "未显示完整",
      "not-found": "未找到",
      invalid: "请求有误",
      refused: "被拒绝",
      failed: "服务故障",
    },
    exportedAt: "导出时间",
    tenant: "租户",
    filters: "筛选条件",
    filterNames: { who: "访问者", patientRef: "患者", action: "操作", from: "开始", to: "结束" },
    any: "不限",
    records: "记录数",
    cut: (limit) => `仅导出前 ${limit.toLocaleString("zh-CN")} 条记录，请缩小时间范围后分段导出。`,
  },
  en: {
    sheet: "Access log",
    about: "About",
    headings: [
      "At",
      "Who",
      "Credential",
      "Roles",
      "Action (route)",
      "Patients shown",
      "Reports shown",
      "Request id",
      "Outcome",
    ],
    outcomes: {
      shown: "shown",
      cut: "cut off",
      "not-found": "not found",
      invalid: "invalid request",
      refused: "refused",
      failed: "service fault",
    },
    exportedAt: "Exported at",
    tenant: "Tenant",
    filters: "Filters",
    filterNames: { who: "Who", patientRef: "Patient", action: "Action", from: "From", to: "To" },
    any: "any",
    records: "Records",
    cut: (limit) =>
      `Only the first ${limit.toLocaleString("en-US")} records are in this file; narrow the period and export it in parts.`,
  },
};

/** The filters as the caller sent them, to be written beside the records. */
export interface AccessExportFilters {
  who?: string;
  patientRef?: string;
  action?: string;
  from?: string;
  to?: string;
}

export interface AccessExportAbout {
  tenant: string;
  /** Local date-time, `yyyy-MM-dd HH:mm:ss`. */
  exportedAt: string;
  filters: AccessExportFilters;
  lang: ExportLang;
}

/** The file's name: `access-log <tenant> <yyyy-MM-dd>.<format>` (访问日志 in Chinese). */
export function accessExportFileName(about: AccessExportAbout, format: AccessExportFormat): string {
  const tenant = about.tenant.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_");
  const name = about.lang === "zh" ? "访问日志" : "access-log";
  return `${name} ${tenant} ${about.exportedAt.slice(0, 10)}.${format}`;
}

/** One record as the cells of its row, in the order of the headings. */
function recordCells(record: AccessRecordAnswer, words: AccessExportWords): Array<string | Date> {
  return [
    wallClockDate(record.at.replace("T", " "), true) ?? record.at,
    record.who,
    record.credential,
    record.roles.join(", "),
    record.action,
    record.patientRefs.join(", "),
    (record.reports ?? []).join(", "),
    record.requestId,
    words.outcomes[record.outcome],
  ];
}

/** The filters and the file's facts, as label and value rows. */
function aboutRows(about: AccessExportAbout, count: number, cut: boolean, words: AccessExportWords): string[][] {
  const filters = (Object.keys(words.filterNames) as Array<keyof AccessExportFilters>).map((name) => [
    words.filterNames[name],
    about.filters[name] ?? words.any,
  ]);
  return [
    [words.tenant, about.tenant],
    [words.exportedAt, about.exportedAt],
    [words.records, String(count)],
    ...(cut ? [[words.cut(ACCESS_EXPORT_LIMIT)]] : []),
    [],
    [words.filters],
    ...filters,
  ];
}

/**
 * Writes the records `pages` yields (a page at a time, at most ACCESS_EXPORT_LIMIT of them) into
 * `out` as `format`; resolves when the file is complete, rejects (and stops reading) when `signal`
 * aborts or writing fails.
 */
export async function writeAccessLogFile(
  out: Writable,
  format: AccessExportFormat,
  about: AccessExportAbout,
  pages: AsyncIterable<AccessRecordAnswer[]>,
  signal: AbortSignal,
): Promise<number> {
  return format === "csv" ? writeCsv(out, about, pages, signal) : writeXlsx(out, about, pages, signal);
}

async function writeXlsx(
  out: Writable,
  about: AccessExportAbout,
  pages: AsyncIterable<AccessRecordAnswer[]>,
  signal: AbortSignal,
): Promise<number> {
  const words = WORDS[about.lang];
  const workbook = workbookWriter(out);
  try {
    const sheet = workbook.addWorksheet(words.sheet, { views: [{ state: "frozen", ySplit: 1 }] });
    sheet.columns = [20, 18, 24, 16, 44, 24, 24, 38, 12].map((width) => ({ width }));
    const header = sheet.addRow(words.headings);
    header.font = { bold: true };
    header.commit();
    const { count, cut } = await eachRecord(pages, signal, async (records) => {
      for (const record of records) {
        const row = sheet.addRow(
          recordCells(record, words).map((cell) => (typeof cell === "string" ? textCell(cell) : cell)),
        );
        row.getCell(1).numFmt = "yyyy-mm-dd hh:mm:ss";
        row.commit();
      }
      await awaitCompression(sheet, signal);
    });
    if (cut) {
      sheet.addRow([]).commit();
      sheet.addRow([textCell(words.cut(ACCESS_EXPORT_LIMIT))]).commit();
    }
    sheet.commit();
    const aboutSheet: ExcelJS.Worksheet = workbook.addWorksheet(words.about);
    aboutSheet.columns = [{ width: 16 }, { width: 60 }];
    for (const line of aboutRows(about, count, cut, words)) aboutSheet.addRow(line.map(textCell)).commit();
    aboutSheet.commit();
    await workbook.commit();
    return count;
  } catch (error) {
    abortWorkbook(workbook);
    throw error;
  }
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; text cells are made inert as in xlsx. */
function csvField(value: string): string {
  const safe = textCell(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

async function writeCsv(
  out: Writable,
  about: AccessExportAbout,
  pages: AsyncIterable<AccessRecordAnswer[]>,
  signal: AbortSignal,
): Promise<number> {
  const words = WORDS[about.lang];
  const line = (fields: readonly string[]) => `${fields.map(csvField).join(",")}\r\n`;
  await written(out, `\ufeff${line(words.headings)}`);
  const { count, cut } = await eachRecord(pages, signal, (records) =>
    written(
      out,
      records
        .map((record) =>
          line(
            recordCells(record, words).map((cell) => (typeof cell === "string" ? cell : record.at.replace("T", " "))),
          ),
        )
        .join(""),
    ),
  );
  if (cut) await written(out, line([words.cut(ACCESS_EXPORT_LIMIT)]));
  out.end();
  return count;
}

/** Writes `text`, and waits while the reader is behind (a slow client never makes the file pile up in memory). */
function written(out: Writable, text: string): Promise<void> {
  if (out.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
  });
}

/** Hands `write` the records page by page up to the limit; how many there were, and whether more were left out. */
async function eachRecord(
  pages: AsyncIterable<AccessRecordAnswer[]>,
  signal: AbortSignal,
  write: (records: AccessRecordAnswer[]) => Promise<void>,
): Promise<{ count: number; cut: boolean }> {
  let count = 0;
  for await (const page of pages) {
    if (signal.aborted) throw new Error("The export was stopped: its reader went away.");
    const room = ACCESS_EXPORT_LIMIT - count;
    await write(page.slice(0, room));
    count += Math.min(room, page.length);
    if (page.length > room) return { count, cut: true };
  }
  return { count, cut: false };
}
