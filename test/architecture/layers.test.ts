import { expect } from "chai";
import { importCycles } from "./importGraph.ts";
import { readSideReachingIntoCommands, serverEdges, upwardImports, webEdges, webRunTimeImports } from "./layerRules.ts";

/*
 * The shape of the tree (docs/architecture.md), read from the imports: a new import that breaks a
 * rule fails here. KNOWN lists what #31 has not yet moved; an entry that no longer occurs fails
 * too, so the list only shrinks.
 */
const KNOWN: Record<string, readonly string[]> = {
  upward: [
  ],
  readSide: [
    "queries/kit/jsonChanges.ts -> commands/kit/fieldPath.ts",
  ],
  web: ["web/staff/editor/codeEditors.ts -> db/clinicalViews.ts"],
};

describe("the layers of the tree (docs/architecture.md)", () => {
  const server = serverEdges();
  const web = webEdges();

  const expectOnlyKnown = (found: string[], known: readonly string[], rule: string) => {
    expect(found.filter((edge) => !known.includes(edge)), `imports that break the rule: ${rule}`).to.deep.equal([]);
    expect(known.filter((edge) => !found.includes(edge)), "mended: take these out of KNOWN").to.deep.equal([]);
  };

  it("has no import running back up the layers (db < commands < projections < queries < reactors < src)", () => {
    expectOnlyKnown(upwardImports(server), KNOWN.upward!, "a layer imports only its own and those below it");
  });

  it("lets projections and queries take from commands/ only a context's events.ts, the kit's event types and the report format", () => {
    expectOnlyKnown(readSideReachingIntoCommands(server), KNOWN.readSide!, "the read side reads a context through its published language");
  });

  it("has the browser bundles import server code only for its types, but for the modules they share", () => {
    expectOnlyKnown(webRunTimeImports(web), KNOWN.web!, "web/ imports server code as `import type`");
  });

  it("has no import loop", () => {
    expect(importCycles([...server, ...web])).to.deep.equal([]);
  });
});
