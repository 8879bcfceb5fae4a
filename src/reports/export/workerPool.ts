/**
 * A few worker threads for the exports' synchronous work (issue #32 finding 5). Drawing a chart
 * (ECharts to SVG, resvg to PNG) takes up to a second for a big one, and zipping a Word document
 * deflates every image on the spot; done on the event loop, a docx of 50 such charts kept every
 * other request of the process waiting, /healthz for up to 23 s. Here that work runs on worker
 * threads, one job at a time each, and the event loop only hands the data over and takes the
 * answer back.
 *
 * - Threads start on the first job (a service that never exports starts none) and end after
 *   `idleMs` without work, giving back the memory of what they loaded.
 * - `runAll` (one export's jobs) has at most `atOnce` of its jobs in the pool at once: another
 *   export's jobs take their turn between them instead of waiting behind all of them.
 * - A job whose worker throws fails with the worker's error; a thread that dies fails the job it
 *   was running, and the next job gets a new thread.
 *
 * The worker's side is `serveJobs` in its entry module (one of WORKER_ENTRIES).
 */
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { parentPort, Worker } from "node:worker_threads";
import { projectFile } from "../../../db/projectFiles.ts";
import { eachLimited } from "../../eachLimited.ts";

/**
 * The worker threads' entry modules, by name: each is an entry of the build as well, emitted as
 * dist/<name>.js (src/buildServer.ts), where a pool running from the build starts it.
 */
export const WORKER_ENTRIES = { docxWorker: "src/reports/export/docxWorker.ts" } as const;
export type WorkerName = keyof typeof WORKER_ENTRIES;

export interface WorkerPoolOptions {
  /** Worker threads at most (default: one fewer than the machine's cores, at least one). */
  threads?: number;
  /** A thread without work this long ends (default 30 s). */
  idleMs?: number;
}

type Reply<Answer> = { answer: Answer } | { failure: string };

interface Task<Job, Answer> {
  job: Job;
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

interface Thread<Job, Answer> {
  worker: Worker;
  task: Task<Job, Answer> | null;
  idle: NodeJS.Timeout | null;
}

/**
 * Starts an entry on a worker thread: the build's file, or the TypeScript source when this module
 * runs from the sources (tests, benchmarks). Node 20 does not give a worker thread the process's
 * `--import tsx`, so there the worker registers tsx (found from the working directory, the
 * checkout) before it imports the source.
 */
function startWorker(name: WorkerName): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(pathToFileURL(projectFile("dist", `${name}.js`)));
  const source = JSON.stringify(pathToFileURL(projectFile(WORKER_ENTRIES[name])).href);
  return new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${source}); });`, {
    eval: true,
  });
}

const stopped = () => new Error("The export workers have stopped (the service is shutting down).");

export class WorkerPool<Job, Answer> {
  readonly threads: number;
  private readonly idleMs: number;
  private readonly running = new Set<Thread<Job, Answer>>();
  private readonly queue: Array<Task<Job, Answer>> = [];
  private closed = false;

  constructor(
    private readonly entry: WorkerName,
    options: WorkerPoolOptions = {},
  ) {
    this.threads = Math.max(1, options.threads ?? availableParallelism() - 1);
    this.idleMs = options.idleMs ?? 30_000;
  }

  /** Threads running now (busy or idle). */
  get size(): number {
    return this.running.size;
  }

  /** One job, run on a worker thread once one is free. */
  run(job: Job): Promise<Answer> {
    if (this.closed) return Promise.reject(stopped());
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** The jobs' answers in their order, at most `atOnce` of the jobs in the pool at once; the first failure fails the call. */
  async runAll(jobs: readonly Job[], atOnce: number): Promise<Answer[]> {
    const answers: Answer[] = new Array(jobs.length);
    await eachLimited(jobs, Math.max(1, atOnce), async (job, i) => {
      answers[i] = await this.run(job);
    });
    return answers;
  }

  /** Ends every thread; the jobs waiting or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(stopped());
    await Promise.all([...this.running].map((thread) => this.end(thread)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const thread =
        [...this.running].find((candidate) => candidate.task === null) ??
        (this.running.size < this.threads ? this.start() : null);
      if (!thread) return;
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = null;
      thread.task = this.queue.shift()!;
      thread.worker.postMessage(thread.task.job);
    }
  }

  private start(): Thread<Job, Answer> {
    const worker = startWorker(this.entry);
    worker.unref(); // the HTTP server keeps the process alive, not an idle worker
    const thread: Thread<Job, Answer> = { worker, task: null, idle: null };
    this.running.add(thread);
    worker.on("message", (reply: Reply<Answer>) => {
      const task = thread.task;
      thread.task = null;
      if (task && "answer" in reply) task.resolve(reply.answer);
      else if (task && "failure" in reply) task.reject(new Error(reply.failure));
      this.dispatch();
      if (!thread.task && this.running.has(thread))
        thread.idle = setTimeout(() => void this.end(thread), this.idleMs).unref();
    });
    worker.on("error", (error) => this.lost(thread, error));
    worker.on("exit", (code) => this.lost(thread, new Error(`An export worker thread stopped (exit code ${code}).`)));
    return thread;
  }

  /** A thread that failed or died: its job fails, and the jobs waiting get a new thread. */
  private lost(thread: Thread<Job, Answer>, error: Error): void {
    if (!this.running.delete(thread)) return; // ended on purpose, or its error came before its exit
    if (thread.idle) clearTimeout(thread.idle);
    thread.task?.reject(error);
    thread.task = null;
    if (!this.closed) this.dispatch();
  }

  private async end(thread: Thread<Job, Answer>): Promise<void> {
    this.running.delete(thread);
    if (thread.idle) clearTimeout(thread.idle);
    thread.task?.reject(stopped());
    thread.task = null;
    await thread.worker.terminate();
  }
}

/** The worker's side: answers each job the pool posts with `work`'s answer, or its error as the job's failure. */
export function serveJobs<Job, Answer>(work: (job: Job) => Answer | Promise<Answer>): void {
  const port = parentPort;
  if (!port) throw new Error("serveJobs runs on a worker thread of a WorkerPool.");
  const answer = async (job: Job) => {
    let reply: Reply<Answer>;
    try {
      reply = { answer: await work(job) };
    } catch (error) {
      reply = { failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    port.postMessage(reply);
  };
  port.on("message", (job: Job) => void answer(job));
}
