import Koa from "koa";
import compose from "koa-compose";
import type { Logger } from "pino";
import type { EventStore } from "../../db/eventStore.ts";
import type { ReportRuntime } from "../../queries/reports/runSpecQueries.ts";
import type { DocxRendering } from "../reports/export/docxExport.ts";
import { accessLog } from "../http/accessLog.ts";
import { adminRoutes } from "../credentials/adminRoutes.ts";
import { apiErrors } from "../http/apiErrors.ts";
import { docsRoutes } from "../docs/docsRoutes.ts";
import { docxExportRoute } from "../reports/http/docxExportRoute.ts";
import { embedRoutes } from "../reports/http/embedRoutes.ts";
import { fhirErrors, fhirRoutes } from "../ingestion/fhir/fhirRoutes.ts";
import { healthRoutes, type Readiness } from "../http/healthRoutes.ts";
import { helpRoutes, loadHelpArticles } from "../docs/helpRoutes.ts";
import { jsonBody } from "../http/jsonBody.ts";
import { offerListTurns, type ListTurns } from "../http/listTurns.ts";
import { openApiErrors } from "../ingestion/openV1/envelope.ts";
import { openApiRoutes, type OpenApiDeps } from "../ingestion/openV1/openApiRoutes.ts";
import { patientRoutes } from "../patients/patientRoutes.ts";
import { patientCopyRoutes } from "../patients/patientCopyRoutes.ts";
import { qualityRoutes } from "../quality/qualityRoutes.ts";
import { qualityExportRoute } from "../quality/qualityExportRoute.ts";
import { idCardRegister } from "../patients/registeredPatients.ts";
import { helpPagesRoutes } from "../docs/helpPages.ts";
import { callerRoutes } from "../credentials/callerRoutes.ts";
import { dictionaryRoutes } from "../dictionary/dictionaryRoutes.ts";
import { offerStaffSessions, staffSessionRoutes, type StaffSessionDeps } from "../staffSessions/staffSessionRoutes.ts";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import { offerCredentialCheck, type CredentialCheck } from "../credentials/credentialCheck.ts";
import { offerCredentialWatch, type CredentialWatch } from "../credentials/credentialWatch.ts";
import { alertRoutes } from "../alerts/alertRoutes.ts";
import { escalationRoutes } from "../alerts/escalationRoutes.ts";
import type { AlertFeed } from "../alerts/alertFeed.ts";
import { reportRoutes } from "../reports/http/reportRoutes.ts";
import { dataSourceRoutes } from "../reports/http/dataSourceRoutes.ts";
import { requestId } from "../http/requestId.ts";
import { refuseNulInPath, refuseNulInQuery } from "../http/storablePath.ts";
import { staffRoutes } from "../staff/staffRoutes.ts";
import { resolveTenant } from "../http/tenant.ts";
import { unmatchedRoutes } from "../ingestion/unmatchedRoutes.ts";
import { historyRoutes } from "../ingestion/historyRoutes.ts";
import { bulkJobRoutes } from "../ingestion/bulkJobRoutes.ts";
import { xlsxExportRoute } from "../reports/http/xlsxExportRoute.ts";
import { httpMetrics } from "../metrics/httpMetrics.ts";
import { metricsEndpoint } from "../metrics/metricsRoutes.ts";
import { countPushes } from "../metrics/pushMetrics.ts";
import type { ServiceMetrics } from "../metrics/serviceMetrics.ts";
import { accessLogRoutes } from "../access/accessLogRoutes.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { keepMessages } from "../messages/keepMessages.ts";
import { messageRoutes } from "../messages/messageRoutes.ts";
import type { MessageKeeper } from "../messages/receivedMessage.ts";
import type { ViewingAuth } from "../http/authorAuth.ts";
import type { CallerAddresses } from "../http/callerAddress.ts";
import { exportsPerAddress } from "../reports/http/exportsPerAddress.ts";

