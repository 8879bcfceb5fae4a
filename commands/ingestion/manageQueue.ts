import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import { queueDecider, QueueRefusal, type QueueDecision } from "./queueDecisions.ts";
import type { ReportKind } from "./reportKinds.ts";

const projectionOf = (kind: ReportKind) => (kind.name === "lab" ? "lab_reports" : "exam_reports");

/**
 * The report version a person's decision was based on (their `If-Match`), or undefined when the
 * caller sent none (then nothing is compared, as before issue #51; a dismissal is still not claimed over).
 */
export type BasedOn = number | undefined;

/** Whether the caller sees this patient: read under the request's ward scope (db/wardScope.ts), so another ward's is not seen. */
async function seesPatient(db: Db, tenant: string, patientRef: string): Promise<boolean> {
  return readAsTenant(
    db,
    tenant,
    async (reader) =>
      ((await reader.query("select 1 from read.patients where patient_ref = $1", [patientRef])).rowCount ?? 0) > 0,
  );
}

const noSuchReport = (kind: ReportKind) =>
  new CommandError(
    "not-found",
    `There is no ${kind.name} report with this externalId; check the id in GET /api/unmatched.`,
    "report-not-found",
  );

/**
 * Decides on a waiting report. A refusal about a report that now belongs to a patient the caller
 * may not see answers as if the report did not exist (contract E.2): it must not name that patient,
 * nor tell that the report is theirs (issue #51 finding 5).
 */
async function decideOnReport(
  ctx: CommandContext,
  db: Db,
  tenant: string,
  kind: ReportKind,
  externalId: string,
  decision: QueueDecision,
): Promise<void> {
  let appended;
  try {
    ({ appended } = await handleCommand(
      ctx.store,
      { tenant, streamId: kind.stream.id(externalId) },
      queueDecider(kind),
      decision,
      ctx.metadata,
    ));
  } catch (error) {
    if (error instanceof QueueRefusal && error.matchedTo !== null && !(await seesPatient(db, tenant, error.matchedTo)))
      throw noSuchReport(kind);
    throw error;
  }
  if (appended) await ctx.caughtUp(projectionOf(kind), appended.last);
}

/** Assigns a report awaiting claim to a registered patient of the tenant. */
export async function claimReport(
  ctx: CommandContext,
  db: Db,
  tenant: string,
  kind: ReportKind,
  externalId: string,
  patientRef: string,
  basedOn?: BasedOn,
): Promise<void> {
  if (!(await seesPatient(db, tenant, patientRef))) {
    throw new CommandError(
      "not-found",
      `There is no patient ${patientRef}; register the patient with PUT /api/patients/${patientRef} first.`,
      "patient-not-found",
    );
  }
  await decideOnReport(ctx, db, tenant, kind, externalId, {
    type: "claim",
    patientRef,
    by: ctx.metadata.actor,
    auto: false,
    basedOn,
  });
}

/** Takes a report out of the queue without a patient; it stays stored, with the reason, for audit. */
export async function dismissReport(
  ctx: CommandContext,
  db: Db,
  tenant: string,
  kind: ReportKind,
  externalId: string,
  reason: string,
  basedOn?: BasedOn,
): Promise<void> {
  await decideOnReport(ctx, db, tenant, kind, externalId, { type: "dismiss", reason, by: ctx.metadata.actor, basedOn });
}
