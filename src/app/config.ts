import { refusedTargetProblem } from "../alerts/webhookTarget.ts";
import { z } from "zod";
import { isDatabaseUrl } from "../../db/primaryHosts.ts";
import { MAX_FRAME_BYTES } from "../ingestion/hl7/mllpFrames.ts";
import { MIN_CHART_POINTS } from "../reports/charts/thinRows.ts";

const port = z.coerce.number().int().min(0).max(65535);

/** Every setting the service reads from its environment, with its default. */
export const configSchema = z.object({
  PORT: port.default(8080),
  /** One host, or several for fail-over (`postgres://u:p@db-a:5432,db-b:5432/db`): the one taking writes is used. */
  DATABASE_URL: z
    .string()
    .refine(isDatabaseUrl, "DATABASE_URL must be postgres://user:password@host:port/database, with host:port,host:port for fail-over")
    .optional(),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must have at least 16 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** json: one JSON object a line; pretty: lines for a person. Unset: pretty on a terminal, json otherwise. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  DATA_DIR: z.string().default(".data"),
  EMBEDDED_PG_PORT: port.default(54329),
  DB_POOL_MAX: z.coerce.number().int().min(2).max(200).default(10),
  /** A statement of the service unanswered this long fails (503) and its connection is dropped: a peer gone without a reset. */
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(500).default(30_000),
  WORKER_POLL_SECONDS: z.coerce.number().min(0.5).default(0.5),
  PROJECTION_SAFETY_NET_MS: z.coerce.number().int().min(100).default(5000),
  /** How often a worker process seals the events appended since the last seal into a ledger block. */
  LEDGER_SEAL_SECONDS: z.coerce.number().min(0.1).default(60),
  /** How often a worker process looks for bulk jobs whatever the wake-ups: how soon it takes over the job of a worker that died. */
  BULK_SAFETY_NET_MS: z.coerce.number().int().min(100).default(5000),
  OPEN_API_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  OPEN_API_BURST: z.coerce.number().int().min(1).default(100),
  REPORT_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  REPORT_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(8),
  REPORT_QUERIES_PER_TENANT: z.coerce.number().int().min(1).max(50).default(4),
  REPORT_QUEUE_WAIT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Worker threads of the docx export, drawing its charts and zipping its documents (unset: one fewer than the machine's cores, at least one). */
  DOCX_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** Charts of one docx export on those threads at once, waiting or drawn (unset: DOCX_THREADS), so that exports take turns. */
  DOCX_CHARTS_PER_EXPORT: z.coerce.number().int().min(1).max(64).optional(),
  /** Points of one series a docx chart draws at most (rows of a line, bar, area or scatter chart; slices of a pie); beyond, the chart is thinned and says so. */
  DOCX_CHART_MAX_POINTS: z.coerce.number().int().min(MIN_CHART_POINTS).default(1000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** How long a client may take to send a whole request, headers and body; a slow sender is cut with 408. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Serves /metrics on the service's port to a scraper sending it as a bearer token (unset: not served there). */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must have at least 16 characters").optional(),
  /** Serves /metrics on 127.0.0.1 at this port as well, in every role (a worker process has no other port). */
  METRICS_PORT: port.optional(),
  /** Each new critical-result alert is POSTed here (contract D.7), signed with ALERT_WEBHOOK_SECRET; unset: no webhook. */
  ALERT_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: "ALERT_WEBHOOK_URL must be an http:// or https:// URL" }).optional(),
  /** The HMAC-SHA256 key of the webhook's X-Dialysis-Hub-Signature header. */
  ALERT_WEBHOOK_SECRET: z.string().min(16, "ALERT_WEBHOOK_SECRET must have at least 16 characters").optional(),
  /** 1: the webhook may post to this host or a link-local address (refused otherwise). */
  ALERT_WEBHOOK_ALLOW_PRIVATE: z.enum(["0", "1"], { error: "ALERT_WEBHOOK_ALLOW_PRIVATE must be 0 or 1" }).default("0"),
  /** How often an idle alert stream (GET /api/alerts/stream) sends a heartbeat. */
  ALERT_STREAM_HEARTBEAT_SECONDS: z.coerce.number().min(0.05).default(15),
  /** HL7 v2 over MLLP on this port (contract D.5); unset: no listener. */
  HL7_MLLP_PORT: port.optional(),
  /** PEM files of the MLLP listener's certificate and key: with both, MLLP over TLS. */
  HL7_MLLP_TLS_CERT: z.string().min(1).optional(),
  HL7_MLLP_TLS_KEY: z.string().min(1).optional(),
  /** MLLP connections open at once; one more is closed as soon as it is accepted. */
  HL7_MLLP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(200),
  /** An MLLP frame must arrive whole within this of its start block, however its bytes trickle (REQUEST_TIMEOUT_MS still cuts a silent connection). */
  HL7_MLLP_FRAME_DEADLINE_MS: z.coerce.number().int().min(100).default(30_000),
  /** The bytes an MLLP frame may hold before its connection has shown a valid key (MSH-8); past it the frame's key is looked up, and the connection closed unless it is valid. */
  HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES: z.coerce.number().int().min(1024).max(MAX_FRAME_BYTES).default(64 * 1024),
});

export type Config = z.infer<typeof configSchema>;

/** Settings that only make sense together. */
function together(config: Config): string[] {
  const problems: string[] = [];
  if (config.ALERT_WEBHOOK_URL && !config.ALERT_WEBHOOK_SECRET) problems.push("ALERT_WEBHOOK_SECRET: set it with ALERT_WEBHOOK_URL, so that the receiver can check each alert came from this service");
  const refused = config.ALERT_WEBHOOK_URL && config.ALERT_WEBHOOK_ALLOW_PRIVATE === "0" ? refusedTargetProblem(config.ALERT_WEBHOOK_URL) : null;
  if (refused) problems.push(refused);
  return problems;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`invalid configuration: ${problems}`);
  }
  const problems = together(parsed.data);
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join("; ")}`);
  return parsed.data;
}
