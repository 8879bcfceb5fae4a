import { createPool } from "../../../db/pool.ts";
import { clearError } from "../../../projections/runtime/generations.ts";
import { projectionsReport } from "../../../queries/runtime/projectionStatus.ts";
import { createLogger } from "../../logger.ts";
import { withDatabase } from "./database.ts";
import { projectionsNamed, rebuildWithProgress } from "./inProcessProjections.ts";

/** `projections status` */
export function projectionsStatus(): Promise<void> {
  return withDatabase(async (url) => {
    const db = createPool(url, { max: 2 });
    try {
      console.log(JSON.stringify(await projectionsReport(db), null, 2));
    } finally {
      await db.end();
    }
  });
}

/** `projections rebuild <name>`: exit code 1 unless every one chosen was rebuilt. */
export function rebuildProjections(name: string): Promise<void> {
  return withDatabase(async (url) => {
    const chosen = projectionsNamed(name);
    const db = createPool(url, { max: 4 });
    try {
      for (const projection of chosen) {
        const result = await rebuildWithProgress(db, projection, createLogger("warn"));
        console.log(projection.name, JSON.stringify(result));
        if (result.status !== "rebuilt") process.exitCode = 1;
      }
    } finally {
      await db.end();
    }
  });
}

/** `projections retry <name>` */
export function retryProjection(name: string): Promise<void> {
  return withDatabase(async (url) => {
    const db = createPool(url, { max: 2 });
    try {
      console.log((await clearError(db, name)) ? `${name} will retry` : `${name} is not stopped`);
    } finally {
      await db.end();
    }
  });
}
