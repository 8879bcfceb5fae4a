import Router from "@koa/router";
import type { Context } from "koa";
import { closeMonth } from "../../commands/quality/closeMonth.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { closedAnswer, closeOf, storeHeadCheckpoint } from "../../queries/quality/closedMonths.ts";
import { indicatorAnswer, indicatorsInForce } from "../../queries/quality/indicators.ts";
import { wardKnown } from "../../queries/quality/monthFacts.ts";
import type { IndicatorFigures } from "../../queries/quality/monthFigures.ts";
import { monthAnswer } from "../../queries/quality/monthAnswer.ts";
import { liveMonth } from "../../queries/quality/months.ts";
import { restateMonth } from "../../queries/quality/restatement.ts";
import { patientMonth } from "../../queries/quality/patientMonth.ts";
import { wardsOfPatients } from "../../queries/patients/patients.ts";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { commandContextOf, principalOf } from "../http/requestState.ts";
import { parseBody } from "../http/validate.ts";
import { offTargetPatients, type OffTargetAnswer } from "../../queries/quality/offTargetPatients.ts";
import {
  closeBody,
  currentMonth,
  monthOf,
  noQuery,
  noSuchWard,
  offTargetQuery,
  wardAsked,
  wardQuery,
} from "./qualityParams.ts";

export interface QualityRouteDeps {
  store: EventStore;
  adminToken: string | undefined;
  access: AccessRecording;
}

/** Every patient an answer's figures name: what the access record holds (contract E.4). */
export function patientsNamed(indicators: readonly Pick<IndicatorFigures, "patients">[]): string[] {
  return [
    ...new Set(indicators.flatMap(({ patients }) => [...patients.met, ...patients.notMet, ...patients.untested])),
  ];
}

/** How long a close waits for the quality_months projection to reach the store's head before it answers 503. */
const CLOSE_CATCH_UP_MS = 10_000;

/**
 * Contract G.2, the month's quality figures: the indicators in force, a month counted live or as
 * closed, its close, its restatement, and a patient's month. The routes translate HTTP to the
 * queries (queries/quality) and the close command (commands/quality), and back.
 */
