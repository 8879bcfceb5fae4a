import { randomUUID } from "node:crypto";
import type { Context, Middleware } from "koa";
import type { AccessOutcome } from "../../commands/access/events.ts";
import { bearerToken, digest, sameSecret } from "../http/adminAuth.ts";
import { OPERATOR, type Principal } from "../http/requestState.ts";
import { ANONYMOUS, type AccessRecorder, type CallerAtAnswer } from "./accessRecorder.ts";
import { ShownSubjects } from "./shownSubjects.ts";

/** `GET /api/patients/:patientRef/results` as the contract writes a route: `GET /api/patients/{patientRef}/results`. */
export function actionOf(ctx: Pick<Context, "method" | "path">): string {
  const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return `${ctx.method} ${typeof route === "string" ? route.replace(/:([A-Za-z0-9_]+)/g, "{$1}") : ctx.path}`;
}

/** What became of an answer, from its status and whether it was sent whole. */
export function outcomeOf(status: number, sentWhole: boolean): AccessOutcome {
  if (status >= 500) return "failed";
  if (!sentWhole) return "cut";
  if (status === 404) return "not-found";
  if (status === 401 || status === 403) return "refused";
  if (status >= 400) return "invalid";
  return "shown";
}

/**
 * Turns answers into access records (contract E.4). A route that shows patients puts `recorded`
 * after its authentication and says what it showed (shownSubjects.ts); when the response has been
 * sent (or cut off), the record is handed to the recorder, which writes it later: the answer never
 * waits for it.
 */
export class AccessRecording {
  private readonly adminDigest: Buffer | null;

  constructor(
    private readonly recorder: Pick<AccessRecorder, "record">,
    adminToken: string | undefined,
  ) {
    this.adminDigest = adminToken ? digest(adminToken) : null;
  }

  /** Route middleware: records the answer once it has been given, if its route said what it showed. */
  readonly recorded: Middleware = async (ctx, next) => {
    // A HEAD answer carries no body: it shows nobody.
    if (ctx.method === "HEAD") return next();
    const action = actionOf(ctx);
    ctx.res.once("close", () => {
      const shown = ctx.state.shown;
      if (shown?.recordable) this.record(ctx, action, shown, outcomeOf(ctx.res.statusCode, ctx.res.writableFinished));
    });
    await next();
  };

  /** Records one message of a long answer now (an alert sent down the alert stream). */
  recordNow(ctx: Context, patientRefs: readonly string[]): void {
    const shown = new ShownSubjects();
    for (const patientRef of patientRefs) shown.addPatient(patientRef);
    this.record(ctx, actionOf(ctx), shown, "shown");
  }

  private record(ctx: Context, action: string, shown: ShownSubjects, outcome: AccessOutcome): void {
    this.recorder.record({
      tenant: ctx.state.tenant,
      recordId: randomUUID(),
      caller: this.callerOf(ctx),
      record: {
        at: new Date().toISOString(),
        action,
        patientRefs: [...shown.patientRefs],
        ...(shown.patientRefsTruncated ? { patientRefsTruncated: true as const } : {}),
        ...(shown.reports.size > 0 ? { reports: [...shown.reports] } : {}),
        requestId: ctx.state.requestId,
        outcome,
      },
    });
  }

  private callerOf(ctx: Context): CallerAtAnswer {
    const token = bearerToken(ctx.get("authorization"));
    if (ctx.state.principal) return callerOfPrincipal(ctx.state.principal);
    // A viewing call: no credential needed, any token taken, and a token known only when written.
    if (!token) return ANONYMOUS;
    if (this.adminDigest && sameSecret(token, this.adminDigest)) return callerOfPrincipal(OPERATOR);
    return { kind: "token", tokenDigests: ctx.state.credentials?.digestsOf(token) ?? [] };
  }
}

/** Each kind of principal named as a record names callers: a new kind fails to compile here until it is. */
function callerOfPrincipal(principal: Principal): CallerAtAnswer {
  const roles = [...principal.roles];
  switch (principal.credential) {
    case "admin-token":
      return { kind: "known", who: principal.who, credential: "admin", roles };
    case "client-key":
      return { kind: "known", who: principal.who, credential: principal.client.clientId, roles };
    case "author-token":
      return { kind: "known", who: principal.who, credential: principal.authorId, roles };
    case "staff-session":
      return { kind: "known", who: principal.who, credential: principal.sub, roles };
  }
}
