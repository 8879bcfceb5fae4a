import type { Logger } from "pino";
import type { CommandContext } from "../../../commands/kit/commandContext.ts";
import { EventStore } from "../../../db/eventStore.ts";
import { createPool, type Db } from "../../../db/pool.ts";
import { prepareProjections, rebuildProjection, type RebuildResult } from "../../../projections/runtime/rebuild.ts";
import { ProjectionRunner } from "../../../projections/runtime/runner.ts";
import { createLogger } from "../../logger.ts";
import { allProjections } from "../allProjections.ts";
import { commandContext } from "../commandContexts.ts";
import { progressBar, ratePerSecond } from "../progressBar.ts";

type AnyProjection = (typeof allProjections)[number];

/**
 * A writing command's context. Commands wait for their read models (`waitForProjection`), and a
 * CLI process has no projection workers: run the projections in this process for the duration of
 * the command, woken by its own appends as the service does. A service on the same database may
 * apply the events first; the checkpoint row locks keep that safe.
 */
export async function withCommandContext(
  url: string,
  work: (ctx: CommandContext, db: Db) => Promise<void>,
): Promise<void> {
  const log = createLogger("warn");
  const db = createPool(url, { max: 4, applicationName: "dialysis-hub-cli" });
  const runners: ProjectionRunner[] = [];
  try {
    // A projection new or changed stays stopped until built (the service's worker does it at start).
    await buildChangedProjections(db, log);
    for (const projection of allProjections) runners.push(new ProjectionRunner(db, projection, log));
    const store = new EventStore(db);
    store.onAppended((types) => {
      for (const runner of runners) if (runner.projection.handles.some((type) => types.has(type))) void runner.wake();
    });
    await work(commandContext(store, { actor: "cli" }), db);
  } finally {
    await Promise.all(runners.map((runner) => runner.stop()));
    await db.end();
  }
}

/** Every projection the service runs, by name; `all` is every one. */
export function projectionsNamed(name: string): readonly AnyProjection[] {
  const chosen = name === "all" ? allProjections : allProjections.filter((p) => p.name === name);
  if (chosen.length === 0)
    throw new Error(`no projection ${name}; known: ${allProjections.map((p) => p.name).join(", ") || "none"}`);
  return chosen;
}

/** Builds, by replay, every projection that is new or whose version changed. */
export async function buildChangedProjections(db: Db, log: Logger): Promise<void> {
  for (const projection of await prepareProjections(db, allProjections, log)) await buildByReplay(db, projection, log);
}

/** A rebuild with a progress bar of the events read (events/s and ETA). */
export async function rebuildWithProgress(db: Db, projection: AnyProjection, log: Logger): Promise<RebuildResult> {
  const bar = progressBar("events");
  const startedAt = performance.now();
  let started = false;
  try {
    return await rebuildProjection(db, projection, log, {
      onProgress: ({ eventsRead, lastPosition }) => {
        if (!started) bar.start(lastPosition, 0, { rate: 0, status: projection.name });
        started = true;
        bar.setTotal(lastPosition);
        bar.update(eventsRead, { rate: ratePerSecond(startedAt, eventsRead), status: projection.name });
      },
    });
  } finally {
    if (started) bar.stop();
  }
}

async function buildByReplay(db: Db, projection: AnyProjection, log: Logger): Promise<void> {
  console.error(`building projection ${projection.name} by replay (it is new, or its version changed)…`);
  const result = await rebuildWithProgress(db, projection, log);
  if (result.status === "rebuilt" && result.heldBack.length > 0) {
    console.error(
      `projection ${projection.name}: ${result.heldBack.length} tenant(s) held back at an event it cannot apply (GET /api/admin/projections names them)`,
    );
  }
}
