import type { Lang } from "../../types.ts";

/** The words of the editor's column pickers, series and schema browser (issue #54). */
export interface ColumnTexts {
  /** The first choice of a column picker: none chosen. */
  chooseColumn: string;
  /** Beside a column the spec names that the last preview's result did not hold. */
  notInResult: (column: string) => string;
  /** Under a picker: where its columns come from. */
  fromPreview: string;
  /** Under a column typed by hand: the query's columns are known once the draft is saved. */
  typeUntilSaved: string;
  series: string;
  seriesNone: string;
  seriesHint: string;
  schema: string;
  schemaIntro: string;
  schemaLoading: string;
  schemaFailed: string;
  relationKinds: { table: string; view: string };
  columnCount: (count: number) => string;
  dictionary: string;
  dictionaryIntro: string;
  colCode: string;
  colLabel: string;
  colUnit: string;
  /** An audit finding of rule unknown-column, in the page's language. */
  unknownColumn: (column: string, suggestion: string | null) => string;
}

const zh: ColumnTexts = {
  chooseColumn: "（选择列）",
  notInResult: (column) => `${column}（预览结果中没有此列）`,
  fromPreview: "可选的列来自上次预览中这个查询的结果。",
  typeUntilSaved: "保存草稿并预览后，可从查询结果的列中选择。",
  series: "分组（系列）列",
  seriesNone: "不分组",
  seriesHint: "按这一列的取值分成多个系列，如按病区：每个病区一组柱或一条线，并显示图例。",
  schema: "数据源：表、列和检验项目",
  schemaIntro: "查询可以读取的表和视图及其列；检验项目的编码和名称来自字典。",
  schemaLoading: "正在读取数据源…",
  schemaFailed: "暂时无法读取数据源的结构。",
  relationKinds: { table: "表", view: "视图" },
  columnCount: (count) => `${count} 列`,
  dictionary: "检验项目（字典）",
  dictionaryIntro: "在 SQL 中按编码引用，如 std_code = 'KTV'。",
  colCode: "编码",
  colLabel: "名称",
  colUnit: "单位",
  unknownColumn: (column, suggestion) =>
    `查询结果中没有列“${column}”${suggestion ? `，您是否想用“${suggestion}”？` : "；请从查询结果的列中选择。"}`,
};

const en: ColumnTexts = {
  chooseColumn: "(choose a column)",
  notInResult: (column) => `${column} (not in the preview's result)`,
  fromPreview: "The columns offered are those of this query's result in the last preview.",
  typeUntilSaved: "Once the draft is saved and previewed, the query's columns are offered to pick from.",
  series: "Series column",
  seriesNone: "No series",
  seriesHint: "Splits the rows into series by this column's values, e.g. ward: a bar or line per ward, with a legend.",
  schema: "Data source: tables, columns and items",
  schemaIntro:
    "The tables and views a query can read, with their columns; the laboratory items' codes and names come from the dictionary.",
  schemaLoading: "Reading the data source…",
  schemaFailed: "The data source's structure cannot be read just now.",
  relationKinds: { table: "table", view: "view" },
  columnCount: (count) => (count === 1 ? "1 column" : `${count} columns`),
  dictionary: "Laboratory items (dictionary)",
  dictionaryIntro: "Refer to an item by its code in SQL, e.g. std_code = 'KTV'.",
  colCode: "Code",
  colLabel: "Name",
  colUnit: "Unit",
  unknownColumn: (column, suggestion) =>
    `The query returns no column "${column}"${suggestion ? `; did you mean "${suggestion}"?` : "; pick one of its result's columns."}`,
};

export const columnTextsFor = (lang: Lang): ColumnTexts => (lang === "en" ? en : zh);
