import { API_ERROR_CODES } from "../../commands/kit/errorCodes.ts";
import type { RawAnswer, RawRequest } from "./rawHttp.ts";

/**
 * What no answer may carry (contract A.1 rule 2, B.1): a stack trace, SQL or a database error of
 * ours, a file path of the server, a JavaScript error's own words. A match that the request itself
 * contains is an echo of the caller's input (e.g. "category … is unknown"), not a leak.
 */
const INTERNALS: ReadonlyArray<[string, RegExp]> = [
  ["a stack frame", /\bat (?:async )?[\w$.<>[\] ]*\(?(?:file:\/\/|node:|\/)[^\s)]*:\d+:\d+\)?/],
  ["a source file position", /\.(?:ts|js|mjs|cjs):\d+(?::\d+)?\b/],
  ["a server path", new RegExp(`${escapeRegExp(process.cwd())}|node_modules|file:///`)],
  [
    "a JavaScript error",
    new RegExp(
      String.raw`\b(?:TypeError|RangeError|ReferenceError|SyntaxError|Maximum call stack|is not a function|` +
        String.raw`Cannot read propert|Unexpected token|(?:undefined|null) is not (?:a function|an object|iterable)|` +
        String.raw`\[object Object\])`,
    ),
  ],
  [
    "an internal relation",
    /\b(?:read\.\w+|proj_\w+_g\d+|report_sessions|dh_report_runner|dh_tenant_reader|stream_id|stream_version|pgboss\.\w+|pg_authid)\b/,
  ],
  [
    "SQL text",
    /\b(?:select\s+[\w*,\s().]+\s+from\s+\w+|insert\s+into\s+\w+|update\s+\w+\s+set\s+\w+|delete\s+from\s+\w+)\b/i,
  ],
];

/** The database's own wording: allowed only as a report query's `error` (contract A.2 "Query result"). */
const DATABASE_WORDS: ReadonlyArray<[string, RegExp]> = [
  [
    "a database error",
    new RegExp(
      String.raw`syntax error at or near|violates (?:unique|check|foreign key|not-null) constraint|duplicate key value|` +
        String.raw`relation "[^"]+" does not exist|invalid input syntax for|unsupported Unicode escape|` +
        String.raw`invalid byte sequence|current transaction is aborted|permission denied for|\bERROR:\s`,
      "i",
    ),
  ],
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Everything the caller sent, to tell an echo from a leak. */
export function sentText(request: RawRequest): string {
  const body =
    request.body === undefined ? "" : Buffer.isBuffer(request.body) ? request.body.toString("utf8") : request.body;
  let path = request.path;
  try {
    path += ` ${decodeURIComponent(request.path)}`;
  } catch {
    // malformed percent-encoding: the raw path is all there is
  }
  return `${request.method} ${path} ${JSON.stringify(request.headers ?? {})} ${body}`;
}

/** Names of what the answer reveals that the request did not contain; empty when it is clean. */
export function leaksIn(text: string, sent: string, options: { databaseWordsAllowed?: boolean } = {}): string[] {
  const patterns = options.databaseWordsAllowed ? INTERNALS : [...INTERNALS, ...DATABASE_WORDS];
  const found: string[] = [];
  for (const [what, pattern] of patterns) {
    const match = pattern.exec(text);
    if (match && !sent.includes(match[0])) found.push(`${what}: ${JSON.stringify(match[0])}`);
  }
  return found;
}

function parsedJson(answer: RawAnswer): unknown {
  if (!(answer.headers["content-type"] ?? "").includes("application/json")) return undefined;
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}

/**
 * The /open/v1 envelope (contract B.1): `{ code, msg, data, timestamp }` with the HTTP status equal
 * to `code`. A 304 to If-None-Match carries no body at all. Returns the problem, or null.
 */
export function envelopeProblem(answer: RawAnswer): string | null {
  if (answer.status === 304) return answer.text === "" ? null : "a 304 with a body";
  const body = parsedJson(answer) as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body))
    return `not a JSON envelope: ${answer.headers["content-type"]} ${answer.text.slice(0, 200)}`;
  const keys = Object.keys(body).sort().join(",");
  if (keys !== "code,data,msg,timestamp") return `envelope keys are ${keys}`;
  if (body.code !== answer.status) return `code ${String(body.code)} differs from HTTP status ${answer.status}`;
  if (typeof body.msg !== "string" || body.msg === "") return "msg is not a sentence";
  if (typeof body.timestamp !== "number" || !Number.isInteger(body.timestamp))
    return "timestamp is not epoch milliseconds";
  if (answer.status !== 200 && body.data !== null) return "a failure carries data";
  return null;
}

