/**
 * Faults of the connection or the server rather than of the code: the same work will succeed
 * once the database is back, so they never stop a projection.
 */
const TRANSIENT_SQLSTATE_CLASSES = ["08", "53", "57", "58"]; // connection, resources, operator intervention, system
const TRANSIENT_SQLSTATES = new Set(["40001", "40P01", "55P03"]); // serialization, deadlock, lock not available

export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string")
    return error instanceof Error && /connect|terminat|ECONN|EPIPE|timeout/i.test(error.message);
  if (/^E[A-Z]+$/.test(code)) return true; // Node socket errors: ECONNREFUSED, ECONNRESET, EPIPE, ...
  return TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2));
}
