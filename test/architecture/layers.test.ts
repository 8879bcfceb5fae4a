import { expect } from "chai";
import { importCycles, importsOf, sourceFiles } from "./importGraph.ts";
import { readSideReachingIntoCommands, serverEdges, upwardImports, webEdges, webRunTimeImports } from "./layerRules.ts";

/* The shape of the tree (docs/architecture.md), read from the imports: an import that breaks a rule fails here. */
describe("the layers of the tree (docs/architecture.md)", () => {
  const server = serverEdges();
  const web = webEdges();

  it("has no import running back up the layers (db < commands < projections < queries < reactors < src)", () => {
    expect(upwardImports(server), "a layer imports only its own and those below it").to.deep.equal([]);
  });

  it("lets projections and queries take from commands/ only a context's events.ts, the kit's event types and the report format", () => {
    expect(
      readSideReachingIntoCommands(server),
      "the read side reads a context through its published language",
    ).to.deep.equal([]);
  });

  it("has the browser bundles import server code only for its types, but for the modules they share", () => {
    expect(webRunTimeImports(web), "web/ imports server code as `import type`").to.deep.equal([]);
  });

  it("has no import loop, the benchmarks and the tests included", () => {
    const rest = ["bench", "test"].flatMap((dir) => sourceFiles(dir)).flatMap(importsOf);
    expect(importCycles([...server, ...web, ...rest])).to.deep.equal([]);
  });
});
