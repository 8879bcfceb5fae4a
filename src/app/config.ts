import { refusedTargetProblem } from "../alerts/webhookTarget.ts";
import { z } from "zod";
import { decodeIdentifierKey } from "../secrets/identifierKey.ts";
import { isDatabaseUrl } from "../../db/primaryHosts.ts";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { MAX_FRAME_BYTES } from "../ingestion/hl7/mllpFrames.ts";
import { MIN_CHART_POINTS } from "../reports/charts/thinRows.ts";
import { trustedProxiesProblem } from "../http/callerAddress.ts";

const port = z.coerce.number().int().min(0).max(65535);

const KILOBYTES = { kB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 } as const;
/** PostgreSQL keeps sizes in kB as a 32-bit integer. */
const MAXIMUM_KB = 2 ** 31 - 1;

/** A PostgreSQL size setting as PostgreSQL writes it (8MB, 512kB, 1GB), at least `minimumKb`; `-1` too when `unlimited`. */
function databaseSize(name: string, minimumKb: number, unlimited = false) {
  const problem =
    `${name} must be a size with its unit as PostgreSQL writes it (512kB, 8MB, 1GB), from ${minimumKb} kB, below ` +
    `2 TB${unlimited ? ", or -1 for no limit" : ""}`;
  return z.string().refine((value) => {
    if (unlimited && value === "-1") return true;
    const match = /^(\d{1,9})(kB|MB|GB|TB)$/.exec(value);
    const kb = match ? Number(match[1]) * KILOBYTES[match[2] as keyof typeof KILOBYTES] : NaN;
    return kb >= minimumKb && kb <= MAXIMUM_KB;
  }, problem);
}

