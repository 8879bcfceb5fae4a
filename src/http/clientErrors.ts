import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface ClientError extends Error {
  code?: string;
  /** The bytes the HTTP parser choked on (its request line names the path). */
  rawPacket?: Buffer;
}

const OPEN_API_PREFIX = "/open/v1";

/**
 * Answers what Node's HTTP parser refuses before the app sees a request (raw non-ASCII bytes in
 * the path, malformed headers, headers over the size limit, a request not received whole within
 * REQUEST_TIMEOUT_MS) in the shape of the interface the request was meant for: the /open/v1
 * envelope with HTTP status = code (contract B.1), else `{ error }` (A.1). Node's own answer has no
 * body at all. The path comes from the refused bytes, or, for a timeout while a body arrives, from
 * the request the connection is serving.
 */
export class ClientErrorAnswers {
  private readonly serving = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();

  constructor(private readonly requestTimeoutMs: number) {}

  /** The server's request handler, noting which request each connection serves. */
  track(handler: Handler): Handler {
    return (req, res) => {
      this.serving.set(req.socket, { req, res });
      handler(req, res);
    };
  }

  readonly onClientError = (error: ClientError, socket: Duplex): void => {
    const current = this.serving.get(socket);
    // The client went away, or the app is answering (or has answered) the request still arriving,
    // e.g. a 413 decided on Content-Length: writing now would corrupt that answer or be read as
    // the answer to a later request.
    const answering =
      current !== undefined && current.res.headersSent && (!current.res.writableFinished || !current.req.complete);
    if (error.code === "ECONNRESET" || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const requestLine = error.rawPacket ? /^(\S+) (\S+)/.exec(error.rawPacket.toString("latin1")) : null;
    const arriving = current && !current.req.complete ? current.req : null;
    const method = requestLine?.[1] ?? arriving?.method ?? "";
    const path = requestLine?.[2] ?? arriving?.url ?? "";
    const [status, message] = this.explain(error);
    const open =
      path === OPEN_API_PREFIX || path.startsWith(`${OPEN_API_PREFIX}/`) || path.startsWith(`${OPEN_API_PREFIX}?`);
    // The answer to a HEAD request has no body (the client would read one as the next answer).
    const body =
      method === "HEAD"
        ? ""
        : JSON.stringify(open ? { code: status, msg: message, data: null, timestamp: Date.now() } : { error: message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  };

  private explain(error: ClientError): [number, string] {
    switch (error.code) {
      case "ERR_HTTP_REQUEST_TIMEOUT":
        return [
          408,
          `The request did not arrive whole within ${Math.round(this.requestTimeoutMs / 100) / 10} s; send it again without pausing.`,
        ];
      case "HPE_HEADER_OVERFLOW":
        return [431, "The request headers are too large; send fewer or shorter headers."];
      case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
        return [413, "The chunk extensions of the body are too large; send the body without them."];
      default:
        return [
          400,
          "The request is not well-formed HTTP/1.1; percent-encode any byte outside ASCII in the path and send headers as name: value lines.",
        ];
    }
  }
}
