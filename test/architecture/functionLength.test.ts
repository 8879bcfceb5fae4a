import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import ts from "typescript";
import { ROOT, sourceFiles } from "./importGraph.ts";

/*
 * Issue #31: no function in the browser code (web/) runs over LIMIT lines. A function that long
 * does several things at once; it is split into named pieces instead, and this keeps it so.
 */
const LIMIT = 150;

interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** A function's name as a reader would look for it: its own, else the variable, property or member it is assigned to. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText(source);
  return "(anonymous)";
}

function longFunctionsIn(file: string): LongFunction[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > LIMIT) found.push({ file, line: first, name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the length of the browser code's functions (#31)", () => {
  it(`has no function in web/ over ${LIMIT} lines`, () => {
    const files = sourceFiles("web").filter((file) => file.endsWith(".ts"));
    expect(files, "the web/ sources were found").to.not.be.empty;
    const long = files
      .flatMap(longFunctionsIn)
      .map(({ file, line, name, lines }) => `${file}:${line} ${name} (${lines} lines)`);
    expect(long, `functions over ${LIMIT} lines: split them into named pieces`).to.deep.equal([]);
  });
});