export interface AppDependencies {
  store: EventStore;
  /** Records who was shown which patients (contract E.4); the routes that show patients take it. */
  access: AccessRecording;
  /** Keeps every message received (contract G.5); null: not kept (the benchmark's baseline). */
  messages: MessageKeeper | null;
  reports: ReportRuntime;
  /** How the docx export runs: its worker threads, the charts of one export at once, the cap on points. */
  docx: DocxRendering;
  openApi: OpenApiDeps;
  log: Logger;
  adminToken: string | undefined;
  /** VIEWING_AUTH (contract G.1): whether viewing calls and embed pages need a session or token. */
  viewingAuth: ViewingAuth;
  /** PUBLIC_URL, the service's external base URL, when set: FHIR names its Measures under it. */
  publicUrl?: string;
  /** REPORT_EXPORTS_PER_ADDRESS: exports without a credential one caller's address may have under way at once. */
  exportsPerAddress: { limit: number; addresses: CallerAddresses };
  /** Names id-card streams, and digests new keys and tokens, by a keyed hash (src/secrets/identifierKey.ts). */
  identifiers: IdentifierHasher;
  /** Staff sign-in with the hospital's OpenID Provider (null: not configured) and the sessions it opens. */
  staffSessions: StaffSessionDeps;
  /** Checks a presented client key or author token, and notes its use. */
  credentials: CredentialCheck;
  /** Tells the long-lived answers (the alert stream, exports) when the credential they hold ends. */
  watch: CredentialWatch;
  readiness: Readiness;
  metrics: ServiceMetrics;
  metricsToken: string | undefined;
  alerts: { feed: AlertFeed; heartbeatMs: number };
  /** Contract G.3: the escalation policy's webhook rules (ALERT_WEBHOOK_ALLOW_PRIVATE, whether ALERT_WEBHOOK_SECRET is set). */
  escalation: { allowPrivateWebhooks: boolean; webhookSecretSet: boolean };
  /** The turns a tenant's list pages take (src/http/listTurns.ts). */
  listTurns: ListTurns;
}

const API_BODY_LIMIT = 1024 * 1024;

