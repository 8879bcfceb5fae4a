import { expect } from "chai";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { runNoting } from "../support/packagesLoaded.ts";

/*
 * Issue #34 (12): the command line loads what a command needs when it runs. Its help, the whole
 * program's and every command's, is commander's alone: no database driver, queue, web framework,
 * projection or export library is imported to print it.
 */

/** The commands a help text lists (its "Commands:" section), but `help` itself. */
function commandsListed(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? "";
  return section
    .split("\n")
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== "help");
}

describe("the command line's help", () => {
  it("prints the program's help importing no package but commander", async () => {
    const run = await runNoting(SERVER_ENTRY, ["--help"]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain("Usage: dialysis-hub");
    expect(run.packages).to.deep.equal(["commander"]);
  });

  it("prints every command's help importing no package but commander", async function () {
    this.timeout(120_000);
    const seen: string[] = [];
    const heavier: string[] = [];
    const visit = async (path: string[]): Promise<void> => {
      const run = await runNoting(SERVER_ENTRY, [...path, "--help"]);
      expect(run.code, `${path.join(" ")} --help: ${run.stderr}`).to.equal(0);
      expect(run.stdout).to.contain(`Usage: dialysis-hub ${path.join(" ")}`);
      seen.push(path.join(" "));
      if (run.packages.join() !== "commander") heavier.push(`${path.join(" ")} --help: ${run.packages.join(", ")}`);
      for (const command of commandsListed(run.stdout)) await visit([...path, command]);
    };
    for (const command of commandsListed((await runNoting(SERVER_ENTRY, ["--help"])).stdout)) await visit([command]);
    expect(seen, "the commands were found in the help").to.include.members([
      "start",
      "migrate",
      "ledger verify",
      "projections rebuild",
      "keys create",
      "authors rotate",
      "import",
      "patients import",
    ]);
    expect(heavier).to.deep.equal([]);
  });
});
