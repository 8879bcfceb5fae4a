import { ApiError, failureOf } from "../api.ts";
import { credentialsOf, type Session } from "./session.ts";
import type { StaffTexts } from "./texts.ts";

export { ApiError };

export interface StaffApi {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** A call whose request or answer headers matter too (a conditional save and its ETag). */
  exchange<T>(
    method: Method,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<{ body: T; headers: Headers }>;
  /** A page of a list (contract E.6) and the address of the next page (its Link rel="next"), or null after the last. */
  page<T>(path: string): Promise<{ items: T[]; next: string | null }>;
  /** Every page of a short list (the reports, their versions, the credentials), followed through its Link headers. */
  all<T>(path: string): Promise<T[]>;
}

/** Pages `all` reads at most: a list longer than this many pages of 1,000 is no list to show whole. */
const MOST_PAGES = 20;

/** The address a Link header gives as rel="next", or null. */
export function nextPageOf(headers: Headers): string | null {
  return /<([^>]+)>;\s*rel="next"/.exec(headers.get("link") ?? "")?.[1] ?? null;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/**
 * Calls of `/api` as the signed-in person, with the session's credentials (credentialsOf). A 401
 * means the service no longer accepts them (a revoked or expired token, a session that ended):
 * `onRejected` ends the session, and the call still fails for its caller. A 403 (a call beyond the
 * person's roles) fails only the call.
 */
export function createStaffApi(
  session: Session,
  texts: StaffTexts,
  onRejected: (error: ApiError) => void = () => {},
): StaffApi {
  async function exchange<T>(
    method: Method,
    path: string,
    { body, headers: extra = {} }: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ body: T; headers: Headers }> {
    const own = credentialsOf(session, method);
    const headers: Record<string, string> = { ...extra, accept: "application/json", ...own.headers };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: own.credentials,
        cache: "no-store",
      });
    } catch {
      throw new ApiError(0, texts.networkFailed);
    }
    if (!response.ok) {
      const { sentence, code, problems } = await failureOf(response, texts);
      const error = new ApiError(response.status, sentence, code, problems);
      if (response.status === 401) onRejected(error);
      throw error;
    }
    return { body: (response.status === 204 ? undefined : await response.json()) as T, headers: response.headers };
  }
  const send = async <T>(method: Method, path: string, body?: unknown): Promise<T> =>
    (await exchange<T>(method, path, { body })).body;
  const page = async <T>(path: string) => {
    const { body, headers } = await exchange<T[]>("GET", path);
    return { items: body, next: nextPageOf(headers) };
  };
  return {
    get: (path) => send("GET", path),
    post: (path, body) => send("POST", path, body),
    put: (path, body) => send("PUT", path, body),
    delete: (path) => send("DELETE", path),
    exchange,
    page,
    all: async <T>(path: string) => {
      const items: T[] = [];
      let next: string | null = `${path}${path.includes("?") ? "&" : "?"}limit=1000`;
      for (let read = 0; next && read < MOST_PAGES; read++) {
        const answered: { items: T[]; next: string | null } = await page<T>(next);
        items.push(...answered.items);
        next = answered.next;
      }
      return items;
    },
  };
}

/** A path segment: ids come from the service, but an id with `/` or `?` must still stay one segment. */
export const segment = encodeURIComponent;
