import type { Db } from "../../db/pool.ts";
import type { Checkpoint } from "./eventFeed.ts";

/**
 * Read-your-writes for a caller that must see its own change in a read model before answering
 * (a revoked key must fail the very next request). Polls the checkpoint; the in-process runner
 * has usually applied the event within milliseconds.
 */
export async function waitForProjection(db: Db, name: string, event: Checkpoint, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    const { rows } = await db.query(
      `select (last_tx, last_position) >= ($2::xid8, $3::bigint) as applied
       from projection_generations where name = $1 and state = 'live'`,
      [name, event.transactionId, event.position],
    );
    if (rows[0]?.applied) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
