import type { z } from "zod";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { examReportSchema, labReportSchema } from "./reportSchemas.ts";

/** What differs between laboratory and examination reports; everything else is shared. */
export interface ReportKind {
  name: "lab" | "exam";
  streamPrefix: string;
  events: { received: string; claimed: string; dismissed: string };
  schema(dictionary: Dictionary): z.ZodType;
}

export const labReports: ReportKind = {
  name: "lab",
  streamPrefix: "lab-report:",
  events: { received: "LabReportReceived", claimed: "LabReportClaimed", dismissed: "LabReportDismissed" },
  schema: () => labReportSchema,
};

const examSchemas = new WeakMap<Dictionary, z.ZodType>();

export const examReports: ReportKind = {
  name: "exam",
  streamPrefix: "exam-report:",
  events: { received: "ExamReportReceived", claimed: "ExamReportClaimed", dismissed: "ExamReportDismissed" },
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

export function reportStream(kind: ReportKind, externalId: string): string {
  return `${kind.streamPrefix}${externalId}`;
}
