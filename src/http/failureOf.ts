import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { CommandError, type CommandErrorKind } from "../../commands/kit/commandError.ts";
import { isTransient } from "../../db/transientErrors.ts";
import type { ApiErrorCode } from "../../commands/kit/errorCodes.ts";
import { HttpError } from "./httpError.ts";

const COMMAND_ERROR_STATUS: Record<CommandErrorKind, number> = {
  invalid: 400,
  "too-large": 413,
  "not-found": 404,
  conflict: 409,
  "precondition-failed": 412,
  unavailable: 503,
  unprocessable: 422,
};

/** A failure as its caller sees it: the status, one sentence, the headers to set. */
export interface Failure {
  status: number;
  message: string;
  headers: Record<string, string>;
  /** A stable code beside the sentence, when the failure has one. */
  code?: ApiErrorCode;
}

/** Each interface's words for what is not the caller's to fix. */
export interface FaultSentences {
  /** The database cannot be reached (answered 503 with Retry-After). */
  unavailable: string;
  /** A fault of ours (answered 500). */
  fault: string;
}

/**
 * What a thrown error means for the caller, whichever interface shapes the answer: an HttpError or
 * a CommandError says how to fix the call; anything else is ours, logged here in full and answered
 * with the interface's generic sentence.
 */
export function failureOf(error: unknown, log: Logger, sentences: FaultSentences): Failure {
  if (error instanceof HttpError)
    return {
      status: error.status,
      message: error.message,
      headers: error.headers,
      ...(error.code ? { code: error.code } : {}),
    };
  if (error instanceof CommandError)
    return {
      status: COMMAND_ERROR_STATUS[error.kind],
      message: error.message,
      headers: {},
      ...(error.code ? { code: error.code } : {}),
    };
  if (isTransient(error)) {
    log.warn({ err: error }, "database unavailable");
    return { status: 503, message: sentences.unavailable, headers: { "Retry-After": "5" } };
  }
  log.error({ err: error }, "request failed");
  return { status: 500, message: sentences.fault, headers: {} };
}

/** How one interface writes its failures, and what it says of a path it has no route for. */
export interface FailureShape {
  /** `code`: the failure's stable code, when it has one (an interface may leave it out). */
  write(ctx: Context, status: number, message: string, code?: ApiErrorCode): void;
  unmatched(ctx: Context): void;
}

/**
 * An interface's one error middleware: a path no route answered gets the interface's own 404, and
 * whatever is thrown is classified by failureOf and written in the interface's shape.
 */
export function interfaceErrors(log: Logger, sentences: FaultSentences, shape: FailureShape): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) shape.unmatched(ctx);
    } catch (error) {
      const { status, message, headers, code } = failureOf(error, log, sentences);
      ctx.set(headers);
      shape.write(ctx, status, message, code);
    }
  };
}
