import { PassThrough } from "node:stream";
import { expect } from "chai";
import type { Context } from "koa";
import { answerJson } from "../../src/http/streamedJson.ts";

/*
 * A report answer written a piece at a time (issue #52, finding 6) is JSON.stringify's text byte
 * for byte: members left out and nulls where JSON.stringify leaves and writes them, long strings
 * escaped in pieces without splitting a surrogate pair, and no piece much larger than 64 KB.
 */
describe("JSON answers written in pieces (src/http/streamedJson.ts)", () => {
  const PIECE = 64 * 1024;
  /** A long value of every kind of character JSON escapes, an emoji (a surrogate pair) across many piece ends among them. */
  const long = 'a\u00e9\ud83d\ude00"\\\n\u0001'.repeat(40_000);

  async function written(value: unknown): Promise<{ text: string; largestPiece: number; type: string }> {
    const ctx = {} as Context;
    answerJson(ctx, value);
    const out = new PassThrough();
    (ctx.body as NodeJS.ReadableStream).pipe(out);
    const pieces: Buffer[] = [];
    for await (const piece of out) pieces.push(piece as Buffer);
    return {
      text: Buffer.concat(pieces).toString("utf8"),
      largestPiece: Math.max(0, ...pieces.map((piece) => piece.length)),
      type: String(ctx.type),
    };
  }

  it("writes a data answer as JSON.stringify does, as JSON", async () => {
    const answer = {
      queries: {
        rows: {
          columns: ["a", "b"],
          columnTypes: ["integer", "string"],
          rows: Array.from({ length: 5000 }, (_, i) => [i, `row ${i}`, null, i % 2 === 0, { json: [i] }]),
          truncated: false,
          elapsedMs: 1.5,
        },
        failed: { error: "The query failed." },
      },
    };
    const { text, type } = await written(answer);
    expect(text).to.equal(JSON.stringify(answer));
    expect(type).to.equal("application/json; charset=utf-8");
  });

  it("leaves out and writes null where JSON.stringify does, and uses toJSON", async () => {
    const odd = {
      gone: undefined,
      fn: () => 1,
      at: new Date(0),
      list: [undefined, () => 1, Symbol("s"), 1],
      nested: [[[[[["deep"]]]]]],
      empty: [{}, []],
    };
    expect((await written(odd)).text).to.equal(JSON.stringify(odd));
    for (const scalar of ["text", 12, null, true])
      expect((await written(scalar)).text).to.equal(JSON.stringify(scalar));
  });

  it("writes a value of megabytes in pieces, escaped as JSON.stringify escapes it whole", async () => {
    const answer = {
      queries: { big: { columns: ["v"], rows: [[long], [long.slice(1)]], truncated: true } },
      top: long,
    };
    const { text, largestPiece } = await written(answer);
    expect(text).to.equal(JSON.stringify(answer));
    expect(text.length).to.be.above(10 * PIECE);
    // A piece is one row's or one slice's text past 64 K characters: at most about twice that in bytes (escapes, UTF-8).
    expect(largestPiece, "the largest piece, in bytes").to.be.below(8 * PIECE);
  });
});
