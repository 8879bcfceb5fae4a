import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/*
 * The project's own import graph, read from the sources with TypeScript's parser: every static
 * import and re-export, and every `import("…")`, with whether it brings in types only (those
 * vanish from the built JavaScript, so they tie nothing together at run time).
 */

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

export const ROOT = path.resolve(import.meta.dirname, "../..");

const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", "test-output"]);

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

function allTypeOnly(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return (
    !!bindings &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith(".")) return;
    edges.push({
      from: file,
      to: path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)),
      typeOnly,
    });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, allTypeOnly(node.importClause));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, node.isTypeOnly);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      add(node.argument.literal.text, true);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      add(node.arguments[0].text, false);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The import cycles among these files (each as its files in order), type-only imports included: a loop of types still ties two modules into one. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const walk = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === "open") cycles.push(stack.slice(stack.indexOf(to)));
      else if (!state.has(to)) walk(to);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...next.keys()].sort()) if (!state.has(file)) walk(file);
  return cycles;
}
