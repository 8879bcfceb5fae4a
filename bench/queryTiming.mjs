// Times every statement a process sends through node-postgres, grouped by its text: loaded into the
// service's process with `node --import <this file>` by the floor group's profiled runs
// (bench/profiledRuns.ts), and by nothing else, so it costs nothing when off. It stands in for
// pg_stat_statements, which the shared server has available but not in shared_preload_libraries
// (and which cannot be loaded there without a restart). Plain JavaScript: the service runs from its
// build, without tsx.
//
// The time is the driver's, from the call to the answer: the server's execution plus the round
// trip, the parsing of the rows, and any wait for the event loop (a busy process reads an answer
// late) or for a CPU (on a loaded machine). Statements on different connections overlap, so their
// sum may exceed the wall time. SIGUSR2 starts the count afresh (the run's window); at exit the statements
// are written to BENCH_QUERY_TIMING_FILE.
import { writeFileSync } from "node:fs";
import pg from "pg";

const file = process.env.BENCH_QUERY_TIMING_FILE;
if (file) {
  /** @type {Map<string, { statement: string, calls: number, totalMs: number, maxMs: number, rows: number }>} */
  const statements = new Map();
  const original = pg.Client.prototype.query;

  // Statements that differ only in their parameters' numbers, literal numbers or how many rows of
  // VALUES they carry are one statement, as pg_stat_statements counts them.
  const normalise = (text) =>
    text
      .replace(/\s+/g, " ")
      .replace(/\$\d+/g, "$")
      .replace(/\b\d+\b/g, "N")
      .replace(/(\([^()]*\))(?:, \1)+/g, "$1, …")
      .trim();

  const record = (text, started, result) => {
    const ms = performance.now() - started;
    const statement = normalise(text);
    let entry = statements.get(statement);
    if (!entry) statements.set(statement, (entry = { statement, calls: 0, totalMs: 0, maxMs: 0, rows: 0 }));
    entry.calls++;
    entry.totalMs += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
    const results = Array.isArray(result) ? result : result ? [result] : [];
    for (const r of results) entry.rows += r.rowCount ?? 0;
  };

  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === "string" ? config : config?.text;
    // Cursors, COPY and other submittables answer by events of their own: not timed.
    if (typeof text !== "string" || typeof config?.submit === "function") return original.apply(this, arguments);
    const started = performance.now();
    const answered = (done) => (error, result) => {
      record(text, started, error ? null : result);
      done(error, result);
    };
    if (typeof values === "function") return original.call(this, config, answered(values));
    if (typeof callback === "function") return original.call(this, config, values, answered(callback));
    const promise = original.apply(this, arguments);
    if (!promise || typeof promise.then !== "function") return promise;
    return promise.then(
      (result) => (record(text, started, result), result),
      (error) => {
        record(text, started, null);
        throw error;
      },
    );
  };

  process.on("SIGUSR2", () => statements.clear());
  process.on("exit", () =>
    writeFileSync(file, JSON.stringify([...statements.values()].sort((a, b) => b.totalMs - a.totalMs))),
  );
}
