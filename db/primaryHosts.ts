import pg from "pg";

/*
 * Fail-over: DATABASE_URL may name several hosts, as libpq does
 * (`postgres://user:pass@db-a:5432,db-b:5432/dialysis_hub`), and the service connects to whichever
 * of them accepts writes now: libpq's target_session_attrs=read-write, which node-postgres lacks.
 * After the primary is lost and a standby promoted, new connections find the new primary by
 * themselves; until one exists, connecting fails as "cannot connect now" (SQLSTATE 08001), which
 * callers answer with 503.
 *
 * Connections are made by a pg.Client of our own (pg.Pool's `Client` option, pg-boss's too) that
 * picks the host before it connects; the pools, pg-boss and the report role's pool all share one
 * choice of host per list.
 */

export interface HostPort {
  host: string;
  port: number;
}

const MULTI_HOST_URL = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/** The hosts of a connection URL, in order (one for an ordinary URL). */
export function hostsOf(url: string): HostPort[] {
  const match = MULTI_HOST_URL.exec(url);
  if (!match) return [];
  return match[3]!.split(",").map((part) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
    if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 5432) };
    const [host, port] = part.split(":");
    return { host: host || "localhost", port: Number(port || 5432) };
  });
}

/** The URL with these hosts in place of its own. */
export function urlWithHosts(url: string, hosts: HostPort[]): string {
  const match = MULTI_HOST_URL.exec(url);
  if (!match) return url;
  const list = hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",");
  return `${match[1]}${match[2] ?? ""}${list}${match[4]}`;
}

/** The URL with one host in place of the list: what node-postgres, node-pg-migrate and `new URL` can read. */
export function urlWithHost(url: string, host: HostPort): string {
  return urlWithHosts(url, [host]);
}

/** A URL `new URL` can read: with several hosts (fail-over), the first one stands for them; one host, as written. */
export function firstHostUrl(url: string): string {
  const hosts = hostsOf(url);
  return hosts.length > 1 ? urlWithHost(url, hosts[0]!) : url;
}

/** Whether `url` is a PostgreSQL URL, with one host or several. */
export function isDatabaseUrl(url: string): boolean {
  const hosts = hostsOf(url);
  if (hosts.length === 0 || hosts.some((h) => !Number.isInteger(h.port) || h.port < 1 || h.port > 65535)) return false;
  try {
    new URL(firstHostUrl(url));
    return true;
  } catch {
    return false;
  }
}

export class NoPrimaryError extends Error {
  /** sqlclient_unable_to_establish_sqlconnection: a transient fault (db/transientErrors.ts). */
  readonly code = "08001";
}

/** How long asking one host whether it takes writes may take. */
const PROBE_TIMEOUT_MS = 2000;

/** Which host of a list takes writes now; asked again once a connection to it fails. */
class PrimaryChoice {
  private known: HostPort | null = null;
  private probing: Promise<HostPort> | null = null;

  constructor(
    private readonly url: string,
    private readonly hosts: HostPort[],
  ) {}

  current(): Promise<HostPort> {
    if (this.known) return Promise.resolve(this.known);
    this.probing ??= this.probe().finally(() => (this.probing = null));
    return this.probing;
  }

  /** A connection to `host` failed: the next connection asks every host again. */
  lost(host: HostPort): void {
    if (this.known && this.known.host === host.host && this.known.port === host.port) this.known = null;
  }

  private async probe(): Promise<HostPort> {
    for (const host of this.hosts) {
      const client = new pg.Client({
        connectionString: urlWithHost(this.url, host),
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      });
      client.on("error", () => {});
      try {
        await client.connect();
        const { rows } = await client.query("select pg_is_in_recovery() as standby");
        if (!rows[0].standby) return (this.known = host);
      } catch {
        // Down or unreachable: the next host.
      } finally {
        await client.end().catch(() => {});
      }
    }
    throw new NoPrimaryError(
      `no database server of ${this.hosts.map((h) => `${h.host}:${h.port}`).join(", ")} accepts writes now`,
    );
  }
}

const choices = new Map<string, PrimaryChoice>();

function choiceFor(url: string): PrimaryChoice {
  const hosts = hostsOf(url);
  const key = hosts.map((h) => `${h.host}:${h.port}`).join(",");
  let choice = choices.get(key);
  if (!choice) choices.set(key, (choice = new PrimaryChoice(url, hosts)));
  return choice;
}

type ConnectCallback = ((error: Error) => void) & ((error: null, client: pg.Client) => void);

/**
 * For a URL of several hosts: the pg.Client class and the one-host URL to give a pool (or pg-boss)
 * so that each new connection goes to the current primary. For an ordinary URL: nothing to change.
 */
export function connectionToPrimary(url: string): { connectionString: string; Client?: typeof pg.Client } {
  const hosts = hostsOf(url);
  if (hosts.length <= 1) return { connectionString: url };
  const choice = choiceFor(url);
  class PrimaryClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
      const connected = (async () => {
        const target = await choice.current();
        const self = this as unknown as { host: string; port: number; connectionParameters: HostPort };
        self.host = self.connectionParameters.host = target.host;
        self.port = self.connectionParameters.port = target.port;
        try {
          await super.connect();
        } catch (error) {
          choice.lost(target);
          throw error;
        }
        return this as pg.Client;
      })();
      if (!callback) return connected;
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
    }
  }
  return { connectionString: firstHostUrl(url), Client: PrimaryClient };
}

/** The one-host URL of the current primary: for tools that connect once (migrations). */
export async function primaryUrl(url: string): Promise<string> {
  const hosts = hostsOf(url);
  if (hosts.length <= 1) return url;
  return urlWithHost(url, await choiceFor(url).current());
}
