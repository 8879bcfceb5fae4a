import Router from "@koa/router";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { indicatorAnswer, indicatorsInForce } from "../../queries/quality/indicators.ts";
import { wardKnown } from "../../queries/quality/monthFacts.ts";
import type { IndicatorFigures } from "../../queries/quality/monthFigures.ts";
import { liveMonth, type MonthAnswer } from "../../queries/quality/months.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";
import { requireRole } from "../http/authorAuth.ts";
import { parseBody } from "../http/validate.ts";
import { monthOf, noSuchWard, wardAsked, wardQuery } from "./qualityParams.ts";

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

/**
 * Contract G.2, the month's quality figures: the indicators in force, a month counted live. The
 * routes translate HTTP to the queries (queries/quality) and back.
 */
export function qualityRoutes(deps: QualityRouteDeps): Router {
  const router = new Router();
  const clinician = requireRole(deps.adminToken, "clinician");
  const { db } = deps.store;

  router.get("/api/quality/indicators", clinician, async (ctx) => {
    const indicators = await readAsTenant(db, ctx.state.tenant, indicatorsInForce);
    ctx.body = indicators.map(indicatorAnswer);
  });

  router.get("/api/quality/months/:month", clinician, deps.access.recorded, async (ctx) => {
    const month = monthOf(ctx);
    const ward = wardAsked(ctx, parseBody(wardQuery, ctx.query).ward);
    const answer = await readAsTenant(db, ctx.state.tenant, async (reader): Promise<MonthAnswer> => {
      if (ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
      const live = await liveMonth(reader, { month, ward });
      return { month, ward, state: "open", indicators: live.figures };
    });
    showing(ctx, { patientRefs: patientsNamed(answer.indicators) });
    ctx.body = answer;
  });

  return router;
}
