import { setTimeout as sleep } from "node:timers/promises";

export interface HealthPolls {
  /** Health checks asked. */
  polls: number;
  /** The checks that did not answer 200, each as what happened (a connection the busy service reset, …). */
  failures: string[];
  /** The slowest check, answered or failed: how long the service kept a health check waiting. */
  longestMs: number;
}

/**
 * Asks `GET /healthz` every `everyMs` (after each answer) until stopped, timing each answer: whether
 * the service kept answering while it was busy with something else. Meant for a service in a
 * process of its own; in the caller's process a blocked event loop delays the asking as well.
 */
export function pollHealthz(url: string, everyMs = 50): { stop(): Promise<HealthPolls> } {
  const latencies: number[] = [];
  const failures: string[] = [];
  let running = true;
  const polling = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const answer = await fetch(`${url}/healthz`);
        await answer.arrayBuffer();
        if (answer.status !== 200) failures.push(`answered ${answer.status}`);
      } catch (error) {
        // A keep-alive connection the service closed late (its idle timer overdue after a blocked event loop) resets.
        const cause = (error as Error & { cause?: Error }).cause;
        failures.push(`${(error as Error).message}${cause ? `: ${cause.message}` : ""}`);
      }
      latencies.push(performance.now() - started);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await polling;
      return { polls: latencies.length, failures, longestMs: Math.max(0, ...latencies) };
    },
  };
}
