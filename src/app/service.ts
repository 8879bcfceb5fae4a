import { ingestionDeps } from "./ingestionDeps.ts";
import { loadIdentifierHasher } from "../secrets/identifierKey.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { OidcRelyingParty } from "../staffSessions/oidcRelyingParty.ts";
import { SessionStore } from "../staffSessions/sessionStore.ts";
import { SignInSeal } from "../staffSessions/signInSeal.ts";
import { holdsAnotherTenant } from "../../queries/tenants/storeTenants.ts";
import { CredentialCheck } from "../credentials/credentialCheck.ts";
import { CredentialUses } from "../credentials/credentialUses.ts";
import { CredentialWatch } from "../credentials/credentialWatch.ts";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import { recordDictionaryRelease } from "../../commands/dictionary/recordDictionaryRelease.ts";
import { derivationIndex } from "../../projections/ingestion/derivationIndex.ts";
import { EventStore } from "../../db/eventStore.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { serveDictionary } from "../../queries/dictionary/dictionary.ts";
import { migrate, missingMigrations } from "../../db/migrate.ts";
import { createPool, type Db } from "../../db/pool.ts";
import { prepareReportRunner, reportRunnerUrl } from "../../db/reportRunner.ts";
import { RESEARCH_RUNNER_ROLE } from "../../db/researchViews.ts";
import { storeResearchKey } from "../secrets/researchKey.ts";
import { storeIdCardSearchKey } from "../secrets/idCardSearchKey.ts";
import { DataSources, dataSourcesFromEnv } from "../../queries/reports/dataSources.ts";
import { TenantGate } from "../../queries/reports/tenantGate.ts";
import { ListTurns } from "../http/listTurns.ts";
import { allProjections } from "./allProjections.ts";
import type { Projection, TransactionalJobs } from "../../projections/runtime/projection.ts";
import { ProjectionWorker } from "../../projections/runtime/worker.ts";
import { AlertFeed } from "../alerts/alertFeed.ts";
import { alertById } from "../../queries/alerts/alerts.ts";
import { heldBackTenants, stoppedProjections } from "../../queries/runtime/projectionStatus.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { startAlertWebhook } from "../alerts/alertWebhook.ts";
import { EscalationDelivery } from "../alerts/escalationDelivery.ts";
import { createMailer } from "../alerts/escalationMail.ts";
import { TableStatistics } from "../../db/tableStatistics.ts";
import { LedgerSealer } from "../../projections/runtime/ledgerSealer.ts";
import { createBoss, createWakeupQueues, ensureWakeupQueue, WakeupSender } from "../../projections/runtime/wakeups.ts";
import { BULK_WAKEUP_QUEUE, BulkImporter } from "../../reactors/bulkImporter.ts";
import { remapSteps } from "../../reactors/itemRemap.ts";
import type { Config } from "./config.ts";
import { openDatabase } from "./openDatabase.ts";
import { createApp } from "./httpApp.ts";
import { ClientErrorAnswers } from "../http/clientErrors.ts";
import { StalledResponses } from "../http/stalledResponses.ts";
import { CallerAddresses } from "../http/callerAddress.ts";
import { IdleMemoryRelease } from "./idleMemoryRelease.ts";
import { GracefulClose } from "../http/gracefulClose.ts";
import type { DemoDataState } from "../http/healthRoutes.ts";
import { listenForMetrics } from "../metrics/metricsRoutes.ts";
import { ServiceMetrics } from "../metrics/serviceMetrics.ts";
import { MllpListener } from "../ingestion/hl7/mllpListener.ts";
import type { DocxAnswer, DocxJob } from "../reports/export/docxExport.ts";
import { WorkerPool } from "../reports/export/workerPool.ts";
import { AccessRecorder } from "../access/accessRecorder.ts";
import { MessageRecorder } from "../messages/messageRecorder.ts";
import { AccessRecording } from "../access/accessRecording.ts";

export type Role = "all" | "api" | "worker";