/** Every setting the service reads from its environment, with its default. */
export const configSchema = z.object({
  PORT: port.default(8080),
  /** One host, or several for fail-over (`postgres://u:p@db-a:5432,db-b:5432/db`): the one taking writes is used. */
  DATABASE_URL: z
    .string()
    .refine(
      isDatabaseUrl,
      "DATABASE_URL must be postgres://user:password@host:port/database, with host:port,host:port for fail-over",
    )
    .optional(),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must have at least 16 characters").optional(),
  /** The key of the keyed hashes of identifiers (id-card streams): 64 hex digits, or base64 of at least 32 random bytes; unset: one the database keeps. */
  ID_HASH_KEY: z
    .string()
    .refine(
      (key) => decodeIdentifierKey(key) !== null,
      "ID_HASH_KEY must be 64 hex digits or the base64 of at least 32 random bytes (openssl rand -hex 32)",
    )
    .optional(),
  /** The hospital's OpenID Provider (contract E.1): with OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and PUBLIC_URL, staff sign in there; unset: token sign-in only. */
  OIDC_ISSUER: z
    .url({
      protocol: /^https?$/,
      error: "OIDC_ISSUER must be the provider's issuer URL, e.g. https://sso.hospital.example/realms/staff",
    })
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** How the staff pages name the provider on their button ("Sign in with <name>"); default: the issuer's host. */
  OIDC_PROVIDER_NAME: z
    .string()
    .trim()
    .min(1)
    .max(60, "OIDC_PROVIDER_NAME is at most 60 characters: it is the sign-in button's text")
    .optional(),
  /** Scopes asked for besides `openid profile`, space-separated. */
  OIDC_SCOPES: z.string().default(""),
  OIDC_TENANT_CLAIM: z.string().min(1).default("tenant"),
  /**
   * The tenant of a staff sign-in whose provider sends no tenant claim; unset: the tenant
   * /staff/login named, only while the store holds no other (issue #51).
   */
  OIDC_TENANT: z
    .string()
    .regex(TENANT_PATTERN, "OIDC_TENANT must be a tenant id: 1 to 64 letters, digits, '_' or '-'")
    .optional(),
  OIDC_ROLES_CLAIM: z.string().min(1).default("roles"),
  OIDC_WARDS_CLAIM: z.string().min(1).default("wards"),
  /** The service's own external base URL, as browsers reach it (the OIDC redirect URI is <PUBLIC_URL>/staff/callback). */
  PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: "PUBLIC_URL must be the service's external base URL, e.g. https://dialysis.hospital.example",
    })
    .optional(),
  /**
   * Who may make the viewing calls and open embed pages (contract G.1): `proxy`, the host's reverse
   * proxy guards them and no credential is needed (a session or token that comes along is used); or
   * `required`, a staff session or a token with a role that may view.
   */
  VIEWING_AUTH: z
    .enum(["proxy", "required"], {
      error: "VIEWING_AUTH is proxy (the host's proxy guards viewing) or required (a session or token)",
    })
    .default("proxy"),
  /** A staff session ends after this many minutes without a call (fractions allowed). */
  SESSION_IDLE_MINUTES: z.coerce.number().positive().default(30),
  /** And this many hours after sign-in, whatever happens (fractions allowed). */
  SESSION_MAX_HOURS: z.coerce.number().positive().default(12),
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
  REMAP_STEP_RESULTS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  /**
   * Contract F.2: `off` leaves out, on a new store or at the next rebuild of lab_results, the index
   * clinical.derived_results reads a period of every patient by: only for measuring what it costs a
   * push (npm run bench -- derived). Derived values are still worked out, from more rows.
   */
  DERIVATION_INDEX: z.enum(["on", "off"], { error: "DERIVATION_INDEX is on or off" }).default("on"),
  OPEN_API_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  OPEN_API_BURST: z.coerce.number().int().min(1).default(100),
  REPORT_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  REPORT_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(8),
  REPORT_QUERIES_PER_TENANT: z.coerce.number().int().min(1).max(50).default(4),
  /** How long a report query waits for its tenant's turn, and then for a connection of its data source's pool, before it fails in its own place. */
  REPORT_QUEUE_WAIT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Pages of one tenant's lists read at once per process (issue #52); the rest wait their turn up to LIST_QUEUE_WAIT_MS, then 503. */
  LIST_READS_PER_TENANT: z.coerce.number().int().min(1).max(50).default(1),
  LIST_QUEUE_WAIT_MS: z.coerce.number().int().min(100).default(10_000),
  /** The pace of one tenant's list pages per process: a page's turn is given back once its bytes at this rate have passed. */
  LIST_BYTES_PER_SECOND: z.coerce.number().int().min(10_000).default(1_000_000),
  REPORT_EXPORT_MAX_MS: z.coerce.number().int().min(1000).default(600_000),
  /** xlsx and docx exports made without a credential that one address may have under way at once (TRUSTED_PROXIES says whose address that is). */
  REPORT_EXPORTS_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(2),
  /** The reverse proxies whose X-Forwarded-For names the caller's address: addresses and CIDR ranges separated by commas, loopback or none. */
  TRUSTED_PROXIES: z
    .string()
    .default("loopback")
    .refine((text) => trustedProxiesProblem(text) === null, {
      error: (issue) => trustedProxiesProblem(String(issue.input)) ?? "TRUSTED_PROXIES is not valid",
    }),
  REPORT_RESULT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(32 * 1024 * 1024),
  /** The report role's CONNECTION LIMIT: report connections of every process of the deployment together; -1: none. */
  REPORT_ROLE_CONNECTION_LIMIT: z.coerce
    .number()
    .int()
    .refine(
      (limit) => limit === -1 || limit >= 1,
      "REPORT_ROLE_CONNECTION_LIMIT must be at least 1, or -1 for no limit",
    )
    .default(32),
  /** The report role's work_mem: memory of each sort or hash of a report query before it spills to temporary files. */
  REPORT_WORK_MEM: databaseSize("REPORT_WORK_MEM", 64).default("8MB"),
  /** The report role's temp_file_limit: temporary file space one report connection may use at once; -1: none. */
  REPORT_TEMP_FILE_LIMIT: databaseSize("REPORT_TEMP_FILE_LIMIT", 64, true).default("256MB"),
  /** How much V8's heap may grow past what its last full collection kept before it collects again, in percent (0: V8's own, up to fourfold). */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(100),
  /**
   * Resident memory this many MB above what it was after the last collection, with the event loop
   * idle for 2 s: the heap is collected to give the memory back (0: left to V8).
   */
  IDLE_MEMORY_RELEASE_MB: z.coerce.number().int().min(0).default(64),
  /** Worker threads of the docx export, drawing its charts and zipping its documents (unset: one fewer than the machine's cores, at least one). */
  DOCX_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** Charts of one docx export on those threads at once, waiting or drawn (unset: DOCX_THREADS), so that exports take turns. */
  DOCX_CHARTS_PER_EXPORT: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * Points of one series a docx chart draws at most (rows of a line, bar, area or scatter chart;
   * slices of a pie); beyond, the chart is thinned and says so.
   */
  DOCX_CHART_MAX_POINTS: z.coerce.number().int().min(MIN_CHART_POINTS).default(1000),
  /** How long an access record (contract E.4) waits for others to be written with it in one statement. */
  ACCESS_LOG_FLUSH_MS: z.coerce.number().int().min(10).max(1000).default(200),
  /** The JSON bytes of access records a process holds while the database refuses them; past it new ones are dropped (and counted). */
  ACCESS_LOG_QUEUE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** How long a received message (contract G.5) waits for others to be written with it in one statement. */
  MESSAGE_STORE_FLUSH_MS: z.coerce.number().int().min(1).max(1000).default(50),
  /** The body bytes of received messages a process holds unwritten; past it the next answer waits for room. */
  MESSAGE_STORE_QUEUE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** How long a client may take to send a whole request, headers and body; a slow sender is cut with 408. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /**
   * How long a response may wait with none of its bytes taken by its reader before its connection
   * is cut (an export nobody reads gives back its turn and its report connection).
   */
  RESPONSE_STALL_MS: z.coerce.number().int().min(200).default(10_000),
  /** Serves /metrics on the service's port to a scraper sending it as a bearer token (unset: not served there). */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must have at least 16 characters").optional(),
  /** Serves /metrics on 127.0.0.1 at this port as well, in every role (a worker process has no other port). */
  METRICS_PORT: port.optional(),
  /** Each new critical-result alert is POSTed here (contract D.7), signed with ALERT_WEBHOOK_SECRET; unset: no webhook. */
  ALERT_WEBHOOK_URL: z
    .url({ protocol: /^https?$/, error: "ALERT_WEBHOOK_URL must be an http:// or https:// URL" })
    .optional(),
  /** The HMAC-SHA256 key of the webhook's X-Dialysis-Hub-Signature header. */
  ALERT_WEBHOOK_SECRET: z.string().min(16, "ALERT_WEBHOOK_SECRET must have at least 16 characters").optional(),
  /** 1: the webhook may post to this host or a link-local address (refused otherwise). */
  ALERT_WEBHOOK_ALLOW_PRIVATE: z.enum(["0", "1"], { error: "ALERT_WEBHOOK_ALLOW_PRIVATE must be 0 or 1" }).default("0"),
  /** How often an idle alert stream (GET /api/alerts/stream) sends a heartbeat. */
  /** Contract G.3: escalation mail goes through this SMTP server (smtp:// or smtps://, user and password in the URL); unset: no mail. */
  SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: "SMTP_URL must be smtp://user:password@host:port or smtps://user:password@host:port",
    })
    .optional(),
  /** An owner-only file holding the SMTP password, instead of writing it in SMTP_URL. */
  SMTP_PASSWORD_FILE: z.string().min(1).optional(),
  /** The sender of escalation mail: an address, or "Name <address>". */
  MAIL_FROM: z
    .string()
    .regex(
      /^(?:[^<>\r\n]*<[^@\s<>]+@[^@\s<>]+>|[^@\s<>]+@[^@\s<>]+)$/,
      "MAIL_FROM must be an address, or Name <address>",
    )
    .optional(),
  /**
   * The pauses before each retry of a refused or unanswered escalation notification, in seconds,
   * comma-separated: attempts are one more than the pauses. The default tries 6 times over 15½
   * minutes, the first retry after 30 s (contract G.3: at least 5 over at least 10 minutes).
   */
  ALERT_NOTIFY_RETRY_SECONDS: z
    .string()
    .regex(
      /^\d+(\.\d+)?(,\d+(\.\d+)?)*$/,
      "ALERT_NOTIFY_RETRY_SECONDS is a comma-separated list of seconds, e.g. 30,60,120,240,480",
    )
    .default("30,60,120,240,480")
    .transform((list) => list.split(",").map(Number)),
  ALERT_STREAM_HEARTBEAT_SECONDS: z.coerce.number().min(0.05).default(15),
  /** HL7 v2 over MLLP on this port (contract D.5); unset: no listener. */
  HL7_MLLP_PORT: port.optional(),
  /** PEM files of the MLLP listener's certificate and key: with both, MLLP over TLS. */
  HL7_MLLP_TLS_CERT: z.string().min(1).optional(),
  HL7_MLLP_TLS_KEY: z.string().min(1).optional(),
  /**
   * MLLP connections open at once; past it a new one closes the oldest that has shown no valid key
   * and is answering nothing, else it is closed as soon as it is accepted.
   */
  HL7_MLLP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(200),
  /**
   * MLLP connections without a valid key open at once from one address (an IPv6 /64); past it a new
   * one closes the oldest of them that is answering nothing.
   */
  HL7_MLLP_KEYLESS_PER_ADDRESS: z.coerce.number().int().min(1).default(8),
  /** An MLLP connection that has shown no valid key (MSH-8) and is answering no message is closed after this long. */
  HL7_MLLP_KEYLESS_TIMEOUT_MS: z.coerce.number().int().min(500).default(5000),
  /** Messages (frames) an MLLP connection may have sent and not had answered; past it the listener reads nothing more from it until ACKs are written. */
  HL7_MLLP_MAX_UNACKED_FRAMES: z.coerce.number().int().min(1).max(100_000).default(256),
  /** An MLLP frame must arrive whole within this of its start block, however its bytes trickle (REQUEST_TIMEOUT_MS still cuts a silent connection). */
  HL7_MLLP_FRAME_DEADLINE_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * The bytes an MLLP frame may hold before its connection has shown a valid key (MSH-8); past it
   * the frame's key is looked up, and the connection closed unless it is valid.
   */
  HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(MAX_FRAME_BYTES)
    .default(64 * 1024),
});

