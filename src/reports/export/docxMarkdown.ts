/**
 * A text node's markdown as Word paragraphs: marked's lexer gives the tokens, and each kind maps
 * to its Word form — headings (# to ######), paragraphs, **bold**, *italic*, ~~struck~~, `code`,
 * links (their text, underlined), bullet and numbered lists (nested), block quotes, code blocks,
 * GFM tables. Raw HTML and images keep only their text; a token of another kind is skipped.
 */
import {
  AlignmentType,
  HeadingLevel,
  LevelFormat,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
  type NumberingDefinition,
} from "docx";
import { Lexer, type Token, type Tokens } from "marked";

export type Block = Paragraph | Table;

interface RunStyle {
  bold?: boolean;
  italics?: boolean;
  strike?: boolean;
  code?: boolean;
  link?: boolean;
}

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;
const CODE_FONT = "Consolas";

function decode(text: string): string {
  // marked escapes &, <, >, " and ' in text tokens; Word wants the characters.
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] ?? _,
  );
}

function run(text: string, style: RunStyle): TextRun {
  return new TextRun({
    text: decode(text),
    bold: style.bold,
    italics: style.italics,
    strike: style.strike,
    underline: style.link ? {} : undefined,
    color: style.link ? "0563C1" : undefined,
    font: style.code ? CODE_FONT : undefined,
  });
}

/** Inline tokens as text runs. */
export function inlineRuns(tokens: readonly Token[] | undefined, style: RunStyle = {}): TextRun[] {
  const runs: TextRun[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case "strong":
        runs.push(...inlineRuns((token as Tokens.Strong).tokens, { ...style, bold: true }));
        break;
      case "em":
        runs.push(...inlineRuns((token as Tokens.Em).tokens, { ...style, italics: true }));
        break;
      case "del":
        runs.push(...inlineRuns((token as Tokens.Del).tokens, { ...style, strike: true }));
        break;
      case "codespan":
        runs.push(run((token as Tokens.Codespan).text, { ...style, code: true }));
        break;
      case "link":
        runs.push(...inlineRuns((token as Tokens.Link).tokens, { ...style, link: true }));
        break;
      case "image":
        if ((token as Tokens.Image).text) runs.push(run((token as Tokens.Image).text, style));
        break;
      case "br":
        runs.push(new TextRun({ break: 1 }));
        break;
      case "text":
      case "escape": {
        const text = token as Tokens.Text;
        if (text.tokens && text.tokens.length > 0) runs.push(...inlineRuns(text.tokens, style));
        else runs.push(run(text.text, style));
        break;
      }
      case "html":
        runs.push(run((token as Tokens.HTML).text.replace(/<[^>]*>/g, ""), style));
        break;
      default:
        if ("text" in token && typeof token.text === "string") runs.push(run(token.text, style));
    }
  }
  return runs;
}

const listLevels = (format: "bullet" | "decimal", start: number) =>
  Array.from({ length: 9 }, (_, level) => ({
    level,
    format: format === "bullet" ? LevelFormat.BULLET : LevelFormat.DECIMAL,
    text: format === "bullet" ? ["•", "◦", "▪"][level % 3]! : `%${level + 1}.`,
    start: level === 0 ? start : 1,
    alignment: AlignmentType.LEFT,
    style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
  }));

/** Converts markdown to blocks; lists get numbering definitions of their own, one instance per list. */
export class MarkdownConverter {
  private instance = 0;
  private readonly definitions = new Map<string, NumberingDefinition>();

  /** The numbering definitions the converted lists use (for the Document's `numbering.config`). */
  numbering(): NumberingDefinition[] {
    return [...this.definitions.values()];
  }

  convert(markdown: string): Block[] {
    let tokens: Token[];
    try {
      tokens = new Lexer({ gfm: true }).lex(markdown);
    } catch {
      return markdown.split(/\n{2,}/).map((text) => new Paragraph({ children: [new TextRun(text)] }));
    }
    return this.blocks(tokens);
  }

  private reference(ordered: boolean, start: number): string {
    const reference = ordered ? `md-numbered-${start}` : "md-bullet";
    if (!this.definitions.has(reference))
      this.definitions.set(reference, { reference, levels: listLevels(ordered ? "decimal" : "bullet", start) });
    return reference;
  }

  private blocks(tokens: readonly Token[], quote = false): Block[] {
    const out: Block[] = [];
    for (const token of tokens) {
      switch (token.type) {
        case "heading": {
          const heading = token as Tokens.Heading;
          out.push(
            new Paragraph({
              heading: HEADINGS[Math.min(Math.max(heading.depth, 1), 6) - 1],
              children: inlineRuns(heading.tokens),
            }),
          );
          break;
        }
        case "paragraph":
          out.push(
            new Paragraph({
              children: inlineRuns((token as Tokens.Paragraph).tokens, { italics: quote || undefined }),
              indent: quote ? { left: 567 } : undefined,
            }),
          );
          break;
        case "text": {
          const text = token as Tokens.Text;
          out.push(new Paragraph({ children: text.tokens ? inlineRuns(text.tokens) : [run(text.text, {})] }));
          break;
        }
        case "list":
          out.push(...this.list(token as Tokens.List, 0));
          break;
        case "blockquote":
          out.push(...this.blocks((token as Tokens.Blockquote).tokens, true));
          break;
        case "code":
          for (const line of (token as Tokens.Code).text.split("\n")) {
            out.push(
              new Paragraph({
                spacing: { after: 0 },
                indent: { left: 284 },
                children: [new TextRun({ text: line, font: CODE_FONT, size: 18 })],
              }),
            );
          }
          break;
        case "table":
          out.push(this.table(token as Tokens.Table), new Paragraph({ children: [] }));
          break;
        case "html": {
          const text = (token as Tokens.HTML).text.replace(/<[^>]*>/g, "").trim();
          if (text) out.push(new Paragraph({ children: [run(text, {})] }));
          break;
        }
        default:
          // space, hr, def and anything newer: nothing to show in a report.
          break;
      }
    }
    return out;
  }

  private list(list: Tokens.List, level: number): Block[] {
    const reference = this.reference(list.ordered, typeof list.start === "number" ? list.start : 1);
    const instance = ++this.instance;
    const out: Block[] = [];
    for (const item of list.items) {
      let first = true;
      for (const child of item.tokens) {
        if (child.type === "list") {
          out.push(...this.list(child as Tokens.List, Math.min(level + 1, 8)));
          continue;
        }
        const runs =
          child.type === "text" || child.type === "paragraph"
            ? inlineRuns((child as Tokens.Text).tokens ?? [child as Tokens.Text])
            : null;
        if (!runs) {
          out.push(...this.blocks([child]));
          continue;
        }
        if (item.task) runs.unshift(new TextRun(item.checked ? "☑ " : "☐ "));
        out.push(
          first
            ? new Paragraph({ children: runs, numbering: { reference, level, instance } })
            : new Paragraph({ children: runs, indent: { left: 720 * (level + 1) } }),
        );
        first = false;
      }
    }
    return out;
  }

  private table(table: Tokens.Table): Table {
    const cell = (c: Tokens.TableCell, header: boolean) =>
      new TableCell({ children: [new Paragraph({ children: inlineRuns(c.tokens, { bold: header || undefined }) })] });
    return new Table({
      width: { size: 100, type: WidthType.PERCENTAGE },
      rows: [
        new TableRow({ tableHeader: true, children: table.header.map((c) => cell(c, true)) }),
        ...table.rows.map((row) => new TableRow({ children: row.map((c) => cell(c, false)) })),
      ],
    });
  }
}
