// The share link and the state file as a user meets them: what a link's text holds (only what differs from the defaults,
// so a link stays short; base64url, no padding, nothing a URL would escape), that it opens
// exactly the state it was made of whatever its size or characters, and the message a damaged
// link or a broken state file gives, in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHash, decodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { describe } from '../../web/src/ui/i18n.js';
import { parseStateJson } from '../../web/src/state/json.js';

// The JSON a link carries, read here with node's own base64url.
const carried = (hash) => JSON.parse(Buffer.from(hash.slice('av1.'.length), 'base64url').toString('utf8'));
const link = (json) => `av1.${Buffer.from(json).toString('base64url')}`;

test('a link holds what differs from the defaults only: the tutorial is its tokens, numbers and language', () => {
  const tutorial = tutorialState('en');
  assert.deepEqual(carried(encodeHash(tutorial)), { version: 1, tokens: tutorial.tokens, x: tutorial.x, heads: tutorial.heads, view: { lang: 'en' } });
  // each option and view field off its default is carried, with its value; the rest left out
  const changed = {
    ...tutorial, scaleBySqrtDk: false, causal: true, keyPadding: [false, true, false], temperature: 0.5, positionalEncoding: true, alibi: true,
    view: { step: 'softmax', head: 0, lang: 'zh', decimals: 6 },
  };
  const held = carried(encodeHash(changed));
  assert.deepEqual(held, {
    version: 1, tokens: tutorial.tokens, x: tutorial.x, heads: tutorial.heads, scaleBySqrtDk: false, causal: true, keyPadding: [false, true, false],
    temperature: 0.5, positionalEncoding: true, alibi: true, view: { step: 'softmax', lang: 'zh', decimals: 6 },
  });
  for (const [view, kept] of [[{ step: 'input', head: 1, decimals: 4 }, { head: 1 }], [{ step: 'output', head: 0, decimals: 4 }, { step: 'output' }], [{ step: 'input', head: 0, decimals: 3 }, { decimals: 3 }]]) {
    const two = { ...tutorial, heads: [tutorial.heads[0], tutorial.heads[0]], view: { ...view, lang: 'en' } };
    assert.deepEqual(carried(encodeHash(two)).view, { ...kept, lang: 'en' }, JSON.stringify(view));
  }
  // the state given is left as it was
  assert.equal(changed.view.step, 'softmax');
  assert.equal(changed.causal, true);
  // and every one of them opens as it was made
  assert.deepEqual(decodeHash(encodeHash(changed)).state, changed);
  assert.deepEqual(decodeHash(`#${encodeHash(tutorial)}`).state, tutorial);
});

test('a link is base64url without padding, and opens the same state whatever its size and characters', () => {
  // tokens whose UTF-8 bytes make base64's + and / (and padding of 1 and 2 characters)
  for (const tokens of [['?>', '~', 'ÿ'], ['???', '>>>', '¿'], ['a', 'bb', 'c'], ['注意', '😀', 'é']]) {
    const state = { ...tutorialState('en'), tokens };
    const hash = encodeHash(state);
    assert.match(hash, /^av1\.[A-Za-z0-9_-]+$/, `${tokens}: ${hash}`);
    assert.equal(hash.slice(4), Buffer.from(JSON.stringify(carried(hash))).toString('base64url'));
    assert.deepEqual(decodeHash(hash).state, state, `${tokens}`);
  }
  // a state of some 100 KB: its bytes are encoded in more than one chunk, and all of them come back
  const n = 2000;
  const big = {
    ...tutorialState('zh'),
    tokens: Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)),
    x: Array.from({ length: n }, (_, i) => [(i + 1) / 7, -(i + 1) / 3]),
    keyPadding: new Array(n).fill(false),
  };
  const hash = encodeHash(big);
  assert.ok(hash.length > 3 * 0x8000, `${hash.length} characters`);
  assert.equal(hash.slice(4), Buffer.from(JSON.stringify(carried(hash))).toString('base64url'));
  assert.deepEqual(decodeHash(hash).state, big);
});

test('a damaged link says so in both languages, whatever is damaged; an empty one is no message', () => {
  const damaged = ['The state is not valid: the state in the link is damaged and cannot be read.', '状态无效：链接里的状态已损坏，无法读取。'];
  const says = (hash) => { const r = decodeHash(hash); assert.equal(r.ok, false, hash); return [describe('en', r.message), describe('zh', r.message)]; };
  // not base64, not UTF-8 (a lone continuation byte, an overlong form), not JSON, no prefix
  for (const hash of ['#av1.%%%', `#av1.${Buffer.from([0x7b, 0x80, 0x7d]).toString('base64url')}`, `av1.${Buffer.from([0xc0, 0xaf]).toString('base64url')}`,
    `#${link('{"version": 1,')}`, '#v1.e30', '#av.e30', '#xav1.e30', '#xav2.e30', 'av1e30']) {
    assert.deepEqual(says(hash), damaged, hash);
  }
  // a byte that is not UTF-8 inside a token: damaged, never a token of U+FFFD
  const json = Buffer.from(JSON.stringify({ ...tutorialState('en'), tokens: ['a', 'Z', 'c'] }));
  json[json.indexOf('"Z"') + 1] = 0xff;
  assert.deepEqual(says(`av1.${json.toString('base64url')}`), damaged);
  // the version is its number: av01 is version 1, av12 version 12
  assert.equal(decodeHash(`#${link(JSON.stringify(tutorialState('en'))).replace('av1.', 'av01.')}`).ok, true);
  assert.deepEqual(says('#av12.e30'), ['The state is not valid: version 12 is not supported (this version reads 1).', '状态无效：版本 12 不受支持（这个版本能读的是 1）。']);
  // a '#' inside is the link's own text, not its start
  assert.deepEqual(says(`##${encodeHash(tutorialState('en'))}`), damaged);
  assert.deepEqual(decodeHash(''), { ok: false, message: null });
  assert.deepEqual(decodeHash('#'), { ok: false, message: null });
});

test('a state file that is not JSON says so in both languages', () => {
  for (const text of ['{', '', 'av1.e30', '{"version": 1,}', '\u00ff']) {
    const read = parseStateJson(text);
    assert.equal(read.ok, false, text);
    assert.deepEqual([describe('en', read.message), describe('zh', read.message)], ['The state is not valid: it is not valid JSON.', '状态无效：不是有效的 JSON。'], text);
  }
});
