import { TEST_ADMIN_TOKEN } from "./service.ts";

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small JSON client for tests: sends a body as JSON, reads any answer as JSON when it is JSON. */
export function httpClient(baseUrl: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; tenant?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.tenant) headers["x-service-tenant"] = options.tenant;
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body:
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body),
    });
    // An event stream never ends: its status and headers are the answer.
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      await response.body?.cancel();
      return { status: response.status, body: "" as T, headers: response.headers };
    }
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("json") && text) body = JSON.parse(text);
    return { status: response.status, body: body as T, headers: response.headers };
  };
}

export const ADMIN = TEST_ADMIN_TOKEN;
