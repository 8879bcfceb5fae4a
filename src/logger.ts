import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";

/** Per-request context: every log line written while serving a request carries its id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export function createLogger(level = process.env.LOG_LEVEL ?? "info", destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "dialysis-hub" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const context = requestContext.getStore();
      return context ? { requestId: context.requestId } : {};
    },
    // Credentials and full identity numbers never reach the logs, whatever a caller logs.
    redact: {
      paths: ["req.headers.authorization", "*.authorization", "*.key", "*.token", "*.idCard", "*.*.idCard"],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export const silentLogger: Logger = pino({ level: "silent" });
