import { z } from "zod";

/** DiagnosticReports a Bundle may hold: as many as ten pushes. */
export const MAX_REPORTS_PER_BUNDLE = 1000;

const resource = z.looseObject({
  resourceType: z.string({ error: "Each entry's resource needs its resourceType, e.g. DiagnosticReport." }),
});

/**
 * The envelope of what POST /fhir/r4 takes (contract D.6): its entries are read by
 * bundleToLabReports, each DiagnosticReport then validated as a lab report.
 */
export const bundleSchema = z.looseObject({
  resourceType: z.literal("Bundle", { error: "POST a Bundle (resourceType Bundle) of type batch or transaction." }),
  type: z.enum(["batch", "transaction"], { error: "Bundle.type must be batch or transaction." }),
  entry: z
    .array(
      z.looseObject({
        fullUrl: z.string().optional(),
        resource: resource.optional(),
      }),
      { error: "Bundle.entry must be an array of entries, each with its resource." },
    )
    .min(1, { error: "Bundle.entry is empty: send the DiagnosticReports with their Observations and Patients." }),
});
export type PostedBundle = z.infer<typeof bundleSchema>;
