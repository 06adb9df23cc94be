// Makes invisible characters visible, so the page can show what shaping removed.

const NAMES = {
  0x061c: 'ALM',
  0x200b: 'ZWSP',
  0x200c: 'ZWNJ',
  0x200d: 'ZWJ',
  0x200e: 'LRM',
  0x200f: 'RLM',
  0x202a: 'LRE',
  0x202b: 'RLE',
  0x202c: 'PDF',
  0x202d: 'LRO',
  0x202e: 'RLO',
  0x2060: 'WJ',
  0x2066: 'LRI',
  0x2067: 'RLI',
  0x2068: 'FSI',
  0x2069: 'PDI',
  0xfeff: 'BOM',
  0x180e: 'MVS',
};

const isTag = (cp) => cp >= 0xe0000 && cp <= 0xe007f;
const isHidden = (cp) => cp in NAMES || (cp >= 0x2061 && cp <= 0x2064) || (cp >= 0xe0100 && cp <= 0xe01ef);

/** Splits `text` into plain runs and marked runs: `{ text }` or `{ mark, title }`. */
export function reveal(text) {
  const parts = [];
  let plain = '';
  let tags = '';
  const flushPlain = () => {
    if (plain) parts.push({ text: plain });
    plain = '';
  };
  const flushTags = () => {
    if (tags) parts.push({ mark: `tags: “${tags}”`, title: 'Unicode tag characters (U+E0000–U+E007F): invisible, but a model reads them' });
    tags = '';
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (isTag(cp)) {
      flushPlain();
      tags += cp >= 0xe0020 && cp <= 0xe007e ? String.fromCharCode(cp - 0xe0000) : '';
      continue;
    }
    flushTags();
    if (isHidden(cp)) {
      flushPlain();
      const name = NAMES[cp] ?? `U+${cp.toString(16).toUpperCase()}`;
      parts.push({ mark: name, title: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` });
    } else {
      plain += ch;
    }
  }
  flushTags();
  flushPlain();
  return parts;
}

/** A short description of a media block, with the start of its decoded data for SVG and text. */
export function describeMedia(block) {
  const mime = block.mimeType ?? 'unknown';
  let preview = '';
  if (typeof block.data === 'string' && /svg|xml|text/.test(mime)) {
    try {
      preview = atob(block.data);
    } catch {
      preview = '';
    }
  }
  return { mime, preview: preview.length > 140 ? `${preview.slice(0, 137)}…` : preview };
}
