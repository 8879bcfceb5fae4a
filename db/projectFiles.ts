import path from "node:path";
import { fileURLToPath } from "node:url";

/*
 * Files the service reads from the checkout (migrations, the default dictionary, help articles,
 * the pages' bundles). They are found from the checkout's root, and this module sits one folder
 * below it both as source (db/) and bundled into the production build (dist/): a path relative
 * to each module's own location would break once the modules are bundled into one file.
 */
const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A path inside the checkout, given from its root (`projectFile("db", "migrations")`). */
export function projectFile(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}
