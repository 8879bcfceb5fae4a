import { CsvError, parse } from "csv-parse/sync";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { savePatient, type IdCardRegister } from "./managePatients.ts";
import { explainIdCard, MISSING_ID_CARD } from "./nationalId.ts";
import { PATIENT_REF_PATTERN, registerPatientInput, type RegisterPatient } from "./registerPatient.ts";

export const REQUIRED_COLUMNS = ["patientRef", "name", "idCard"] as const;
export const OPTIONAL_COLUMNS = ["hisPatientId", "ward", "active"] as const;
const ALL_COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];
const EXPECTED = `expected the header row ${REQUIRED_COLUMNS.join(",")} followed by any of ${OPTIONAL_COLUMNS.join(",")} (the last three are optional)`;

const TRUE_WORDS = new Set(["true", "1", "yes", "是"]);
const FALSE_WORDS = new Set(["false", "0", "no", "否"]);

export interface CsvRejection {
  /** Line of the file (1-based) where the rejected row starts; the header is usually line 1. */
  line: number;
  message: string;
}

export interface CsvImportResult {
  created: number;
  updated: number;
  unchanged: number;
  rejected: CsvRejection[];
}

interface ParsedRow {
  line: number;
  patientRef: string;
  input: RegisterPatient;
}

/**
 * Registers or updates the patients of a CSV file (UTF-8, with or without BOM; header row
 * `patientRef,name,idCard[,hisPatientId,ward,active]`). Each row stands alone: a bad row is
 * reported with its line number and how to fix it, the others are saved. A bad header or broken
 * quoting rejects the whole file, since then no row can be trusted.
 */
export async function importPatientsCsv(
  ctx: CommandContext,
  register: IdCardRegister,
  tenant: string,
  csvText: string,
): Promise<CsvImportResult> {
  const result: CsvImportResult = { created: 0, updated: 0, unchanged: 0, rejected: [] };
  const parsed = parseRows(csvText);
  if ("fileProblem" in parsed) {
    result.rejected.push(parsed.fileProblem);
    return result;
  }

  const rows: ParsedRow[] = [];
  const refLines = new Map<string, number>();
  const idCardLines = new Map<string, { line: number; patientRef: string }>();
  for (const raw of parsed.rows) {
    const problem = validateRow(raw.record, parsed.columnCount, raw.fieldCountError);
    if (typeof problem === "string") {
      result.rejected.push({ line: raw.line, message: problem });
      continue;
    }
    const earlier = refLines.get(problem.patientRef);
    if (earlier !== undefined) {
      result.rejected.push({
        line: raw.line,
        message: `patientRef ${problem.patientRef} is also on line ${earlier}; keep one row per patient`,
      });
      continue;
    }
    const sameId = idCardLines.get(problem.input.idCard);
    if (sameId) {
      result.rejected.push({
        line: raw.line,
        message: `idCard is also on line ${sameId.line} (patient ${sameId.patientRef}); one identity number belongs to one patient — check which row is right`,
      });
      continue;
    }
    refLines.set(problem.patientRef, raw.line);
    idCardLines.set(problem.input.idCard, { line: raw.line, patientRef: problem.patientRef });
    rows.push({ line: raw.line, ...problem });
  }

  // One at a time: each save checks identity numbers against the patients saved before it.
  for (const row of rows) {
    try {
      const saved = await savePatient(ctx, register, tenant, row.patientRef, row.input);
      if (saved.created) result.created++;
      else if (saved.changed) result.updated++;
      else result.unchanged++;
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      result.rejected.push({ line: row.line, message: error.message });
    }
  }
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}

interface RawRow {
  line: number;
  record: Record<string, string>;
  fieldCountError: "fewer" | "more" | null;
}

