import { criticalResultsReactor } from "../../reactors/criticalResults.ts";
import { deltaChecksReactor } from "../../reactors/deltaChecks.ts";
import { alertEscalationReactor } from "../../reactors/alertEscalation.ts";
import { accessLogProjection } from "../../projections/access/accessLog.ts";
import { alertsProjection } from "../../projections/alerts/alerts.ts";
import { autoClaimReactor } from "../../reactors/autoClaim.ts";
import { itemRemapReactor } from "../../reactors/itemRemap.ts";
import { bulkJobsProjection } from "../../projections/bulk/bulkJobs.ts";
import { credentialsProjection } from "../../projections/credentials/credentials.ts";
import { examReportsProjection } from "../../projections/ingestion/examReports.ts";
import { labReportsProjection } from "../../projections/ingestion/labReports.ts";
import { labResultsProjection } from "../../projections/ingestion/labResults.ts";
import { patientsProjection } from "../../projections/patients/patients.ts";
import type { Projection } from "../../projections/runtime/projection.ts";
import { reportsProjection } from "../../projections/reports/reports.ts";
import { standardItemsProjection } from "../../projections/dictionary/standardItems.ts";
import { itemMappingsProjection } from "../../projections/dictionary/itemMappings.ts";
import { qualityIndicatorsProjection } from "../../projections/quality/indicatorVersions.ts";
import { qualityMonthsProjection } from "../../projections/quality/qualityMonths.ts";
import { qualityClosedFiguresProjection } from "../../projections/quality/closedFigures.ts";

/** Every read model and reactor of the service, in no particular order: each one stands alone. */
export const allProjections: readonly Projection[] = [
  credentialsProjection,
  patientsProjection,
  labReportsProjection,
  labResultsProjection,
  examReportsProjection,
  autoClaimReactor,
  standardItemsProjection,
  itemMappingsProjection,
  itemRemapReactor,
  reportsProjection,
  bulkJobsProjection,
  criticalResultsReactor,
  deltaChecksReactor,
  alertEscalationReactor,
  alertsProjection,
  accessLogProjection,
  qualityIndicatorsProjection,
  qualityMonthsProjection,
  qualityClosedFiguresProjection,
];
