import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import { queueDecider } from "./queueDecisions.ts";
import type { ReportKind } from "./reportKinds.ts";

const projectionOf = (kind: ReportKind) => (kind.name === "lab" ? "lab_reports" : "exam_reports");

/** Assigns a report awaiting claim to a registered patient of the tenant. */
export async function claimReport(ctx: CommandContext, db: Db, tenant: string, kind: ReportKind, externalId: string, patientRef: string): Promise<void> {
  const exists = await readAsTenant(db, tenant, async (reader) => (await reader.query("select 1 from read.patients where patient_ref = $1", [patientRef])).rowCount);
  if (!exists) throw new CommandError("not-found", `There is no patient ${patientRef}; register the patient with PUT /api/patients/${patientRef} first.`, "patient-not-found");
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: kind.stream.id(externalId) },
    queueDecider(kind),
    { type: "claim", patientRef, by: ctx.metadata.actor, auto: false },
    ctx.metadata,
  );
  if (appended) await ctx.caughtUp(projectionOf(kind), appended.last);
}

/** Takes a report out of the queue without a patient; it stays stored, with the reason, for audit. */
export async function dismissReport(ctx: CommandContext, db: Db, tenant: string, kind: ReportKind, externalId: string, reason: string): Promise<void> {
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: kind.stream.id(externalId) },
    queueDecider(kind),
    { type: "dismiss", reason, by: ctx.metadata.actor },
    ctx.metadata,
  );
  if (appended) await ctx.caughtUp(projectionOf(kind), appended.last);
}