export interface ServiceOptions {
  config: Config;
  role: Role;
  log: Logger;
  projections?: readonly Projection[];
  /** Where DATASOURCE_<NAME>_URL variables are read from (the process environment by default). */
  env?: NodeJS.ProcessEnv;
  /**
   * false: answers are not recorded in the access log. Not a setting (contract E.4 wants every
   * answer recorded): the benchmark's baseline for what recording costs (bench/identity.ts).
   */
  recordAccess?: boolean;
  /**
   * false: received messages are not kept. Not a setting (contract G.5 keeps every message): the
   * benchmark's baseline for what keeping them costs.
   */
  keepMessages?: boolean;
  /** Where the demo data that `start` loads through this process stands, for /readyz; absent when it loads none. */
  demoData?: () => DemoDataState | undefined;
}

export interface RunningService {
  url: string | null;
  /** The MLLP listener's port, when HL7_MLLP_PORT is set (and this process serves the API). */
  mllpPort: number | null;
  databaseUrl: string;
  db: Db;
  eventStore: EventStore;
  worker: ProjectionWorker | null;
  stop(): Promise<void>;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, role, log, projections = allProjections, env = process.env, recordAccess = true, demoData } = options;
  const keepReceived = options.keepMessages ?? true;
  const { url: databaseUrl, embedded } = await openDatabase(config, log);
  const stack: Array<() => Promise<unknown>> = [];
  if (embedded) stack.push(() => embedded.stop());
  try {
    await migrate(databaseUrl, (message) => log.debug({ migration: message }));
    const db = createPool(databaseUrl, {
      max: config.DB_POOL_MAX,
      applicationName: `dialysis-hub-${role}`,
      queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    });
    stack.push(() => db.end());
    const metrics = new ServiceMetrics(db, {
      processMetrics: config.METRICS_TOKEN !== undefined || config.METRICS_PORT !== undefined,
    });
    if (config.METRICS_PORT !== undefined) {
      const metricsServer = await listenForMetrics(metrics, config.METRICS_PORT, config.METRICS_TOKEN);
      stack.push(() => closeServer(metricsServer, 0));
    }
    const unset = await prepareReportRunner(db, databaseUrl, {
      connectionLimit: config.REPORT_ROLE_CONNECTION_LIMIT,
      workMem: config.REPORT_WORK_MEM,
      tempFileLimit: config.REPORT_TEMP_FILE_LIMIT,
    });
    if (unset.length > 0) {
      log.warn(
        { notSet: unset },
        "the report role's settings named in notSet were left as they are: the service's database user may not make them (operations.md, The report role)",
      );
    }
    const boss: PgBoss = createBoss(databaseUrl, log, { queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS });
    await boss.start();
    stack.push(() => boss.stop({ graceful: true, wait: true, timeout: 10_000 }));

    // Once a load is over, its garbage is collected and the memory given back (idleMemoryRelease.ts).
    const release = IdleMemoryRelease.start(config.IDLE_MEMORY_RELEASE_MB, log);
    if (release) stack.push(async () => release.stop());

    const eventStore = new EventStore(db);
    const identifiers = await loadIdentifierHasher(db, config.ID_HASH_KEY);
    await storeResearchKey(db, identifiers);
    await storeIdCardSearchKey(db, identifiers);
    // Written every few seconds; the last uses once the HTTP server and the MLLP listener have stopped.
    const credentialUses = new CredentialUses(db, log);
    credentialUses.start();
    stack.push(() => credentialUses.stop());
    const credentials = new CredentialCheck(db, identifiers, credentialUses);
    const sessions = new SessionStore(db, identifiers, {
      idleMs: config.SESSION_IDLE_MINUTES * 60_000,
      maxMs: config.SESSION_MAX_HOURS * 3_600_000,
    });
    // Ends the open alert streams, exports and MLLP connections whose credential ends, whichever process ended it.
    const watch = new CredentialWatch(db, sessions, log);
    stack.push(async () => watch.stop());
    const dictionary = loadDefaultDictionary();
    const served = serveDictionary(dictionary);
    const ingestion = ingestionDeps(eventStore, dictionary);
    await recordDictionaryRelease(eventStore, dictionary, served.version);
    await ensureWakeupQueue(boss, BULK_WAKEUP_QUEUE);
    let worker: ProjectionWorker | null = null;
    let importer: BulkImporter | null = null;
    if (role !== "api") {
      remapSteps.results = config.REMAP_STEP_RESULTS;
      derivationIndex.enabled = config.DERIVATION_INDEX === "on";
      // Delivered by this process's pg-boss worker; sent by the critical-results reactor as it raises each alert.
      const webhookJobs =
        config.ALERT_WEBHOOK_URL && config.ALERT_WEBHOOK_SECRET
          ? await startAlertWebhook(
              boss,
              db,
              {
                url: config.ALERT_WEBHOOK_URL,
                secret: config.ALERT_WEBHOOK_SECRET,
                allowPrivate: config.ALERT_WEBHOOK_ALLOW_PRIVATE === "1",
              },
              log,
              config.WORKER_POLL_SECONDS,
              dictionary,
            )
          : undefined;
      // Contract G.3: each step of a critical alert's escalation, sent by the escalation reactor as it fixes them.
      const escalation = new EscalationDelivery(
        boss,
        db,
        dictionary,
        {
          mailer: config.SMTP_URL
            ? createMailer({
                smtpUrl: config.SMTP_URL,
                passwordFile: config.SMTP_PASSWORD_FILE,
                from: config.MAIL_FROM!,
              })
            : null,
          from: config.MAIL_FROM ?? null,
          publicUrl: config.PUBLIC_URL,
          webhookSecret: config.ALERT_WEBHOOK_SECRET ?? null,
          allowPrivate: config.ALERT_WEBHOOK_ALLOW_PRIVATE === "1",
          retrySeconds: config.ALERT_NOTIFY_RETRY_SECONDS,
          pollingIntervalSeconds: config.WORKER_POLL_SECONDS,
        },
        log,
      );
      const escalationJobs = await escalation.start();
      stack.push(async () => escalation.stop());
      const jobs = allJobs([webhookJobs, escalationJobs]);
      worker = new ProjectionWorker(db, boss, projections, log, {
        pollingIntervalSeconds: config.WORKER_POLL_SECONDS,
        safetyNetMs: config.PROJECTION_SAFETY_NET_MS,
        // Two connections each for the whole rebuild: a quarter of the pool leaves half of it serving.
        rebuildsAtOnce: Math.max(1, Math.floor(config.DB_POOL_MAX / 4)),
        jobs,
      });
      await worker.start();
      const running = worker;
      stack.push(() => running.stop());
      const statistics = new TableStatistics(db, log);
      statistics.start();
      stack.push(() => statistics.stop());
      const sealer = new LedgerSealer(db, log, config.LEDGER_SEAL_SECONDS * 1000);
      sealer.start();
      stack.push(() => sealer.stop());
      // This process applies projections itself: wake them directly, no round trip through the queue.
      eventStore.onAppended((types) => running.wakeFor(types));
      const bulk = new BulkImporter(ingestion, boss, log, {
        safetyNetMs: config.BULK_SAFETY_NET_MS,
        pollingIntervalSeconds: config.WORKER_POLL_SECONDS,
      });
      await bulk.start();
      importer = bulk;
      stack.push(() => bulk.stop());
    } else {
      await createWakeupQueues(boss, projections);
      const sender = new WakeupSender(boss, projections, log);
      eventStore.onAppended((types) => sender.notify(types));
    }

    let url: string | null = null;
    let mllpPort: number | null = null;
    // Stopped after the MLLP listener and the HTTP server (the stack unwinds newest first): every
    // message they answered is written before the service stops.
    const messageRecorder =
      role !== "worker" && keepReceived
        ? new MessageRecorder(db, identifiers, log, metrics, {
            flushAfterMs: config.MESSAGE_STORE_FLUSH_MS,
            maxQueueBytes: config.MESSAGE_STORE_QUEUE_BYTES,
          })
        : null;
    if (messageRecorder) {
      metrics.watchMessageQueue(() => messageRecorder.queued);
      stack.push(() => messageRecorder.stop(config.SHUTDOWN_GRACE_MS));
    }
    if (role !== "worker" && config.HL7_MLLP_PORT !== undefined) {
      const mllp = new MllpListener(
        ingestion,
        credentials,
        watch,
        metrics,
        log,
        {
          port: config.HL7_MLLP_PORT,
          requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
          maxConnections: config.HL7_MLLP_MAX_CONNECTIONS,
          keylessPerAddress: config.HL7_MLLP_KEYLESS_PER_ADDRESS,
          keylessTimeoutMs: config.HL7_MLLP_KEYLESS_TIMEOUT_MS,
          maxUnackedFrames: config.HL7_MLLP_MAX_UNACKED_FRAMES,
          frameDeadlineMs: config.HL7_MLLP_FRAME_DEADLINE_MS,
          unauthenticatedFrameBytes: config.HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES,
          tlsCertFile: config.HL7_MLLP_TLS_CERT,
          tlsKeyFile: config.HL7_MLLP_TLS_KEY,
        },
        messageRecorder,
      );
      mllpPort = await mllp.start();
      stack.push(() => mllp.stop(config.SHUTDOWN_GRACE_MS));
    }
    if (role !== "worker") {
      const sources = new DataSources({
        serviceDb: db,
        // A streaming replica of the service's database may serve the clinical source instead (operations.md).
        clinicalUrl: reportRunnerUrl(databaseUrl, env.DATASOURCE_CLINICAL_URL || databaseUrl),
        // The research views read the clinical ones: the same server (contract G.1).
        researchUrl: reportRunnerUrl(databaseUrl, env.DATASOURCE_CLINICAL_URL || databaseUrl, RESEARCH_RUNNER_ROLE),
        others: dataSourcesFromEnv(env),
        poolSize: config.REPORT_POOL_SIZE,
        // A query that gets no connection in time fails in its own place instead of waiting for ever.
        connectionTimeoutMs: config.REPORT_QUEUE_WAIT_MS,
        // The server's statement timeout ends a report query first; this is for a vanished server.
        queryTimeoutMs: config.REPORT_QUERY_TIMEOUT_MS + 5_000,
        // The report role's limits hold for the configured sources' sessions too (contract E.5).
        limits: { workMem: config.REPORT_WORK_MEM, tempFileLimit: config.REPORT_TEMP_FILE_LIMIT },
      });
      stack.push(() => sources.end());
      // Told, not waited for: a configured source that is down must not hold up the start.
      void sources.unsetLimits().then(
        (notSet) => {
          if (notSet.length > 0)
            log.warn(
              { notSet },
              "report limits named in notSet do not hold on these data sources: their users may not set them, " +
                "or the source was not reachable to find out (operations.md, The report role)",
            );
        },
        (err: unknown) => log.warn({ err }, "the report limits of the configured data sources could not be checked"),
      );
      for (const [name, pool] of sources.pools()) metrics.watchPool(`datasource:${name}`, pool);
      // Threads start on the first docx export; closed after the server, once its exports are done.
      const docxWorkers = new WorkerPool<DocxJob, DocxAnswer>("docxWorker", { threads: config.DOCX_THREADS });
      stack.push(() => docxWorkers.close());
      // Stopped after the server (the stack unwinds newest first): the last answers' records are written too.
      const accessRecorder = new AccessRecorder(eventStore, log, metrics, {
        flushAfterMs: config.ACCESS_LOG_FLUSH_MS,
        maxQueueBytes: config.ACCESS_LOG_QUEUE_BYTES,
      });
      metrics.watchAccessQueue(() => accessRecorder.queued);
      stack.push(() => accessRecorder.stop(config.SHUTDOWN_GRACE_MS));
      // Unscoped on purpose: the feed reads each alert once for every stream of the tenant (each
      // stream filters by its caller's wards), and its notifications would otherwise run in the
      // ward scope of the request that happened to open its connection.
      const alertFeed = new AlertFeed(databaseUrl, log, (tenant, alertId) =>
        withWardScope(null, () => readAsTenant(db, tenant, (reader) => alertById(reader, dictionary, alertId))),
      );
      const app = createApp({
        listTurns: new ListTurns(
          new TenantGate(config.LIST_READS_PER_TENANT, config.LIST_QUEUE_WAIT_MS),
          config.LIST_BYTES_PER_SECOND,
        ),
        access: new AccessRecording(recordAccess ? accessRecorder : { record: () => {} }, config.ADMIN_TOKEN),
        messages: messageRecorder,
        alerts: { feed: alertFeed, heartbeatMs: config.ALERT_STREAM_HEARTBEAT_SECONDS * 1000 },
        escalation: {
          allowPrivateWebhooks: config.ALERT_WEBHOOK_ALLOW_PRIVATE === "1",
          webhookSecretSet: config.ALERT_WEBHOOK_SECRET !== undefined,
        },
        store: eventStore,
        docx: {
          workers: docxWorkers,
          chartsAtOnce: config.DOCX_CHARTS_PER_EXPORT ?? docxWorkers.threads,
          maxPoints: config.DOCX_CHART_MAX_POINTS,
        },
        reports: {
          sources,
          timeoutMs: config.REPORT_QUERY_TIMEOUT_MS,
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          // Streaming answers (live xlsx exports) leave a tenant's worth of each report pool to the others.
          gate: new TenantGate(config.REPORT_QUERIES_PER_TENANT, config.REPORT_QUEUE_WAIT_MS, {
            streamsInAll: config.REPORT_POOL_SIZE - config.REPORT_QUERIES_PER_TENANT,
          }),
          maxResultBytes: config.REPORT_RESULT_MAX_BYTES,
          exportMaxMs: config.REPORT_EXPORT_MAX_MS,
          onQuery: (datasource, outcome, seconds) => metrics.reportQueryRan(datasource, outcome, seconds),
        },
        openApi: {
          ...ingestion,
          served,
          wakeBulkImport: () => {
            void importer?.wake();
            // Other worker processes (this one may have none, or be busy with another client's job).
            boss.send(BULK_WAKEUP_QUEUE, {}).catch((err) => log.warn({ err }, "bulk import wake-up not sent"));
          },
          rateLimit: { perSecond: config.OPEN_API_RATE_PER_SECOND, burst: config.OPEN_API_BURST },
        },
        log,
        adminToken: config.ADMIN_TOKEN,
        viewingAuth: config.VIEWING_AUTH,
        publicUrl: config.PUBLIC_URL,
        exportsPerAddress: {
          limit: config.REPORT_EXPORTS_PER_ADDRESS,
          addresses: CallerAddresses.fromSetting(config.TRUSTED_PROXIES),
        },
        identifiers,
        staffSessions: {
          relyingParty: oidcRelyingParty(config),
          sessions,
          signIns: new SignInSeal(identifiers),
          holdsAnotherTenant: (tenant) => holdsAnotherTenant(db, tenant),
        },
        credentials,
        watch,
        metrics,
        metricsToken: config.METRICS_TOKEN,
        readiness: {
          checks: [
            { name: "database", check: async () => (await db.query("select 1")).rowCount === 1 },
            { name: "migrations", check: async () => (await missingMigrations(db)).length === 0 },
            { name: "workers", check: async () => worker === null || worker.isRunning },
          ],
          stoppedProjections: () => stoppedProjections(db),
          heldBackTenants: () => heldBackTenants(db),
          demoData,
        },
      });
      const stalled = new StalledResponses(config.RESPONSE_STALL_MS, log, () => metrics.responseCut("stalled"));
      const closing = new GracefulClose();
      const server = await listen(stalled.track(closing.track(app.callback())), config.PORT, config.REQUEST_TIMEOUT_MS);
      stack.push(() => closing.close(server, config.SHUTDOWN_GRACE_MS));
      // Before the server closes: an open alert stream would hold it for the whole grace period.
      stack.push(() => alertFeed.stop());
      const address = server.address();
      url = `http://localhost:${typeof address === "object" && address ? address.port : config.PORT}`;
    }

    let stopping: Promise<void> | null = null;
    return {
      url,
      mllpPort,
      databaseUrl,
      db,
      eventStore,
      worker,
      stop: () => {
        if (!stopping) {
          quietJobQueueFaults(boss, log);
          stopping = unwind(stack, log);
        }
        return stopping;
      },
    };
  } catch (error) {
    await unwind(stack, log);
    throw error;
  }
}

