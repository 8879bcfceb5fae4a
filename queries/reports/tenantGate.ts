/**
 * At most `perTenant` report queries of one tenant run at once in this process (contract E.5,
 * REPORT_QUERIES_PER_TENANT). The rest wait in their tenant's own line, each at most `waitMs`,
 * and then fail in their own place. A tenant's line never holds up another tenant: with the
 * report pool larger than `perTenant`, one busy tenant always leaves connections for the others
 * (a pool shared first come, first served let one tenant's exports make another's one-row call
 * wait over 30 s).
 */
export class TenantGate {
  private readonly running = new Map<string, number>();
  private readonly lines = new Map<string, Array<() => void>>();

  constructor(
    readonly perTenant: number,
    readonly waitMs: number,
  ) {}

  /**
   * Resolves, once the tenant may run one more query, with the function that lets the next one in
   * (call it exactly when the query is over); or with null when the wait ran out or `signal` aborted.
   */
  enter(tenant: string, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if ((this.running.get(tenant) ?? 0) < this.perTenant) return Promise.resolve(this.admit(tenant));
    return new Promise((resolve) => {
      const line = this.lines.get(tenant) ?? [];
      this.lines.set(tenant, line);
      // Out of the line without a turn: the wait ran out, or the caller left.
      const giveUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", giveUp);
        line.splice(line.indexOf(admitted), 1);
        if (line.length === 0) this.lines.delete(tenant);
        resolve(null);
      };
      const admitted = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", giveUp);
        resolve(this.admit(tenant));
      };
      const timer = setTimeout(giveUp, this.waitMs);
      signal?.addEventListener("abort", giveUp, { once: true });
      line.push(admitted);
    });
  }

  /** How many queries of the tenant run now (for tests and metrics). */
  runningOf(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }

  private admit(tenant: string): () => void {
    this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(tenant);
    };
  }

  private leave(tenant: string): void {
    const now = (this.running.get(tenant) ?? 1) - 1;
    if (now === 0) this.running.delete(tenant);
    else this.running.set(tenant, now);
    const line = this.lines.get(tenant);
    const next = line?.shift();
    if (line && line.length === 0) this.lines.delete(tenant);
    next?.();
  }
}

/** The sentence of a query that waited its whole turn: in its own place (A.3), never the call's. */
export function tenantBusySentence(gate: TenantGate): string {
  return `This hospital's report queries are all busy (${gate.perTenant} run at once, and this one waited ${gate.waitMs / 1000} s for its turn); try again shortly.`;
}

/** Seconds a caller refused a turn should wait before it tries again (an export's Retry-After). */
export function retryAfterSeconds(gate: TenantGate): string {
  return String(Math.ceil(gate.waitMs / 1000));
}
