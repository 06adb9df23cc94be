// Inputs shared by both sides of each case: the tool schema and its instances, policy rules
// (in webmcp-warden's form and as the peer's compiled RegExps), and texts to shape.

// --- the typical tool schema -------------------------------------------------------------------
// Rebuilt from a written description of an earlier benchmark's schema (the original file lived
// on another machine): an object with 9 properties: a string with min/maxLength, a
// string enum, an integer range, two patterns (email-like and date), a boolean, an array of
// patterned strings with uniqueItems/maxItems, an array of objects (enum, enum, type union,
// required, additionalProperties:false) and a nested object with enums; top-level `required`
// and `additionalProperties: false`. Draft 2020-12 (no `$schema`).
export const toolSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200 },
    category: { type: 'string', enum: ['books', 'electronics', 'clothing', 'home', 'toys', 'garden'] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$' },
    since: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    inStock: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]{1,32}$' }, uniqueItems: true, maxItems: 10 },
    filters: {
      type: 'array',
      maxItems: 8,
      items: {
        type: 'object',
        properties: {
          field: { enum: ['price', 'rating', 'brand', 'color', 'size'] },
          op: { enum: ['eq', 'lt', 'gt', 'in'] },
          value: { type: ['string', 'number', 'boolean'] },
        },
        required: ['field', 'op', 'value'],
        additionalProperties: false,
      },
    },
    options: {
      type: 'object',
      properties: {
        sort: { type: 'string', enum: ['relevance', 'price_asc', 'price_desc', 'newest'] },
        order: { enum: ['asc', 'desc'] },
      },
      additionalProperties: false,
    },
  },
  required: ['query', 'category'],
  additionalProperties: false,
};

/** All fields, 3 filters (compact JSON ≈ 370 bytes, like the reference's "valid" instance). */
export const validInstance = {
  query: 'wireless noise-cancelling headphones under 200',
  category: 'electronics',
  limit: 25,
  email: 'shopper.one@example.com',
  since: '2025-11-01',
  inStock: true,
  tags: ['audio', 'bluetooth', 'travel', 'anc'],
  filters: [
    { field: 'price', op: 'lt', value: 200 },
    { field: 'rating', op: 'gt', value: 4 },
    { field: 'brand', op: 'in', value: 'sony,bose,sennheiser' },
  ],
  options: { sort: 'price_asc', order: 'asc' },
};

/** Only the two required fields. */
export const smallInstance = { query: 'lamp', category: 'home' };

/** Many errors at once (wrong types, enum misses, pattern misses, duplicates, extra keys). */
export const invalidInstance = {
  query: '',
  category: 'cars',
  limit: 1000,
  email: 'not-an-email',
  since: '01/11/2025',
  inStock: 'yes',
  tags: ['Audio', 'audio', 'audio'],
  filters: [{ field: 'weight', op: 'near', value: null, extra: 1 }, { op: 'eq' }],
  options: { sort: 'cheapest', order: 'up', page: 2 },
  unexpected: true,
};

// --- policy rules -----------------------------------------------------------------------------
// Realistic rules over a page with many tools: globs (`server/verb_*`, `*/delete_*`, bare tool
// names), RegExps on the tool name, and `{ server, name: RegExp }`. None of them matches the
// called tool `page/search_products` except one allow rule placed near the end of the allow
// list, so both sides walk every deny and ask rule and nearly every allow rule.

const SERVERS = ['shop', 'fs', 'mail', 'calendar', 'crm', 'billing', 'docs', 'admin', 'analytics', 'chat', 'maps', 'hr'];
const VERBS = ['get', 'list', 'read', 'create', 'update', 'delete', 'send', 'export', 'import', 'archive', 'sync', 'share', 'move', 'approve', 'cancel'];
const NOUNS = ['order', 'cart', 'file', 'message', 'event', 'contact', 'invoice', 'report', 'user', 'ticket', 'folder', 'draft', 'payment', 'refund', 'invite'];

/** The tool every policy case calls. */
export const CALLED = { server: 'page', name: 'search_products' };

function pick(list, i) {
  return list[i % list.length];
}

/** The i-th generated rule that never matches `page/search_products`. */
function otherRule(i) {
  const s = pick(SERVERS, i * 7 + 3);
  const v = pick(VERBS, i * 5 + 1);
  const n = pick(NOUNS, i * 3 + 2);
  switch (i % 8) {
    case 0:
      return `${s}/${v}_*`;
    case 1:
      return `${s}/${v}_${n}`;
    case 2:
      return `*/${v}_${n}s`;
    case 3:
      return `${v}_${n}`;
    case 4:
      return new RegExp(`^(${v}|${pick(VERBS, i + 4)})_${n}s?$`);
    case 5:
      return { server: s, name: new RegExp(`^${v}_(${n}|${pick(NOUNS, i + 5)})`) };
    case 6:
      return { match: `${s}/*_${n}`, id: `rule-${i}`, reason: `${n}s on ${s} need review` };
    default:
      return { match: new RegExp(`${n}_(backup|export|${i})$`, 'i'), id: `re-${i}` };
  }
}

