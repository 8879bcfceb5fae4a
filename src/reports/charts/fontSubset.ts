/**
 * Subsets of the CJK chart font holding just the characters a chart draws (Node only).
 *
 * Why: resvg reads a font file from disk again for every glyph it draws. The packaged Noto Sans
 * SC faces are 8 MB each, so a chart of a few hundred glyphs copied gigabytes and took ~0.3 s of
 * CPU. A subset of the characters in use is a few kilobytes, and making one with HarfBuzz's own
 * subsetter (harfbuzzjs, WebAssembly) takes milliseconds once the face is loaded.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

interface HarfBuzz {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(size: number): number;
  free(pointer: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_set(input: number, set: number): number;
  hb_subset_input_unicode_set(input: number): number;
  hb_set_add(set: number, value: number): void;
  hb_set_clear(set: number): void;
  hb_set_invert(set: number): void;
  hb_subset_or_fail(face: number, input: number): number;
}

const HB_MEMORY_MODE_READONLY = 1;
const HB_SUBSET_SETS_NAME_ID = 4;
const HB_SUBSET_SETS_LAYOUT_FEATURE_TAG = 6;
/** Name ids kept: the defaults (0–6) and the typographic family and style (16, 17), which name the family "Noto Sans S Chinese" for every weight. */
const NAME_IDS = [0, 1, 2, 3, 4, 5, 6, 16, 17];

let harfbuzz: HarfBuzz | undefined;

function loadHarfBuzz(): HarfBuzz {
  if (!harfbuzz) {
    const wasm = readFileSync(createRequire(import.meta.url).resolve("harfbuzzjs/dist/harfbuzz-subset.wasm"));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), {});
    const exports = instance.exports as unknown as HarfBuzz;
    exports._initialize();
    harfbuzz = exports;
  }
  return harfbuzz;
}

/** One font file, loaded into HarfBuzz's memory once and subset as often as needed. */
export class SubsettableFont {
  private face = 0;

  constructor(readonly path: string) {}

  private load(hb: HarfBuzz): number {
    if (!this.face) {
      const data = readFileSync(this.path);
      const pointer = hb.malloc(data.length);
      new Uint8Array(hb.memory.buffer).set(data, pointer);
      const blob = hb.hb_blob_create(pointer, data.length, HB_MEMORY_MODE_READONLY, 0, 0);
      this.face = hb.hb_face_create(blob, 0);
      hb.hb_blob_destroy(blob); // the face keeps its own reference; the bytes stay for the process' life
    }
    return this.face;
  }

  /** The font cut down to the given characters (layout features kept), as OpenType bytes. */
  subset(characters: Iterable<string>): Buffer {
    const hb = loadHarfBuzz();
    const face = this.load(hb);
    const input = hb.hb_subset_input_create_or_fail();
    if (!input) throw new Error("HarfBuzz could not start a font subset (out of memory?).");
    let subset: number;
    try {
      const features = hb.hb_subset_input_set(input, HB_SUBSET_SETS_LAYOUT_FEATURE_TAG);
      hb.hb_set_clear(features);
      hb.hb_set_invert(features); // keep every layout feature
      const names = hb.hb_subset_input_set(input, HB_SUBSET_SETS_NAME_ID);
      for (const id of NAME_IDS) hb.hb_set_add(names, id);
      const unicodes = hb.hb_subset_input_unicode_set(input);
      for (const character of characters) hb.hb_set_add(unicodes, character.codePointAt(0)!);
      subset = hb.hb_subset_or_fail(face, input);
    } finally {
      hb.hb_subset_input_destroy(input);
    }
    if (!subset) throw new Error(`HarfBuzz could not subset ${this.path}.`);
    const blob = hb.hb_face_reference_blob(subset);
    try {
      const offset = hb.hb_blob_get_data(blob, 0);
      const length = hb.hb_blob_get_length(blob);
      if (!length) throw new Error(`HarfBuzz made an empty subset of ${this.path}.`);
      return Buffer.from(new Uint8Array(hb.memory.buffer, offset, length));
    } finally {
      hb.hb_blob_destroy(blob);
      hb.hb_face_destroy(subset);
    }
  }
}

const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Every character an SVG document may draw (its markup's characters too: a few extra Latin glyphs cost nothing). */
export function svgCharacters(svgs: readonly string[]): Set<string> {
  const characters = new Set<string>();
  for (const svg of svgs) {
    for (const character of svg) characters.add(character);
    for (const m of svg.matchAll(ENTITY)) {
      characters.add(m[3] ? NAMED[m[3]]! : String.fromCodePoint(parseInt(m[1] ?? m[2]!, m[1] ? 10 : 16)));
    }
  }
  characters.add("…"); // ECharts' ellipsis for cut labels
  return characters;
}