/**
 * Once a stop is asked, a fault of the job queue is a connection ending under it (a database
 * stopped at the same time, say): expected, and said at info without a stack, where a running
 * service warns with one (createBoss).
 */
function quietJobQueueFaults(boss: PgBoss, log: Logger): void {
  boss.removeAllListeners("error");
  boss.on("error", (err: Error) => log.info({ fault: err.message }, "job queue fault while stopping"));
}

/** Stops what was started, newest first: HTTP drains before workers stop before the database goes. */
async function unwind(stack: Array<() => Promise<unknown>>, log: Logger): Promise<void> {
  for (const stop of stack.splice(0).reverse()) {
    await stop().catch((err) => log.warn({ err }, "shutdown step failed"));
  }
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  requestTimeoutMs: number,
): Promise<Server> {
  const { createServer } = await import("node:http");
  // Slow or stalled clients must not hold a connection (or a body read) open forever: a request not
  // received whole within requestTimeout is answered 408 (clientErrors.ts) and its connection closed.
  // Node looks for such connections only every connectionsCheckingInterval (30 s by default), so
  // the interval follows the timeout, or a short timeout would be overrun by up to 30 s. Answers
  // that their reader stops taking are cut by the handler (stalledResponses.ts).
  const clientErrors = new ClientErrorAnswers(requestTimeoutMs);
  const server = createServer(
    { connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.round(requestTimeoutMs / 4))) },
    clientErrors.track(handler),
  );
  server.on("clientError", clientErrors.onClientError);
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(20_000, requestTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => resolve());
  });
  return server;
}

