/** What the page reads from the viewing API (contract A.2); types only, from the server's own modules. */
import type {
  ShownNodeDef,
  ShownParamDef,
  ShownStrippedDrillDef,
  ShownStrippedSpec,
  ShownTableColumnDef,
} from "../commands/reports/spec/specSchema.ts";
import type { QueryOutcome, QuerySuccess } from "../commands/reports/spec/queryOutcome.ts";

export type { QueryOutcome, QuerySuccess };
// The spec as the viewing call answers it: without SQL, every title and label in the page's language (issue #54).
export type NodeDef = ShownNodeDef;
export type ParamDef = ShownParamDef;
export type StrippedDrillDef = ShownStrippedDrillDef;
export type StrippedSpec = ShownStrippedSpec;
export type TableColumnDef = ShownTableColumnDef;

export type Lang = "zh" | "en";
export type Queries = Record<string, QueryOutcome>;
export type ParamValues = Record<string, unknown>;

/** The opened report (`GET /api/reports/{id}/view`). */
export interface OpenedReport {
  id: string;
  title: string;
  version: string;
  mode: "dynamic" | "snapshot";
  publishedAt: string;
  note: string;
  spec: StrippedSpec;
  params: ParamValues;
  data: Queries | null;
}

/** What the server wrote into the page (`<body data-…>`). */
export interface Boot {
  report: string;
  version: string;
  mode: string;
  tenant: string;
  lang: Lang;
  token: string;
}

export function isSuccess(outcome: QueryOutcome | undefined): outcome is QuerySuccess {
  return outcome !== undefined && !("error" in outcome);
}
