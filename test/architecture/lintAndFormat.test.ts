import { expect } from "chai";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import * as prettier from "prettier";
import { ROOT } from "./importGraph.ts";

/*
 * CI runs `npm run check` (Prettier in check mode, then ESLint with its type-aware rules) before
 * the tests: these prove that the configuration catches what it is there for, on a file written
 * into the tree as a contributor would, so a weakened configuration fails here (decision 0072).
 */
describe("the formatter and the linter CI runs (npm run check)", function () {
  this.timeout(120_000);
  const probe = path.join(ROOT, "src", "lintProbe.ts");
  afterEach(() => rmSync(probe, { force: true }));

  async function lintProblems(source: string): Promise<string[]> {
    writeFileSync(probe, source);
    const [result] = await new ESLint({ cwd: ROOT }).lintFiles([probe]);
    return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
  }

  it("fails a promise nobody awaits", async () => {
    const problems = await lintProblems(
      "async function save(): Promise<void> {}\nexport function onClick(): void {\n  save();\n}\n",
    );
    expect(problems).to.include("@typescript-eslint/no-floating-promises");
  });

  it("fails an async function where the caller ignores what it returns (an event listener)", async () => {
    const problems = await lintProblems(
      'import { EventEmitter } from "node:events";\nexport function listen(events: EventEmitter): void {\n  ' +
        'events.on("x", async () => {\n    await Promise.resolve();\n  });\n}\n',
    );
    expect(problems).to.include("@typescript-eslint/no-misused-promises");
  });

  it("passes the same code written properly", async () => {
    const problems = await lintProblems(
      "async function save(): Promise<void> {}\nexport function onClick(): void {\n  void save();\n}\n",
    );
    expect(problems).to.deep.equal([]);
  });

  it("fails an unformatted line and passes it formatted", async () => {
    const options = { ...(await prettier.resolveConfig(probe)), filepath: probe };
    expect(await prettier.check("export const a = {b:1}\n", options)).to.equal(false);
    expect(await prettier.check("export const a = { b: 1 };\n", options)).to.equal(true);
  });
});
