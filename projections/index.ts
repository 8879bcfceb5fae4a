import { criticalResultsReactor } from "../reactors/criticalResults.ts";
import { alertsProjection } from "./alerts.ts";
import { autoClaimReactor } from "./autoClaim.ts";
import { bulkJobsProjection } from "./bulkJobs.ts";
import { credentialsProjection } from "./credentials.ts";
import { examReportsProjection } from "./examReports.ts";
import { labReportsProjection } from "./labReports.ts";
import { labResultsProjection } from "./labResults.ts";
import { patientsProjection } from "./patients.ts";
import type { Projection } from "./projection.ts";
import { reportsProjection } from "./reports.ts";
import { standardItemsProjection } from "./standardItems.ts";

/** Every read model and reactor of the service, in no particular order: each one stands alone. */
export const allProjections: readonly Projection[] = [
  credentialsProjection,
  patientsProjection,
  labReportsProjection,
  labResultsProjection,
  examReportsProjection,
  autoClaimReactor,
  standardItemsProjection,
  reportsProjection,
  bulkJobsProjection,
  criticalResultsReactor,
  alertsProjection,
];
