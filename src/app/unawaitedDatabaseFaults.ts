import type { Logger } from "pino";
import { isTransient } from "../../db/transientErrors.ts";

/**
 * pg-boss 10 completes a job without awaiting the result (manager.watch): a database that goes
 * away at that moment leaves a rejected promise nobody handles, and Node ends the process on one,
 * so a database restart could take every worker process down with it. A lost connection is
 * expected then, and the work it interrupted is retried anyway: it is logged. Any other unhandled
 * rejection still ends the process, as it should.
 */
export function surviveUnawaitedDatabaseFaults(log: Logger): void {
  process.on("unhandledRejection", (reason) => {
    if (!isTransient(reason)) throw reason;
    log.warn({ err: reason }, "database fault in work nobody awaited (a job queue completion); carrying on");
  });
}