export type Config = z.infer<typeof configSchema>;

/** Settings that only make sense together. */
function together(config: Config): string[] {
  const problems: string[] = [];
  if (config.ALERT_WEBHOOK_URL && !config.ALERT_WEBHOOK_SECRET)
    problems.push(
      "ALERT_WEBHOOK_SECRET: set it with ALERT_WEBHOOK_URL, so that the receiver can check each alert came from this service",
    );
  const refused =
    config.ALERT_WEBHOOK_URL && config.ALERT_WEBHOOK_ALLOW_PRIVATE === "0"
      ? refusedTargetProblem(config.ALERT_WEBHOOK_URL)
      : null;
  if (refused) problems.push(refused);
  if (config.REPORT_ROLE_CONNECTION_LIMIT !== -1 && config.REPORT_ROLE_CONNECTION_LIMIT < config.REPORT_POOL_SIZE) {
    problems.push(
      "REPORT_ROLE_CONNECTION_LIMIT: at least REPORT_POOL_SIZE, the report connections of one process (the " +
        "limit is for every process of the deployment together)",
    );
  }
  if (config.SMTP_URL && !config.MAIL_FROM)
    problems.push("MAIL_FROM: set it with SMTP_URL, the address escalation mail is sent from");
  if (config.SMTP_PASSWORD_FILE && !config.SMTP_URL)
    problems.push("SMTP_PASSWORD_FILE: set SMTP_URL too, the server the password is for");
  const oidc = [config.OIDC_ISSUER, config.OIDC_CLIENT_ID, config.OIDC_CLIENT_SECRET];
  if (oidc.some((value) => value !== undefined) && (oidc.some((value) => value === undefined) || !config.PUBLIC_URL)) {
    problems.push(
      "OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and PUBLIC_URL: set all four for sign-in with an identity provider, or none",
    );
  }
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
