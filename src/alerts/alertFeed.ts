import pg from "pg";
import type { Logger } from "pino";
import { connectionToPrimary } from "../../db/primaryHosts.ts";
import { ALERTS_CHANNEL, type AlertNotice } from "../../projections/alerts/alerts.ts";
import type { Alert } from "../../queries/alerts/alerts.ts";

type Listener = (change: AlertNotice["change"], alert: Alert) => void;
/** The alert as it now stands; undefined when it is gone from the read model. */
export type AlertLoader = (tenant: string, alertId: string) => Promise<Alert | undefined>;

/**
 * Fans the alerts projection's notices out to the open alert streams of this process, each to its
 * own tenant's: one LISTEN connection, opened with the first subscriber and held while any remains,
 * and one read of each changed alert, however many streams show it. A connection lost is opened
 * again after a pause; what was told meanwhile is missed, so pages also read the list when their
 * stream (re)connects.
 */
export class AlertFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closers = new Set<() => void>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly load: AlertLoader,
  ) {}

  /**
   * Calls `listener` with each notice of `tenant` until the returned function is called;
   * `close` is called if the feed stops first (the service is shutting down), at once if it has.
   */
  async subscribe(tenant: string, listener: Listener, close: () => void): Promise<() => void> {
    // A stream asked for while the service stops ends at once, as the open ones did: the page
    // opens it again on the service that answers next (an error here would be a 500 and a stack).
    if (this.stopped) {
      close();
      return () => {};
    }
    const own = this.listeners.get(tenant) ?? new Set<Listener>();
    own.add(listener);
    this.listeners.set(tenant, own);
    this.closers.add(close);
    await this.listen();
    return () => {
      own.delete(listener);
      if (own.size === 0) this.listeners.delete(tenant);
      this.closers.delete(close);
      if (this.listeners.size === 0) void this.disconnect();
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const close of [...this.closers]) close();
    this.closers.clear();
    this.listeners.clear();
    await this.disconnect();
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const { connectionString, Client = pg.Client } = connectionToPrimary(this.databaseUrl);
    const client = new Client({ connectionString, application_name: "dialysis-hub-alert-feed", keepAlive: true });
    client.on("notification", (message) => this.tell(message.payload));
    client.on("error", (err) => {
      this.log.warn({ err }, "alert feed connection lost; listening again shortly");
      this.dropped(client);
    });
    client.on("end", () => this.dropped(client));
    await client.connect();
    await client.query(`listen ${ALERTS_CHANNEL}`);
    if (this.stopped || this.listeners.size === 0) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.stopped || this.listeners.size === 0 || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped && this.listeners.size > 0)
        this.listen().catch((err) => this.log.warn({ err }, "alert feed could not listen"));
    }, 1000);
    this.retry.unref();
  }

  private async disconnect(): Promise<void> {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private tell(payload: string | undefined): void {
    let notice: AlertNotice;
    try {
      notice = JSON.parse(payload ?? "") as AlertNotice;
    } catch {
      return;
    }
    if (!this.listeners.has(notice.tenant)) return;
    this.load(notice.tenant, notice.alertId)
      .then((alert) => {
        if (alert) for (const listener of this.listeners.get(notice.tenant) ?? []) listener(notice.change, alert);
      })
      .catch((err) => this.log.warn({ err, alertId: notice.alertId }, "alert not read for its streams"));
  }
}
