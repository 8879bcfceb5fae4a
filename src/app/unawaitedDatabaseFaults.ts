import type { Logger } from "pino";
import { isTransient } from "../../db/transientErrors.ts";

export interface UnawaitedDatabaseFaults {
  /** From now on the service stops: a lost connection is expected, and said at info without a stack. */
  stopping(): void;
}

/**
 * pg-boss 10 completes a job without awaiting the result (manager.watch): a database that goes
 * away at that moment leaves a rejected promise nobody handles, and Node ends the process on one,
 * so a database restart could take every worker process down with it. A lost connection is
 * expected then, and the work it interrupted is retried anyway: it is logged. Any other unhandled
 * rejection still ends the process, as it should.
 */
export function surviveUnawaitedDatabaseFaults(log: Logger): UnawaitedDatabaseFaults {
  let stopping = false;
  process.on("unhandledRejection", (reason) => {
    if (!isTransient(reason)) throw reason;
    if (stopping)
      log.info(
        { fault: (reason as Error).message },
        "database connection lost while stopping, in work nobody awaited (a job queue completion)",
      );
    else log.warn({ err: reason }, "database fault in work nobody awaited (a job queue completion); carrying on");
  });
  return { stopping: () => void (stopping = true) };
}
