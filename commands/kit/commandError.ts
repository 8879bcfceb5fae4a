import type { ApiErrorCode } from "./errorCodes.ts";

/**
 * A command refused for a reason the caller can act on. The kind tells the interface layer which
 * status to answer with; the message says how to fix the call.
 */
export type CommandErrorKind =
  | "invalid"
  | "too-large"
  | "not-found"
  | "conflict"
  | "precondition-failed"
  | "unavailable"
  /** A well-formed call the facts refuse (a value read back that is not the alert's). */
  | "unprocessable";

export class CommandError extends Error {
  constructor(
    readonly kind: CommandErrorKind,
    message: string,
    /** A stable code beside the sentence, for pages to translate (answered as `code`). */
    readonly code?: ApiErrorCode,
  ) {
    super(message);
    this.name = "CommandError";
  }
}
