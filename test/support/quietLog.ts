import { expect } from "chai";

/** The service's output from a point on holds no JSON log line at warn or above, and no stack trace. */
export function expectQuiet(output: string): void {
  const loud = output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .filter((line) => ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40);
  expect(loud, "lines at warn or above").to.deep.equal([]);
  expect(output, "a stack trace").not.to.match(/\n\s+at .+[(:]\d+|"stack":/);
}