/**
 * A `/api` failure (contract A.1 rule 2): JSON `{ "error": "<sentence>" }`, and at most the
 * additive stable `code` the pages translate (commands/kit/errorCodes.ts) and, for a spec the
 * service refused (`spec-invalid`), the additive `problems` each at its path (decision 0083).
 */
export function apiErrorProblem(answer: RawAnswer): string | null {
  if (answer.status < 400) return null;
  const body = parsedJson(answer) as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body))
    return `not a JSON error: ${answer.headers["content-type"]} ${answer.text.slice(0, 200)}`;
  const keys = Object.keys(body).join(",");
  const withProblems =
    keys === "error,code,problems" && body.code === "spec-invalid" && specProblemsRead(body.problems);
  if (
    (keys !== "error" && keys !== "error,code" && !withProblems) ||
    typeof body.error !== "string" ||
    body.error === ""
  )
    return `not { error: sentence }: ${answer.text.slice(0, 200)}`;
  if ("code" in body && !(API_ERROR_CODES as readonly unknown[]).includes(body.code))
    return `code ${JSON.stringify(body.code)} is none of commands/kit/errorCodes.ts`;
  return null;
}

export type Interface = "open" | "api";

/**
 * Every promise a hostile request must leave standing, as a list of broken ones (empty: kept):
 * never a 5xx, nothing internal in the answer, the interface's error shape.
 */
export function brokenPromises(
  iface: Interface,
  request: RawRequest,
  answer: RawAnswer,
  options: { databaseWordsAllowed?: boolean } = {},
): string[] {
  const broken: string[] = [];
  if (answer.status >= 500) broken.push(`status ${answer.status}`);
  const sent = sentText(request);
  const headerText = Object.entries(answer.headers)
    .filter(([name]) => name !== "content-disposition") // the file name is the report's title, written by its author
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join("\n");
  const binary = /officedocument/.test(answer.headers["content-type"] ?? "");
  broken.push(...leaksIn(`${headerText}\n${binary ? "" : answer.text}`, sent, options));
  // A HEAD answer has no body by definition: only its status and headers can be judged.
  const shape = request.method === "HEAD" ? null : iface === "open" ? envelopeProblem(answer) : apiErrorProblem(answer);
  if (shape) broken.push(shape);
  return broken;
}

export function describeExchange(request: RawRequest, answer: RawAnswer): string {
  const body =
    request.body === undefined
      ? ""
      : Buffer.isBuffer(request.body)
        ? `<${request.body.length} bytes>`
        : request.body.slice(0, 300);
  return (
    `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers ?? {}).slice(0, 300)} ` +
    `${body}\n→ ${answer.status} ${answer.text.slice(0, 300)}`
  );
}

/** `problems` of a refused spec: each a path, a stable code and a sentence. */
function specProblemsRead(problems: unknown): boolean {
  return (
    Array.isArray(problems) &&
    problems.length > 0 &&
    problems.every(
      (problem: Record<string, unknown>) =>
        typeof problem?.path === "string" &&
        typeof problem.message === "string" &&
        problem.message !== "" &&
        typeof problem.code === "string",
    )
  );
}