export function createApp(deps: AppDependencies): Koa {
  const startedAt = new Date();
  const app = new Koa({ proxy: true });
  app.silent = true; // errors are logged by the interface's error middleware, with the request id
  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(httpMetrics(deps.metrics));
  app.use(metricsEndpoint(deps.metrics, deps.metricsToken, { tokenRequired: true }));

  const health = healthRoutes(deps.readiness);
  app.use(health.routes());
  // The articles are read once: /md serves their markdown, /help their pages.
  const articles = loadHelpArticles();
  app.use(helpRoutes(articles).routes());
  app.use(helpPagesRoutes({ articles }).routes());
  app.use(docsRoutes(deps.openApi).routes());
  // The inline-frame page (C.7) and CORS for its calls from a sandboxed frame (see embedAccess.ts).
  const embed = embedRoutes({
    db: deps.store.db,
    log: deps.log,
    adminToken: deps.adminToken,
    viewingAuth: deps.viewingAuth,
    signInUrl: deps.staffSessions.relyingParty ? "/staff/login" : "/staff/",
    callers: { sessions: deps.staffSessions.sessions, credentials: deps.credentials },
  });
  app.use(embed.routes());
  app.use(embed.cors());
  app.use(staffSessionRoutes({ ...deps.staffSessions, log: deps.log }).routes());
  // The staff pages (sign in through the identity provider or with an author token; reports,
  // alerts, unmatched queue, patients, bulk jobs, credentials over /api).
  app.use(staffRoutes({ signInProvider: deps.staffSessions.relyingParty?.settings.displayName ?? null }).routes());

  const reportDeps = {
    store: deps.store,
    db: deps.store.db,
    runtime: deps.reports,
    adminToken: deps.adminToken,
    viewingAuth: deps.viewingAuth,
    access: deps.access,
  };
  // One count for both formats: an address's exports without a credential, xlsx and docx together.
  const exportDeps = {
    ...reportDeps,
    exportsPerAddress: exportsPerAddress(deps.exportsPerAddress.limit, deps.exportsPerAddress.addresses),
  };
  app.use(
    mountUnder("/api", [
      apiErrors(deps.log),
      refuseNulInPath(),
      refuseNulInQuery(),
      resolveTenant(),
      offerCredentialCheck(deps.credentials),
      offerStaffSessions(deps.staffSessions.sessions),
      offerCredentialWatch(deps.watch),
      offerListTurns(deps.listTurns),
      jsonBody(API_BODY_LIMIT, { refuseUnstorableText: true }),
      callerRoutes(deps.adminToken).routes() as Koa.Middleware,
      dictionaryRoutes({
        served: deps.openApi.served,
        mapper: deps.openApi.mapper,
        store: deps.store,
        adminToken: deps.adminToken,
      }).routes() as Koa.Middleware,
      accessLogRoutes(deps.store.db, deps.adminToken).routes() as Koa.Middleware,
      messageRoutes(deps.store.db, deps.adminToken, deps.identifiers).routes() as Koa.Middleware,
      patientCopyRoutes({
        db: deps.store.db,
        dictionary: deps.openApi.dictionary,
        adminToken: deps.adminToken,
        access: deps.access,
        log: deps.log,
      }).routes() as Koa.Middleware,
      adminRoutes(deps.store, deps.adminToken, deps.identifiers).routes() as Koa.Middleware,
      qualityRoutes({ store: deps.store, adminToken: deps.adminToken, access: deps.access }).routes() as Koa.Middleware,
      qualityExportRoute({
        store: deps.store,
        adminToken: deps.adminToken,
        access: deps.access,
        rendering: deps.docx,
      }).routes() as Koa.Middleware,
      patientRoutes(
        deps.store,
        deps.adminToken,
        deps.openApi.dictionary,
        idCardRegister(deps.store.db, deps.identifiers),
        deps.access,
      ).routes() as Koa.Middleware,
      escalationRoutes({
        store: deps.store,
        adminToken: deps.adminToken,
        ...deps.escalation,
      }).routes() as Koa.Middleware,
      alertRoutes({
        store: deps.store,
        dictionary: deps.openApi.dictionary,
        adminToken: deps.adminToken,
        access: deps.access,
        ...deps.alerts,
      }).routes() as Koa.Middleware,
      unmatchedRoutes(deps.store, deps.adminToken, deps.access, deps.identifiers).routes() as Koa.Middleware,
      historyRoutes(deps.store.db, deps.openApi.dictionary, deps.adminToken, deps.access).routes() as Koa.Middleware,
      bulkJobRoutes(deps.store.db, deps.adminToken).routes() as Koa.Middleware,
      reportRoutes(reportDeps).routes() as Koa.Middleware,
      dataSourceRoutes(deps.reports, deps.adminToken).routes() as Koa.Middleware,
      docxExportRoute({ ...exportDeps, rendering: deps.docx }).routes() as Koa.Middleware,
      xlsxExportRoute(exportDeps).routes() as Koa.Middleware,
    ]),
  );
  const keptMessages = deps.messages ? [keepMessages(deps.messages)] : [];
  app.use(
    mountUnder("/open/v1", [
      countPushes(deps.metrics),
      ...keptMessages,
      openApiErrors(deps.log),
      refuseNulInPath(),
      refuseNulInQuery(),
      resolveTenant(),
      offerCredentialCheck(deps.credentials),
      offerListTurns(deps.listTurns),
      openApiRoutes(deps.openApi).routes() as Koa.Middleware,
    ]),
  );
  app.use(
    mountUnder("/fhir/r4", [
      countPushes(deps.metrics),
      ...keptMessages,
      fhirErrors(deps.log),
      refuseNulInPath(),
      refuseNulInQuery(),
      resolveTenant(),
      offerCredentialCheck(deps.credentials),
      offerStaffSessions(deps.staffSessions.sessions),
      fhirRoutes(deps.openApi, deps.adminToken, startedAt, deps.access, deps.publicUrl).routes() as Koa.Middleware,
    ]),
  );
  return app;
}

/** Runs the interface's middleware chain for paths below `prefix` only. */
function mountUnder(prefix: string, chain: Koa.Middleware[]): Koa.Middleware {
  const composed = compose(chain);
  return (ctx, next) => (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) ? composed(ctx, next) : next());
}
