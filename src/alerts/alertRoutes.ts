import { commandContextOf, principalOf } from "../http/requestState.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { patientVisible } from "../../queries/patients/patients.ts";
import Router from "@koa/router";
import { PassThrough } from "node:stream";
import { z } from "zod";
import { acknowledgeAlert, acknowledgeInput } from "../../commands/alerts/acknowledgeAlert.ts";
import type { EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { waitForProjection } from "../../projections/runtime/waitForProjection.ts";
import type { AlertNotice } from "../../projections/alerts/alerts.ts";
import { answerPage, pageCursor, pageOf, rowsFor } from "../http/paging.ts";
import { listTurn } from "../http/listTurns.ts";
import {
  alertById,
  ALERT_KINDS,
  ALERT_STATES,
  alertListKey,
  listAlerts,
  openAlertCount,
  alertSchema,
  type Alert,
} from "../../queries/alerts/alerts.ts";
import type { AlertFeed } from "./alertFeed.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";
import {
  CREDENTIAL_END_CODES,
  CREDENTIAL_END_SENTENCES,
  watchCaller,
  type CredentialEnd,
} from "../credentials/credentialWatch.ts";

export const alertListQuery = z.strictObject(
  {
    state: z
      .enum(ALERT_STATES, { error: "state is open, acknowledged, closed or info" })
      .default("open")
      .meta({
        description:
          "open: standing, to acknowledge; acknowledged; closed: closed by an update before anyone acknowledged " +
          "it; info: changes back inside the reference range, shown as information with nothing to acknowledge " +
          "(contract F.3 as amended)",
      }),
    limit: z.coerce
      .number({ error: "limit is a whole number from 1 to 500" })
      .int("limit is a whole number from 1 to 500")
      .min(1, "limit is a whole number from 1 to 500")
      .max(500, "limit is a whole number from 1 to 500")
      .default(100)
      .meta({
        description:
          'Alerts per page, 1 to 500 (default 100); when more remain, a Link header with rel="next" gives the next page\'s address',
      }),
    cursor: pageCursor(),
    kind: z.enum(ALERT_KINDS, { error: "kind is CRITICAL or DELTA" }).optional().meta({
      description:
        "Only alerts of this kind (contract F.3): CRITICAL (critical results) or DELTA (delta checks); absent: both",
    }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The query parameters are state (open, acknowledged, closed, info), kind (CRITICAL, DELTA), limit (1 to 500) and cursor"
        : undefined,
  },
);

export const openAlertCountAnswer = z.object({
  open: z
    .number()
    .int()
    .meta({
      description:
        "Alerts waiting to be acknowledged, of both kinds: what GET /api/alerts?state=open lists (information " +
        "and changes carried by a critical alert are not alerts of their own)",
    }),
  critical: z.number().int().meta({ description: "Of those, the critical alerts (contract D.7)" }),
  delta: z.number().int().meta({ description: "Of those, the delta alerts (contract F.3)" }),
});

/**
 * `GET /api/alerts/stream?content=`: what each message carries (issue #54). A page that only
 * counts (the staff pages' badge) asks for `notice`, which names no patient, so its stream shows
 * nobody and writes no access record; the alert itself is read from the recorded list when a
 * person is shown it. Other parameters are ignored, as they always were on this route.
 */
export const alertStreamQuery = z.object({
  content: z.enum(["alert", "notice"], { error: "content is alert (the default) or notice" }).default("alert").meta({
    description:
      "alert (the default): each message carries the alert as GET /api/alerts lists it, and each is an access record (contract E.4); notice: only { alertId, kind, severity }, which names no patient and is not recorded: for a page that re-reads the list or the count when something changed",
  }),
});

/** What a `notice` stream says of an alert: that it changed, never whose it is. */
export const alertNoticeSchema = alertSchema.pick({ alertId: true, kind: true, severity: true });

export interface AlertRouteDeps {
  store: EventStore;
  /** The dictionary in force: it names each alert's item in English and by its label. */
  dictionary: Dictionary;
  adminToken: string | undefined;
  access: AccessRecording;
  feed: AlertFeed;
  /** How often an idle stream sends a comment line, so that proxies and the page know it lives. */
  heartbeatMs: number;
}

/** Critical-result and delta alerts (contracts D.7, F.3): the list, the badge's count, acknowledgement, and a live stream. */
export function alertRoutes({ store, dictionary, adminToken, access, feed, heartbeatMs }: AlertRouteDeps): Router {
  const router = new Router({ prefix: "/api/alerts" });
  router.use(requireRole(adminToken, "clinician"));

  router.get("/", access.recorded, listTurn, async (ctx) => {
    const query = parseBody(alertListQuery, ctx.query);
    const page = pageOf(query, alertListKey);
    const rows = await readAsTenant(store.db, ctx.state.tenant, (reader) =>
      listAlerts(reader, dictionary, query.state, { ...rowsFor(page), kind: query.kind }),
    );
    const alerts = answerPage(ctx, page, rows, (alert) => alert.key).map(({ key: _, ...alert }) => alert);
    if (alerts.length > 0) showing(ctx, { patientRefs: alerts.map((alert) => alert.patientRef) });
    ctx.body = alerts;
  });

  router.get("/count", async (ctx) => {
    ctx.body = (await readAsTenant(store.db, ctx.state.tenant, openAlertCount)) satisfies z.infer<
      typeof openAlertCountAnswer
    >;
  });

  router.post("/:alertId/acknowledge", access.recorded, async (ctx) => {
    const body = parseBody(acknowledgeInput, ctx.request.body);
    const tenant = ctx.state.tenant;
    const alertId = ctx.params.alertId!;
    const alert = await readAsTenant(store.db, tenant, (reader) => alertById(reader, dictionary, alertId));
    if (!alert) throw new HttpError(404, `No alert ${alertId}; GET /api/alerts lists them.`, {}, "alert-not-found");
    // The answer is the alert as it now stands: the patient's name and result.
    showing(ctx, { patientRefs: [alert.patientRef] });
    const appended = await acknowledgeAlert(commandContextOf(ctx, store), tenant, alert.externalId, alertId, body);
    if (appended) await waitForProjection(store.db, "alerts", appended.last);
    ctx.body = await readAsTenant(store.db, tenant, (reader) => alertById(reader, dictionary, alertId));
  });

  /*
   * Server-Sent Events: `raised` with the alert, `acknowledged` and `closed` with the alert as it
   * now stands, and a comment line every heartbeat. The stream ends when the client goes (its
   * subscription with it) or the service stops, and within a second of its credential's end
   * (revoked, expired, signed out: src/credentials/credentialWatch.ts), saying why in an `ended`
   * event before it closes; nothing more is sent after that.
   */
  router.get("/stream", async (ctx) => {
    const tenant: string = ctx.state.tenant;
    const { content } = parseBody(alertStreamQuery, ctx.query);
    const stream = new PassThrough();
    let heartbeat: NodeJS.Timeout | null = null;
    let unsubscribe: (() => void) | null = null;
    let unwatch: (() => void) | null = null;
    const end = () => {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      unsubscribe?.();
      unsubscribe = null;
      unwatch?.();
      unwatch = null;
      stream.end();
    };
    const credentialEnded = (reason: CredentialEnd) => {
      if (!stream.writableEnded)
        stream.write(
          `event: ended\ndata: ${JSON.stringify({ reason, code: CREDENTIAL_END_CODES[reason], error: CREDENTIAL_END_SENTENCES[reason] })}\n\n`,
        );
      end();
    };
    const wards = principalOf(ctx).wards;
    const send = (change: AlertNotice["change"], alert: Alert) => {
      if (stream.writableEnded) return;
      if (content === "notice") {
        const notice: z.infer<typeof alertNoticeSchema> = {
          alertId: alert.alertId,
          kind: alert.kind,
          severity: alert.severity,
        };
        stream.write(`event: ${change}\ndata: ${JSON.stringify(notice)}\n\n`);
        return;
      }
      stream.write(`event: ${change}\ndata: ${JSON.stringify(alert)}\n\n`);
      // Each alert sent down the stream shows its patient: one record a message, not one for the stream.
      access.recordNow(ctx, [alert.patientRef]);
    };
    // The feed reads each alert once for every stream of the tenant, outside any request's ward
    // scope: a caller with wards is sent only the alerts of patients it may see, asked in its scope.
    const tell =
      wards === null
        ? send
        : (change: AlertNotice["change"], alert: Alert) =>
            void withWardScope(wards, () =>
              readAsTenant(store.db, tenant, (reader) => patientVisible(reader, alert.patientRef)),
            )
              .then((visible) => visible && send(change, alert))
              .catch(() => {}); // not sent: the page reads the list again when its stream reconnects
    // Watched before the subscription: a credential that ends meanwhile ends the stream all the same.
    unwatch = watchCaller(ctx, credentialEnded);
    unsubscribe = await feed.subscribe(tenant, tell, end);
    if (stream.writableEnded) end();
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    // The response, not the request: a request without a body has ended as soon as it was read.
    ctx.res.on("close", end);
    stream.on("error", end);
    ctx.set({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    ctx.status = 200;
    ctx.body = stream;
    if (stream.writableEnded) return; // ended while it subscribed: the body is the `ended` event
    stream.write("retry: 3000\n: listening\n\n");
    heartbeat = setInterval(() => stream.write(": heartbeat\n\n"), heartbeatMs);
  });
  return router;
}
