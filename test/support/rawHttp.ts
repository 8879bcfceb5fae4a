import http from "node:http";

/**
 * An HTTP client for hostile inputs: the path is sent as written (no normalisation of `..`, `%2e`
 * or backslashes, unlike fetch), the body is any bytes, and connections are kept alive and shared,
 * so thousands of requests cost no new connection each.
 */

export interface RawRequest {
  method: string;
  /** Sent byte for byte; node:http accepts the characters 0x21–0xff. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawHttpClient {
  send(request: RawRequest): Promise<RawAnswer>;
  close(): void;
}

export function rawHttpClient(baseUrl: string, connections = 4): RawHttpClient {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return {
    send: (request) =>
      new Promise((resolve, reject) => {
        const body =
          request.body === undefined
            ? undefined
            : Buffer.isBuffer(request.body)
              ? request.body
              : Buffer.from(request.body, "utf8");
        const headers: Record<string, string> = { ...(request.headers ?? {}) };
        if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "content-length")) {
          headers["content-length"] = String(body.length);
        }
        const req = http.request(
          {
            agent,
            host: hostname === "localhost" ? "127.0.0.1" : hostname,
            port,
            method: request.method,
            path: request.path,
            headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString("utf8"),
              }),
            );
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

/** Runs `work` over `items` with at most `concurrency` at a time, in order of start. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

export interface RawSocket {
  write(bytes: string | Buffer): void;
  /** Everything received so far, as Latin-1 (bytes stay bytes). */
  received(): string;
  /** Resolves with what was received once it matches `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  destroy(): void;
}

/** A bare TCP connection to the service, for requests no HTTP client would send (slow, cut, lying). */
export async function rawSocket(baseUrl: string): Promise<RawSocket> {
  const { connect } = await import("node:net");
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname === "localhost" ? "127.0.0.1" : hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let text = "";
  const listeners = new Set<() => void>();
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    for (const listener of listeners) listener();
  });
  socket.on("error", () => {}); // a reset by the server is an outcome the tests look at, not a failure
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    write: (bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    },
    received: () => text,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          done();
          resolve(text);
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `nothing matching ${pattern} within ${timeoutMs} ms; received ${JSON.stringify(text.slice(0, 300))}`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    closed,
    destroy: () => socket.destroy(),
  };
}
