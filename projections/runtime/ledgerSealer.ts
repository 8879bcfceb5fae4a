import type { Logger } from "pino";
import { sealPending } from "../../db/ledger.ts";
import type { Db } from "../../db/pool.ts";
import { isTransient } from "../../db/transientErrors.ts";

/**
 * Seals the ledger every `everyMs` on a worker process (contract D.2), never on the append path.
 * Several workers may run it: the advisory lock in sealPending lets one seal at a time. Each block
 * sealed is logged with its root, and the first block of a local day is preceded by one line with
 * the root the day before ended with: lines a hospital can keep elsewhere as receipts.
 */
export class LedgerSealer {
  private timer: NodeJS.Timeout | null = null;
  private sealing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sealNow(), this.everyMs);
    this.timer.unref();
  }

  /** Seals what can be sealed now, after any seal under way. */
  sealNow(): Promise<void> {
    this.sealing = this.sealing.then(async () => {
      try {
        for (const block of await sealPending(this.db)) {
          if (block.closesDay) this.log.info(block.closesDay, "ledger root of the day");
          this.log.info({ block: block.no, events: block.events, root: block.root }, "ledger block sealed");
        }
      } catch (err) {
        this.log[isTransient(err) ? "warn" : "error"]({ err }, "ledger sealing failed; trying again at the next round");
      }
    });
    return this.sealing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sealing;
  }
}