export function qualityRoutes(deps: QualityRouteDeps): Router {
  const router = new Router();
  const clinician = requireRole(deps.adminToken, "clinician");
  const { db } = deps.store;

  router.get("/api/quality/indicators", clinician, async (ctx) => {
    const indicators = await readAsTenant(db, ctx.state.tenant, indicatorsInForce);
    ctx.body = indicators.map(indicatorAnswer);
  });

  // The wards a month can be counted for, for the staff page's choice: those of the patients the caller sees.
  router.get("/api/quality/wards", clinician, async (ctx) => {
    parseBody(noQuery, ctx.query);
    ctx.body = await readAsTenant(db, ctx.state.tenant, wardsOfPatients);
  });

  router.get("/api/quality/months/:month", clinician, deps.access.recorded, async (ctx) => {
    const month = monthOf(ctx);
    const ward = wardAsked(ctx, parseBody(wardQuery, ctx.query).ward);
    const answer = await monthAnswer(db, ctx.state.tenant, month, ward);
    if (!answer) throw noSuchWard(ward!);
    showing(ctx, { patientRefs: patientsNamed(answer.indicators) });
    ctx.body = answer;
  });

  // The staff page's list of one indicator's patients not at target, with their last values: one call, not two a patient.
  router.get("/api/quality/months/:month/patients", clinician, deps.access.recorded, async (ctx) => {
    const month = monthOf(ctx);
    const query = parseBody(offTargetQuery, ctx.query);
    const ward = wardAsked(ctx, query.ward);
    const closed = await closeOf(db, ctx.state.tenant, month, ward);
    const answer = await readAsTenant(db, ctx.state.tenant, async (reader): Promise<OffTargetAnswer> => {
      if (ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
      const live = await liveMonth(reader, { month, ward });
      const indicator = live.indicators.find((entry) => entry.code === query.code);
      if (!indicator || indicator.kind === "timeliness")
        throw new HttpError(
          400,
          `code must be a target or tested indicator in force: ${live.indicators
            .filter((entry) => entry.kind !== "timeliness")
            .map((entry) => entry.code)
            .join(", ")}.`,
        );
      const figures = (closed ? closedAnswer(closed).indicators : live.figures).find(
        (entry) => entry.code === query.code,
      ) ?? { patients: { met: [], notMet: [], untested: [] } };
      return {
        month,
        ward,
        code: query.code,
        state: closed ? "closed" : "open",
        patients: await offTargetPatients(reader, live, indicator, figures),
      };
    });
    showing(ctx, { patientRefs: answer.patients.map((patient) => patient.patientRef) });
    ctx.body = answer;
  });

  router.post(
    "/api/quality/months/:month/close",
    requireRole(deps.adminToken, "admin"),
    deps.access.recorded,
    async (ctx) => {
      const month = monthOf(ctx);
      const ward = wardAsked(ctx, parseBody(closeBody, ctx.request.body ?? {}).ward);
      const tenant: string = ctx.state.tenant;
      await closeMonth(
        commandContextOf(ctx, deps.store),
        tenant,
        { month, ward, closedBy: principalOf(ctx).who, currentMonth: currentMonth() },
        async () => {
          await caughtUpWithStore(ctx);
          const live = await readAsTenant(db, tenant, async (reader) => {
            if (ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
            return liveMonth(reader, { month, ward });
          });
          return { position: live.applied?.position ?? null, indicators: live.figures };
        },
      );
      const answer = closedAnswer((await closeOf(db, tenant, month, ward))!);
      showing(ctx, { patientRefs: patientsNamed(answer.indicators) });
      ctx.status = 201;
      ctx.body = answer;
    },
  );

  router.get("/api/quality/months/:month/restatement", clinician, deps.access.recorded, async (ctx) => {
    const month = monthOf(ctx);
    const ward = wardAsked(ctx, parseBody(wardQuery, ctx.query).ward);
    const tenant: string = ctx.state.tenant;
    const closed = await closeOf(db, tenant, month, ward);
    const answer = await readAsTenant(db, tenant, async (reader) => {
      if (!closed) {
        if (ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
        throw new HttpError(
          409,
          `${month} of ${ward === null ? "the whole tenant" : `ward ${JSON.stringify(ward)}`} is not closed: there is nothing to restate; GET /api/quality/months/${month} counts it as it is now.`,
          {},
          "month-not-closed",
        );
      }
      return restateMonth(reader, db, tenant, closed, { month, ward });
    });
    showing(ctx, {
      patientRefs: answer.indicators.flatMap((indicator) => indicator.changes.map((change) => change.patientRef)),
    });
    ctx.body = answer;
  });

  router.get("/api/patients/:patientRef/months/:month", clinician, deps.access.recorded, async (ctx) => {
    const patientRef = ctx.params.patientRef!;
    if (!PATIENT_REF_PATTERN.test(patientRef))
      throw new HttpError(
        400,
        "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
      );
    // About this patient from here on, shown or not: an attempt on a patient is part of its log.
    showing(ctx, { patientRefs: [patientRef] });
    const month = monthOf(ctx);
    parseBody(noQuery, ctx.query);
    const answer = await readAsTenant(db, ctx.state.tenant, (reader) => patientMonth(reader, patientRef, month));
    if (!answer)
      throw new HttpError(
        404,
        `No patient ${patientRef} in this tenant; GET /api/patients lists them.`,
        {},
        "patient-not-found",
      );
    ctx.body = answer;
  });

  /** A close counts what the store holds when it is asked: the projection applies up to its head first. */
  async function caughtUpWithStore(ctx: Context): Promise<void> {
    const head = await storeHeadCheckpoint(db);
    if (head && !(await commandContextOf(ctx, deps.store).caughtUp("quality_months", head, CLOSE_CATCH_UP_MS)))
      throw new HttpError(
        503,
        "The month's figures are still being brought up to date with the latest results; close it again in a minute.",
        { "Retry-After": "30" },
      );
  }

  return router;
}
