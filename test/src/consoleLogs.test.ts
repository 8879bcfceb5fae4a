import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { createTestDatabase } from "../support/database.ts";
import { freePort } from "../support/privatePostgres.ts";
import { until } from "../support/service.ts";

/*
 * What `npm start` prints: lines for a person on a terminal, JSON lines for a log collector. The
 * terminal is a real pseudo-terminal, made by util-linux's `script`.
 */

interface Started {
  output: () => string;
  exited: Promise<number | null>;
  stop: () => void;
}

function startInTerminal(env: NodeJS.ProcessEnv): Started {
  const command = [process.execPath, SERVER_ENTRY, "start"].map((word) => `'${word}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return {
    output: () => output,
    exited: new Promise((resolve) => child.once("exit", resolve)),
    // The service runs in a session of its own under script: signal it and script alike.
    stop: () => {
      for (const pid of [...descendantsOf(child.pid!), child.pid!]) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
    },
  };
}

/** Every process below `pid`, from /proc. */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length;) {
    frontier = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

describe("console output of npm start", () => {
  let base: NodeJS.ProcessEnv;

  before(async () => {
    base = {
      ...process.env,
      DATABASE_URL: await createTestDatabase(false),
      ADMIN_TOKEN: "console-test-token-0123456789",
      LOG_LEVEL: "info",
    };
    delete base.LOG_FORMAT;
  });

  async function runUntilRunning(env: NodeJS.ProcessEnv): Promise<string> {
    const port = await freePort();
    const started = startInTerminal({ ...env, PORT: String(port) });
    try {
      await until(async () => started.output().includes("Dialysis Hub is running"), 30_000, 100);
      await fetch(`http://localhost:${port}/healthz`);
      await until(async () => /request/.test(started.output().split("Dialysis Hub is running")[1] ?? ""), 5000, 50);
      return started.output();
    } catch (error) {
      throw new Error(`${(error as Error).message}; the service printed:\n${started.output()}`, { cause: error });
    } finally {
      started.stop();
      await started.exited;
    }
  }

  it("prints readable lines on a terminal, not JSON", async function () {
    this.timeout(60_000);
    const output = await runUntilRunning(base);
    expect(output).not.to.match(/^\{"level"/m);
    expect(output).to.match(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] \S*INFO\S*: \S*request\S* .*"path":"\/healthz"/m);
  });

  it("prints JSON lines on a terminal with LOG_FORMAT=json", async function () {
    this.timeout(60_000);
    const output = await runUntilRunning({ ...base, LOG_FORMAT: "json" });
    const request = output.split(/\r?\n/).find((line) => line.includes('"msg":"request"'));
    expect(JSON.parse(request!)).to.include({ level: 30, path: "/healthz", status: 200 });
  });

  it("refuses an unknown LOG_FORMAT at start, naming the ones it takes", async function () {
    this.timeout(30_000);
    const started = startInTerminal({ ...base, LOG_FORMAT: "xml", PORT: String(await freePort()) });
    try {
      const code = await Promise.race([
        started.exited,
        new Promise((resolve) => setTimeout(resolve, 15_000, "still running")),
      ]);
      expect(code, started.output()).to.not.equal(0).and.not.equal("still running");
      expect(started.output())
        .to.match(/LOG_FORMAT/)
        .and.match(/json/)
        .and.match(/pretty/);
    } finally {
      started.stop();
    }
  });
});
