/**
 * What a turn is for: a query, whose rows are in hand when it ends, or a streaming answer (a live
 * xlsx export), which holds its turn and its connection for as long as its reader takes to read.
 */
export type TurnKind = "query" | "stream";

export interface TenantGateOptions {
  /**
   * Turns streaming answers may hold at once, of every tenant together (at least 1; the service
   * gives REPORT_POOL_SIZE − REPORT_QUERIES_PER_TENANT): the report pool always keeps a tenant's
   * worth of connections that no reader, however slow, can hold.
   */
  streamsInAll?: number;
}

/**
 * At most `perTenant` report queries of one tenant run at once in this process (contract E.5,
 * REPORT_QUERIES_PER_TENANT). The rest wait in their tenant's own line, each at most `waitMs`,
 * and then fail in their own place. A tenant's line never holds up another tenant: with the
 * report pool larger than `perTenant`, one busy tenant always leaves connections for the others
 * (a pool shared first come, first served let one tenant's exports make another's one-row call
 * wait over 30 s).
 *
 * Streaming answers never get every turn (issue #52, finding 4: four xlsx exports nobody read
 * held all of a tenant's turns for ten minutes, and eight of two tenants the whole report pool):
 * they hold at most `perTenant − 1` of a tenant's turns (one when `perTenant` is 1), so its data
 * calls always have one, and at most `streamsInAll` across tenants, so the pool always has
 * connections for the others. A stream that finds no turn of its kind waits in the line like a
 * query, without holding up the queries behind it.
 */
export class TenantGate {
  private readonly running = new Map<string, { all: number; streams: number }>();
  private readonly lines = new Map<string, Array<{ kind: TurnKind; admit: () => void }>>();
  private streamsNow = 0;
  /** The most turns of one tenant that streaming answers may hold. */
  readonly streamsPerTenant: number;
  readonly streamsInAll: number;

  constructor(
    readonly perTenant: number,
    readonly waitMs: number,
    options: TenantGateOptions = {},
  ) {
    this.streamsPerTenant = Math.max(1, perTenant - 1);
    this.streamsInAll = Math.max(1, options.streamsInAll ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Resolves, once the tenant may run one more query (or streaming answer), with the function that
   * lets the next one in (call it exactly when it is over); or with null when the wait ran out or
   * `signal` aborted.
   */
  enter(tenant: string, signal?: AbortSignal, kind: TurnKind = "query"): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (this.fits(tenant, kind)) return Promise.resolve(this.admit(tenant, kind));
    return new Promise((resolve) => {
      const line = this.lines.get(tenant) ?? [];
      this.lines.set(tenant, line);
      // Out of the line without a turn: the wait ran out, or the caller left.
      const giveUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", giveUp);
        line.splice(line.indexOf(waiting), 1);
        if (line.length === 0) this.lines.delete(tenant);
        resolve(null);
      };
      const waiting = {
        kind,
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", giveUp);
          resolve(this.admit(tenant, kind));
        },
      };
      const timer = setTimeout(giveUp, this.waitMs);
      signal?.addEventListener("abort", giveUp, { once: true });
      line.push(waiting);
    });
  }

  /** How many queries and streaming answers of the tenant run now (for tests and metrics). */
  runningOf(tenant: string): number {
    return this.running.get(tenant)?.all ?? 0;
  }

  /** How many of them are streaming answers. */
  streamsOf(tenant: string): number {
    return this.running.get(tenant)?.streams ?? 0;
  }

  /** Whether a streaming answer of the tenant would wait for a turn of its kind rather than for any turn. */
  streamsFull(tenant: string): boolean {
    return this.runningOf(tenant) < this.perTenant && !this.fits(tenant, "stream");
  }

  private fits(tenant: string, kind: TurnKind): boolean {
    const now = this.running.get(tenant) ?? { all: 0, streams: 0 };
    if (now.all >= this.perTenant) return false;
    return kind === "query" || (now.streams < this.streamsPerTenant && this.streamsNow < this.streamsInAll);
  }

  private admit(tenant: string, kind: TurnKind): () => void {
    const now = this.running.get(tenant) ?? { all: 0, streams: 0 };
    now.all++;
    if (kind === "stream") {
      now.streams++;
      this.streamsNow++;
    }
    this.running.set(tenant, now);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(tenant, kind);
    };
  }

  private leave(tenant: string, kind: TurnKind): void {
    const now = this.running.get(tenant)!;
    now.all--;
    if (kind === "stream") {
      now.streams--;
      this.streamsNow--;
    }
    if (now.all === 0) this.running.delete(tenant);
    this.letIn(tenant);
    // A turn for streams of every tenant came free: other tenants' waiting streams may go now.
    if (kind === "stream") for (const other of [...this.lines.keys()]) if (other !== tenant) this.letIn(other);
  }

  /** Admits, in the order they came, the waiting ones of the tenant that now fit. */
  private letIn(tenant: string): void {
    const line = this.lines.get(tenant);
    if (!line) return;
    for (let i = 0; i < line.length;) {
      if (!this.fits(tenant, line[i]!.kind)) {
        i++;
        continue;
      }
      const [next] = line.splice(i, 1);
      next!.admit();
    }
    if (line.length === 0) this.lines.delete(tenant);
  }
}

/** The sentence of a query that waited its whole turn: in its own place (A.3), never the call's. */
export function tenantBusySentence(gate: TenantGate): string {
  return (
    `This hospital's report queries are all busy (${gate.perTenant} run at once, and this one waited ` +
    `${gate.waitMs / 1000} s for its turn); try again shortly.`
  );
}

/** The sentence of an xlsx export that waited its whole turn while the turns streaming answers may hold were taken. */
export function exportsBusySentence(gate: TenantGate): string {
  return (
    `Too many xlsx exports are being written right now (at most ${gate.streamsPerTenant} of this hospital's and ` +
    `${gate.streamsInAll} of all hospitals' at once, so that reports can still be shown), and this one waited ` +
    `${gate.waitMs / 1000} s for its turn; try again shortly.`
  );
}

/** Seconds a caller refused a turn should wait before it tries again (an export's Retry-After). */
export function retryAfterSeconds(gate: TenantGate): string {
  return String(Math.ceil(gate.waitMs / 1000));
}