/** Stops accepting, lets requests in flight finish within the grace period, then cuts the rest (the metrics server's scrapes). */
async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

/** The relying party of the configured OpenID Provider, or null when sign-in with one is not configured. */
function oidcRelyingParty(config: Config): OidcRelyingParty | null {
  const {
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: clientId,
    OIDC_CLIENT_SECRET: clientSecret,
    PUBLIC_URL: publicUrl,
  } = config;
  if (!issuer || !clientId || !clientSecret || !publicUrl) return null;
  return new OidcRelyingParty({
    issuer,
    clientId,
    clientSecret,
    publicUrl,
    extraScopes: config.OIDC_SCOPES.split(/\s+/).filter(Boolean),
    claims: { tenant: config.OIDC_TENANT_CLAIM, roles: config.OIDC_ROLES_CLAIM, wards: config.OIDC_WARDS_CLAIM },
    tenant: config.OIDC_TENANT ?? null,
    displayName: config.OIDC_PROVIDER_NAME ?? new URL(issuer).host,
  });
}

/** The reactors' jobs, each queue's own sent by the part that works it (the others pass it by). */
function allJobs(parts: Array<TransactionalJobs | undefined>): TransactionalJobs {
  return {
    async send(tx, queue, data, singletonKey, options) {
      for (const part of parts) await part?.send(tx, queue, data, singletonKey, options);
    },
  };
}