function parseRows(csvText: string): { rows: RawRow[]; columnCount: number } | { fileProblem: CsvRejection } {
  let header: string[] | null = null;
  let records: { record: Record<string, string>; raw: string; info: { lines: number; error?: CsvError } }[];
  try {
    records = parse(csvText, {
      bom: true,
      columns: (names: string[]) => {
        header = names;
        // Accept any letter case ("PatientRef"); unknown names are kept and refused below.
        return names.map((name) => ALL_COLUMNS.find((known) => known.toLowerCase() === name.toLowerCase()) ?? name);
      },
      skip_empty_lines: true,
      trim: true,
      // A row with too few or too many fields is that row's problem, not the file's.
      relax_column_count: true,
      // Excel writes CRLF, hand-edited files often LF; a mix must not glue rows together.
      record_delimiter: ["\r\n", "\n"],
      info: true,
      raw: true,
    }) as typeof records;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines ?? 1;
    return {
      fileProblem: {
        line,
        message:
          `the file is not valid CSV (${error.message.replace(/ at line \d+/, "")}); a field that starts with a ` +
          `double quote must end with one, and a quote inside it is written twice (""). Nothing was imported`,
      },
    };
  }

  const headerLine = leadingBlankLines(csvText) + 1;
  if (header === null) return { fileProblem: { line: headerLine, message: `the file is empty; ${EXPECTED}` } };
  const names: string[] = header;
  const canonical = names.map((name) => ALL_COLUMNS.find((known) => known.toLowerCase() === name.toLowerCase()));
  const unknown = names.filter((_, i) => canonical[i] === undefined);
  const missing = REQUIRED_COLUMNS.filter((column) => !canonical.includes(column));
  const repeated = ALL_COLUMNS.filter((column) => canonical.filter((c) => c === column).length > 1);
  const problems: string[] = [];
  if (unknown.length)
    problems.push(`unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => JSON.stringify(n)).join(", ")}`);
  if (missing.length) problems.push(`missing column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
  if (repeated.length)
    problems.push(
      `column${repeated.length > 1 ? "s" : ""} ${repeated.join(", ")} appear${repeated.length > 1 ? "" : "s"} twice`,
    );
  if (problems.length) {
    return {
      fileProblem: {
        line: headerLine,
        message: `the header has ${problems.join("; ")}; ${EXPECTED}. Nothing was imported`,
      },
    };
  }

  const rows: RawRow[] = [];
  for (const { record, raw, info } of records) {
    // Rows of empty fields only (",,,," as spreadsheets leave them) are blank lines too.
    if (Object.values(record).every((value) => value === "")) continue;
    const uneven = info.error?.code === "CSV_RECORD_INCONSISTENT_COLUMNS";
    rows.push({
      line: startLine(info.lines, raw),
      record,
      fieldCountError: uneven ? (Object.keys(record).length < names.length ? "fewer" : "more") : null,
    });
  }
  return { rows, columnCount: names.length };
}

function leadingBlankLines(text: string): number {
  const blank = /^\uFEFF?(?:[ \t]*\r?\n)*/.exec(text)![0];
  return (blank.match(/\n/g) ?? []).length;
}

/** csv-parse reports where a record ends; a quoted field may span lines, and skipped blank lines precede it in `raw`. */
function startLine(endLine: number, raw: string): number {
  const body = raw.replace(/^(?:[ \t]*\r?\n)+/, "").replace(/\r?\n$/, "");
  return endLine - (body.match(/\n/g) ?? []).length;
}

function validateRow(
  record: Record<string, string>,
  columnCount: number,
  fieldCountError: "fewer" | "more" | null,
): string | { patientRef: string; input: RegisterPatient } {
  if (fieldCountError !== null) {
    return (
      `the row has ${fieldCountError} fields than the header's ${columnCount} columns; check for a missing or ` +
      "extra comma, and put a value that contains a comma in double quotes"
    );
  }
  const problems: string[] = [];
  const patientRef = record.patientRef ?? "";
  if (patientRef === "") problems.push("patientRef is empty: give the centre's own identifier of the patient");
  else if (!PATIENT_REF_PATTERN.test(patientRef)) {
    problems.push(
      `patientRef ${JSON.stringify(patientRef)} must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
    );
  }

  const idCard = explainIdCard(record.idCard ?? "");
  if (!idCard.valid) {
    problems.push(
      idCard.reason === MISSING_ID_CARD
        ? "idCard is empty: give the patient's 18-character national identity number"
        : (idCard.reason ?? "idCard is not a valid national identity number"),
    );
  }

  const active = parseActive(record.active ?? "");
  if (active === undefined) {
    problems.push(
      `active is ${JSON.stringify(record.active)}; write true/false, 1/0, yes/no or 是/否 (empty means true)`,
    );
  }

  const checked = registerPatientInput.safeParse({
    name: record.name ?? "",
    idCard: idCard.normalised,
    hisPatientId: record.hisPatientId || null,
    ward: record.ward || null,
    active: active ?? true,
  });
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      problems.push(
        issue.path[0] === "name" && record.name === ""
          ? "name is empty: give the patient's name as registered"
          : issue.message,
      );
    }
  }
  if (problems.length || !checked.success) return problems.join("; ");
  return { patientRef, input: checked.data };
}

function parseActive(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (word === "" || TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}
