/**
 * The month's export (contract G.2) as the tables both files show: the About lines, the indicator
 * table, the per-patient table and the trend, each cell a number or the words of the file's
 * language. The workbook writes them as typed cells, the document as text: one source, so the two
 * files cannot tell the month differently.
 */
import type { ExportedIndicator, MonthExport, PatientCell } from "../../../queries/quality/monthExport.ts";
import { bandText, type QualityExportLang, type QualityExportWords } from "./qualityExportWords.ts";

export type TableCell = string | number | null;

export interface ExportTable {
  headings: string[];
  rows: TableCell[][];
  /** Columns holding rates (0–1), shown as percentages. */
  rateColumns: number[];
}

/** An indicator's name in the file's language; its code when the service holds no definition of its version. */
export function indicatorName(indicator: ExportedIndicator, lang: QualityExportLang): string {
  const definition = indicator.definition;
  if (!definition) return indicator.figures.code;
  return lang === "zh" ? definition.name : definition.nameEn;
}

/** A date-time of an answer (`yyyy-MM-ddTHH:mm:ss`) as the files write every date-time: `yyyy-MM-dd HH:mm:ss`. */
export const fileDateTime = (isoLocal: string) => isoLocal.replace("T", " ");

/** A rate (0–1) as a percentage, to 2 decimals at most: `81.25%`. */
export const percentText = (rate: number | null) => (rate === null ? "" : `${Number((rate * 100).toFixed(2))}%`);

/** The About lines: label, value. */
export function aboutLines(
  exported: MonthExport,
  words: QualityExportWords,
  lang: QualityExportLang,
  exportedAt: string,
): Array<[string, string]> {
  const { answer } = exported;
  const lines: Array<[string, string]> = [
    [words.month, words.monthLabel(answer.month)],
    [words.ward, answer.ward ?? words.wholeTenant],
    [words.state, words.states[answer.state]],
  ];
  if (answer.state === "closed") {
    lines.push([words.closedAt, fileDateTime(answer.closedAt ?? "")]);
    lines.push([words.closedBy, answer.closedBy ?? ""]);
  }
  lines.push([words.exportedAt, exportedAt]);
  return [
    ...lines,
    ...noteLines(exported, words, lang).map((note, i): [string, string] => [i ? "" : words.notes, note]),
  ];
}

function noteLines(exported: MonthExport, words: QualityExportWords, lang: QualityExportLang): string[] {
  const timeliness = exported.indicators.filter((_, index) => !exported.patientIndicators.includes(index));
  return [
    words.ratesNote,
    words.valuesNote,
    ...(exported.answer.state === "closed" ? [words.closedValuesNote] : []),
    ...(timeliness.length
      ? [
          words.timelinessNote(
            timeliness.map((indicator) => indicatorName(indicator, lang)).join(lang === "zh" ? "、" : ", "),
          ),
        ]
      : []),
    words.trendNote,
  ];
}

export function indicatorTable(exported: MonthExport, words: QualityExportWords, lang: QualityExportLang): ExportTable {
  return {
    headings: [...words.indicatorHeadings],
    rows: exported.indicators.map((indicator) => {
      const { figures, definition } = indicator;
      return [
        figures.code,
        indicatorName(indicator, lang),
        figures.numerator,
        figures.denominator,
        figures.rate,
        definition?.kind === "tested" ? words.noBand : bandText(definition?.band, definition?.unit ?? "", words),
        figures.version,
        (lang === "zh" ? definition?.sourceZh : null) ?? definition?.source ?? "",
      ];
    }),
    rateColumns: [4],
  };
}

/** A last value as written: several items' values joined, a missing one as a dash. */
export function valueText(value: PatientCell["value"]): TableCell {
  if (Array.isArray(value)) return value.map((one) => (one === null ? "—" : String(one))).join(" / ");
  return value;
}

/** The per-patient table: ref, name, then for each patient-counting indicator the place and the last value. */
export function patientTable(exported: MonthExport, words: QualityExportWords, lang: QualityExportLang): ExportTable {
  const shown = exported.patientIndicators.map((index) => exported.indicators[index]!);
  return {
    headings: [
      words.patientRef,
      words.name,
      ...shown.flatMap((indicator) => {
        const name = indicatorName(indicator, lang);
        return [name, words.lastValue(name, words.unit(indicator.definition?.unit ?? ""))];
      }),
    ],
    rows: exported.patients.map((patient) => [
      patient.patientRef,
      patient.name ?? "",
      ...patient.cells.flatMap((cell): TableCell[] => [
        cell.place === null ? null : words.places[cell.place],
        cell.changedSinceClose ? words.changedSinceClose : valueText(cell.value),
      ]),
    ]),
    rateColumns: [],
  };
}

/** The trend: a row a month (oldest first), its state, then each indicator's rate. */
export function trendTable(exported: MonthExport, words: QualityExportWords, lang: QualityExportLang): ExportTable {
  return {
    headings: [words.month, words.state, ...exported.indicators.map((indicator) => indicatorName(indicator, lang))],
    rows: exported.trend.map((month) => [
      words.monthLabel(month.month),
      words.shortStates[month.state],
      ...month.rates,
    ]),
    rateColumns: exported.indicators.map((_, i) => i + 2),
  };
}
