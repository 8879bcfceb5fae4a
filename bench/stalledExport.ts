import net from "node:net";

/**
 * Asks for an xlsx export and never reads the answer (the socket paused: the kernel's buffers
 * fill); from `address` as a proxy on this host names it, when given.
 */
export async function stalledExport(
  url: string,
  tenant: string,
  reportId: string,
  address?: string,
): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname === "localhost" ? "127.0.0.1" : hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.on("error", () => {});
  const body = JSON.stringify({});
  const forwarded = address ? `X-Forwarded-For: ${address}\r\n` : "";
  socket.write(
    `POST /api/reports/${reportId}/export/xlsx HTTP/1.1\r\nHost: bench\r\nX-Service-Tenant: ${tenant}\r\n${forwarded}` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  return socket;
}
