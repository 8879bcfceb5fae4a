import net from "node:net";

/*
 * A TCP proxy in front of a PostgreSQL that a test can turn into a black hole: bytes stop moving
 * both ways, and no socket is closed or reset, as when a network partition or a dead NAT entry
 * takes the path between the service and its database. A connection that was black-holed stays
 * so (its peers' TCP state is gone after a real partition); `forward()` lets new connections
 * through again.
 */
export class BlackHoleProxy {
  private forwarding = true;
  private readonly server = net.createServer((client) => this.accept(client));
  private readonly swallowed = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  static async inFrontOf(databaseUrl: string): Promise<{ proxy: BlackHoleProxy; url: string }> {
    const url = new URL(databaseUrl);
    const proxy = new BlackHoleProxy(url.hostname, Number(url.port || 5432));
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    return { proxy, url: url.toString() };
  }

  /** From now on nothing passes, on open connections and on new ones. */
  blackHole(): void {
    this.forwarding = false;
  }

  forward(): void {
    this.forwarding = true;
  }

  async close(): Promise<void> {
    for (const socket of this.swallowed) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: net.Socket): void {
    this.swallowed.add(client);
    if (!this.forwarding) return; // accepted, and never answered
    const upstream = net.connect(this.upstreamPort, this.upstreamHost);
    this.swallowed.add(upstream);
    const relay = (from: net.Socket, to: net.Socket) => {
      from.on("data", (chunk) => {
        if (this.forwarding) to.write(chunk);
      });
      // While forwarding, an end or a reset passes on; in a black hole nothing does.
      from.on("close", () => this.forwarding && to.destroy());
      from.on("error", () => {});
    };
    relay(client, upstream);
    relay(upstream, client);
  }
}
