import type { ApiErrorCode } from "../../commands/kit/errorCodes.ts";

/** A failure the caller can fix: its message says how, and it becomes the response body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** A stable code beside the sentence, for pages to translate (answered as `code` by `/api`). */
    readonly code?: ApiErrorCode,
  ) {
    super(message);
    this.name = "HttpError";
  }
}
