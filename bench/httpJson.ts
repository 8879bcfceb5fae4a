import http from "node:http";

/**
 * The benchmarks' HTTP client: Node's own, on kept-alive connections. The clients share the
 * service's two cores, and fetch took a quarter of a core to send the ingest load (top), this
 * about a twentieth.
 */
const agent = new http.Agent({ keepAlive: true });

export function httpJson(
  method: "GET" | "POST",
  url: string,
  headers: Record<string, string>,
  body: Buffer | null,
): Promise<{ status: number; answer: any }> {
  return new Promise((resolve, reject) => {
    const length = body ? { "content-length": String(body.length) } : {};
    const request = http.request(url, { method, agent, headers: { ...headers, ...length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        try {
          resolve({ status: response.statusCode ?? 0, answer: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch (error) {
          reject(error);
        }
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body ?? undefined);
  });
}