/**
 * A policy of `count` rules (deny 40 %, ask 20 %, allow 40 %), `default: 'deny'`, whose only
 * rule matching `page/search_products` is the allow rule `hitFromEnd` places before the end.
 */
export function makePolicy(count, hitFromEnd = 3) {
  const rules = Array.from({ length: count }, (_, i) => otherRule(i));
  const deny = rules.slice(0, Math.round(count * 0.4));
  const ask = rules.slice(deny.length, deny.length + Math.round(count * 0.2));
  const allow = rules.slice(deny.length + ask.length);
  const hitIndex = allow.length - hitFromEnd;
  allow[hitIndex] = { match: 'page/search_*', id: 'search-is-read-only' };
  return { policy: { deny, ask, allow, default: 'deny', pin: false }, hit: { list: 'allow', index: hitIndex, id: 'search-is-read-only' } };
}

// The peer's rules: each matcher compiled once into RegExps, with webmcp-warden's loose name
// comparison (case-folded, `-` `.` `_` equivalent) built into the pattern instead of
// normalizing the name per call.
const escape = (text) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
function globSource(glob) {
  let out = '';
  for (const ch of glob) out += ch === '*' ? '[^/]*' : ch === '_' || ch === '-' || ch === '.' ? '[-._]' : escape(ch);
  return out;
}

/** One peer rule: `{ server?: RegExp, re: RegExp, on: 'key' | 'name' }`. */
function peerRule(rule) {
  const matcher = typeof rule === 'object' && !(rule instanceof RegExp) && 'match' in rule ? rule.match : rule;
  if (typeof matcher === 'string') {
    if (matcher === '*' || matcher === 'all') return { re: /(?:)/, on: 'key' };
    const [server, tool] = matcher.includes('/') ? matcher.split('/') : ['*', matcher];
    return { re: new RegExp(`^${globSource(server)}/${globSource(tool)}$`, 'i'), on: 'key' };
  }
  if (matcher instanceof RegExp) return { re: matcher, on: 'name' };
  return { server: new RegExp(`^${globSource(matcher.server)}$`, 'i'), re: matcher.name, on: 'name' };
}

/** The peer's policy: the same lists as compiled RegExps. */
export function peerPolicy(policy) {
  const list = (rules) => (rules ?? []).map(peerRule);
  return { deny: list(policy.deny), ask: list(policy.ask), allow: list(policy.allow), default: policy.default ?? "ask" };
}

function firstMatch(rules, server, name, key) {
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    if ((r.server === undefined || r.server.test(server)) && r.re.test(r.on === 'key' ? key : name)) return i;
  }
  return -1;
}

/** The peer's decision: deny > ask > allow > default, the first matching rule of a list deciding. */
export function peerDecide(peer, server, name) {
  const key = server + '/' + name;
  let i = firstMatch(peer.deny, server, name, key);
  if (i >= 0) return { effect: 'deny', list: 'deny', index: i };
  i = firstMatch(peer.ask, server, name, key);
  if (i >= 0) return { effect: 'ask', list: 'ask', index: i };
  i = firstMatch(peer.allow, server, name, key);
  if (i >= 0) return { effect: 'allow', list: 'allow', index: i };
  return { effect: peer.default };
}

// --- texts ------------------------------------------------------------------------------------

const WORDS = 'the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches near old harbor lights'.split(' ');

/** About `bytes` of ASCII prose (an ASCII string is also its UTF-8 size). */
export function asciiText(bytes, seed = 1) {
  let out = '';
  let i = seed;
  while (out.length < bytes) {
    out += WORDS[(i * 7 + (i >> 3)) % WORDS.length] + (i % 17 === 0 ? '.\n' : ' ');
    i++;
  }
  return out.slice(0, bytes);
}

/** The hidden characters shaping removes, one of each class in turn. */
export const HIDDEN = ['\u200B', '\u202E', '\u2066', '\uFEFF', '\u200D', '\u{E0041}', '\u{E0100}', '\u061C', '\u180E', '\u2063'];

/** `text` with one hidden character inserted every `every` characters. */
export function sprinkle(text, every) {
  let out = '';
  for (let at = 0, k = 0; at < text.length; at += every, k++) out += text.slice(at, at + every) + HIDDEN[k % HIDDEN.length];
  return out;
}

/** Prose with typographic punctuation (curly quotes, dashes, ellipsis: U+2013–U+2026), which
 * shaping keeps but whose code units fall in the candidate range U+2000–U+207F. */
export function typographicText(bytes) {
  return asciiText(bytes, 5).replace(/ a /g, ' \u201Ca\u201D ').replace(/ over /g, ' \u2014 ').replace(/\.\n/g, '\u2026\n');
}

/** The peer's equivalent of the removable characters, as one Unicode regex. */
export const PEER_STRIP = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u180E\u200B-\u200D\u2060-\u2064\uFEFF\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
