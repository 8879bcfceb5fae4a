import type { z } from "zod";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { examReportStreams, labReportStreams, type ReportStreamKind } from "./events.ts";
import { examReportSchema, labReportSchema } from "./reportSchemas.ts";

/** What differs between laboratory and examination reports; everything else is shared. */
export interface ReportKind extends ReportStreamKind {
  schema(dictionary: Dictionary): z.ZodType;
}

export const labReports: ReportKind = {
  ...labReportStreams,
  schema: () => labReportSchema,
};

const examSchemas = new WeakMap<Dictionary, z.ZodType>();

export const examReports: ReportKind = {
  ...examReportStreams,
  schema: (dictionary) => {
    let schema = examSchemas.get(dictionary);
    if (!schema) {
      schema = examReportSchema(new Set(dictionary.examTypes.map((type) => type.code)));
      examSchemas.set(dictionary, schema);
    }
    return schema;
  },
};

export const reportKinds = { lab: labReports, exam: examReports } as const;
