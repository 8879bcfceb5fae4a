import type { z } from "zod";
import { HttpError } from "./httpError.ts";

/** Parses a request body with its schema; the first problems become one sentence naming the fields. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new HttpError(400, "Send a JSON object as the request body.");
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((issue) => {
    const path = issue.path
      .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
      .join("")
      .replace(/^\./, "");
    return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
  });
  throw new HttpError(400, `${problems.join("; ")}.`.replace(/\.\.$/, "."));
}
