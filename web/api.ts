import type { Texts } from "./i18n.ts";
import { request } from "./request.ts";
import type { Boot } from "./types.ts";

/** A failed call: the service's `{ error }` sentence when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The service's stable code of the failure (`{ error, code }`), when it sent one. */
    readonly code?: string,
    /** A refused report spec's problems (`{ error, code, problems }`), each with its place and code. */
    readonly problems?: ReadonlyArray<{ path: string; code: string; message: string }>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  /** The JSON of a call already sent (by boot.js). */
  read<T>(sent: Promise<Response>): Promise<T>;
  /** POSTs and saves the answer as a file named by its Content-Disposition. */
  download(path: string, body: unknown, fallbackName: string): Promise<string>;
}

/** Calls of the viewing API on the page's own server (see request.ts for the headers). */
export function createApi(boot: Boot, texts: Texts): Api {
  async function checked(sent: Promise<Response>): Promise<Response> {
    let response: Response;
    try {
      response = await sent;
    } catch {
      throw new ApiError(0, texts.networkFailed);
    }
    if (!response.ok) {
      const { sentence, code } = await failureOf(response, texts);
      throw new ApiError(response.status, sentence, code);
    }
    return response;
  }
  const send = (method: "GET" | "POST", path: string, body?: unknown) => checked(request(boot, method, path, body));

  return {
    async get<T>(path: string) {
      return (await (await send("GET", path)).json()) as T;
    },
    async post<T>(path: string, body: unknown) {
      return (await (await send("POST", path, body)).json()) as T;
    },
    async read<T>(sent: Promise<Response>) {
      return (await (await checked(sent)).json()) as T;
    },
    async download(path: string, body: unknown, fallbackName: string) {
      const response = await send("POST", path, body);
      const name = fileNameOf(response.headers.get("content-disposition")) ?? fallbackName;
      saveBlob(await response.blob(), name);
      return name;
    },
  };
}

/** The words of a page for the service's stable failure codes; a code it has no words for shows the service's sentence. */
export interface ErrorCodeTexts {
  errorCodes?: Partial<Record<string, string>>;
}

/**
 * What a failed call says (`{ error, code? }`): the page's words for its code when the page has
 * them, else the service's own sentence, else one naming the status; and the code.
 */
export async function failureOf(
  response: Response,
  texts: Pick<Texts, "requestFailed"> & ErrorCodeTexts,
): Promise<{ sentence: string; code?: string; problems?: ApiError["problems"] }> {
  try {
    const body = (await response.json()) as { error?: unknown; code?: unknown; problems?: unknown };
    const code = typeof body.code === "string" && body.code ? body.code : undefined;
    const problems = Array.isArray(body.problems) ? { problems: body.problems as ApiError["problems"] } : {};
    const translated = code ? texts.errorCodes?.[code] : undefined;
    if (translated) return { sentence: translated, code, ...problems };
    if (typeof body.error === "string" && body.error)
      return { sentence: body.error, ...(code ? { code } : {}), ...problems };
  } catch {
    // not JSON: the status says enough
  }
  return { sentence: texts.requestFailed(response.status) };
}

/** The sentence of a failed call (see failureOf). */
export async function errorSentence(
  response: Response,
  texts: Pick<Texts, "requestFailed"> & ErrorCodeTexts,
): Promise<string> {
  return (await failureOf(response, texts)).sentence;
}

/** `filename*=UTF-8''…` (RFC 5987) when present, else `filename="…"`. */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[2]!.trim());
    } catch {
      // a malformed escape: fall back to the plain name
    }
  }
  const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(disposition) ?? /filename\s*=\s*([^;]+)/i.exec(disposition);
  return plain ? plain[1]!.replace(/\\(.)/g, "$1").trim() : null;
}

export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
