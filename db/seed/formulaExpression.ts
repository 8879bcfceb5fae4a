import jsep from "jsep";
import { SMALLEST_DIVISOR } from "../numberBounds.ts";

/*
 * A derived item's formula as the dictionary writes it (contract F.2): arithmetic over other items'
 * standard values, named by their codes, e.g. `100 * (1 - UREA_POST / UREA_PRE)`. Parsed by jsep
 * into a tree of which only numbers, item codes, the four operations and a leading minus are
 * accepted, so a release cannot carry anything but arithmetic into the SQL it is compiled to.
 */

export type FormulaNode =
  | { kind: "number"; value: number }
  | { kind: "item"; code: string }
  | { kind: "negate"; operand: FormulaNode }
  | { kind: "operation"; operator: "+" | "-" | "*" | "/"; left: FormulaNode; right: FormulaNode };

const OPERATORS = new Set(["+", "-", "*", "/"]);

/** The formula's tree; throws an Error saying what is not arithmetic over item codes. */
export function parseFormula(expression: string): FormulaNode {
  let tree: jsep.Expression;
  try {
    tree = jsep(expression);
  } catch (error) {
    throw new Error(`formula "${expression}" does not parse: ${(error as Error).message}`, { cause: error });
  }
  return nodeOf(tree, expression);
}

function nodeOf(node: jsep.Expression, expression: string): FormulaNode {
  switch (node.type) {
    case "Literal": {
      const { value } = node as jsep.Literal;
      if (typeof value === "number" && Number.isFinite(value)) return { kind: "number", value };
      break;
    }
    case "Identifier":
      return { kind: "item", code: (node as jsep.Identifier).name };
    case "UnaryExpression": {
      const unary = node as jsep.UnaryExpression;
      if (unary.operator === "-") return { kind: "negate", operand: nodeOf(unary.argument, expression) };
      break;
    }
    case "BinaryExpression": {
      const binary = node as jsep.BinaryExpression;
      if (OPERATORS.has(binary.operator)) {
        return {
          kind: "operation",
          operator: binary.operator as "+",
          left: nodeOf(binary.left, expression),
          right: nodeOf(binary.right, expression),
        };
      }
      break;
    }
  }
  throw new Error(`formula "${expression}" may hold only numbers, item codes, + - * / and parentheses`);
}

/** The item codes a formula reads, each once, in the order they first appear. */
export function formulaInputs(node: FormulaNode): string[] {
  const codes = new Set<string>();
  const visit = (part: FormulaNode): void => {
    if (part.kind === "item") codes.add(part.code);
    else if (part.kind === "negate") visit(part.operand);
    else if (part.kind === "operation") {
      visit(part.left);
      visit(part.right);
    }
  };
  visit(node);
  return [...codes];
}

/**
 * The formula as a numeric SQL expression over the columns that `column` names per item code. A
 * division by zero (or by a divisor next to it, SMALLEST_DIVISOR) gives null, so no value a
 * laboratory sends fails a statement: there is then no derived value.
 */
export function formulaSql(node: FormulaNode, column: (code: string) => string): string {
  switch (node.kind) {
    // In numeric, not double precision: a product of two tiny values underflows a double, and
    // PostgreSQL raises an error where JavaScript gives 0 (the quality months' fuzz test).
    case "number":
      return `${node.value}::numeric`;
    case "item":
      return `(${column(node.code)})::numeric`;
    case "negate":
      return `(- ${formulaSql(node.operand, column)})`;
    case "operation": {
      const left = formulaSql(node.left, column);
      const right = formulaSql(node.right, column);
      // A divisor next to zero is none, as zero is (numberBounds.ts): the quotient would overflow.
      return node.operator === "/"
        ? `(${left} / (case when abs(${right}) >= ${SMALLEST_DIVISOR} then ${right} end))`
        : `(${left} ${node.operator} ${right})`;
    }
  }
}

/** The formula's value for the items' values by code; null when one is missing or a division is by zero (as formulaSql). */
export function evaluateFormula(node: FormulaNode, value: (code: string) => number | undefined): number | null {
  switch (node.kind) {
    case "number":
      return node.value;
    case "item":
      return value(node.code) ?? null;
    case "negate": {
      const operand = evaluateFormula(node.operand, value);
      return operand === null ? null : -operand;
    }
    case "operation": {
      const left = evaluateFormula(node.left, value);
      const right = evaluateFormula(node.right, value);
      if (left === null || right === null) return null;
      switch (node.operator) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return Math.abs(right) < SMALLEST_DIVISOR ? null : left / right;
      }
    }
  }
}

/**
 * `value` rounded to `decimals` as PostgreSQL's round(numeric) does (half away from zero), by its
 * shortest decimal text rather than binary arithmetic: 2.675 rounds to 2.68 here as in SQL.
 */
export function roundDecimal(value: number, decimals: number): number {
  const [digits, exponent = "0"] = String(Math.abs(value)).split("e");
  const shifted = Math.round(Number(`${digits}e${Number(exponent) + decimals}`));
  return Math.sign(value) * Number(`${shifted}e${-decimals}`) || 0;
}
