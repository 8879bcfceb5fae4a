import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";

/** Per-request context: every log line written while serving a request carries its id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string; callerRequestId?: string }>();

export function createLogger(level = process.env.LOG_LEVEL ?? "info", destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "dialysis-hub" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const context = requestContext.getStore();
      if (!context) return {};
      return context.callerRequestId
        ? { requestId: context.requestId, callerRequestId: context.callerRequestId }
        : { requestId: context.requestId };
    },
    // Credentials and full identity numbers never reach the logs, whatever a caller logs. A
    // database error's detail and context quote the data at fault ("Failing row contains (…)",
    // "JSON data, line 1: …"): a report's id card among it. Its message, code and constraint stay.
    // pg-pool hangs the whole connection on an idle connection's error (err.client): its cancel
    // key and settings, some 8 KB a line, when pg-boss reports a restart or shutdown.
    redact: {
      paths: [
        "req.headers.authorization",
        "*.authorization",
        "*.key",
        "*.token",
        "*.idCard",
        "*.*.idCard",
        "err.detail",
        "err.where",
        "*.err.detail",
        "*.err.where",
        "err.client",
        "*.err.client",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export const silentLogger: Logger = pino({ level: "silent" });

/**
 * Where the service's log lines go: standard output, as JSON lines for a log collector, or as
 * lines a person reads (pino-pretty) when standard output is a terminal or LOG_FORMAT=pretty.
 * pino-pretty is loaded only then, so a service logging JSON does not carry it.
 */
export async function consoleDestination(
  format: "json" | "pretty" | undefined,
): Promise<pino.DestinationStream | undefined> {
  const terminal = process.stdout.isTTY === true;
  if ((format ?? (terminal ? "pretty" : "json")) === "json") return undefined; // pino's own: JSON lines on standard output
  const { default: pretty } = await import("pino-pretty");
  return pretty({
    destination: 1,
    sync: true,
    colorize: terminal,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service",
    singleLine: true,
  });
}
