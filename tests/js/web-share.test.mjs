import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tutorialState } from '../../web/src/state/presets.js';
import { validateState, STATE_VERSION } from '../../web/src/state/schema.js';
import { encodeHash, decodeHash } from '../../web/src/state/link.js';
import { stateToJson, parseStateJson, copyState } from '../../web/src/state/json.js';
import { readModel, readState, modelFromState, stateFromRead } from '../../web/src/state/model.js';
import { MAX_TOKEN_CHARS } from '../../web/src/state/schema.js';
import { describe } from '../../web/src/ui/i18n.js';
import { quote, excerpt } from '../../web/src/ui/quote.js';
import { nestedArray } from './hostile-payloads.mjs';
import { variant, largeState } from './share-states.mjs';

test('a state survives the URL hash bit for bit, with its step', () => {
  for (const state of [tutorialState(), variant()]) {
    const hash = encodeHash(state);
    assert.match(hash, /^av1\.[A-Za-z0-9_-]+$/);
    const back = decodeHash(`#${hash}`);
    assert.equal(back.ok, true);
    assert.deepEqual(back.state, state);
  }
  assert.equal(decodeHash(`#${encodeHash(variant())}`).state.wo[3][0], 0.30000000000000004);
});

test('the hash of the tutorial stays short', () => {
  assert.ok(encodeHash(tutorialState()).length < 400);
});

test('a damaged or future hash is a message, never an exception', () => {
  assert.deepEqual(decodeHash(''), { ok: false, message: null });
  const damaged = decodeHash('#av1.%%%');
  assert.equal(damaged.ok, false);
  assert.equal(describe('en', damaged.message), 'The state is not valid: the state in the link is damaged and cannot be read.');
  const future = decodeHash('#av2.e30');
  assert.equal(describe('zh', future.message), '状态无效：版本 2 不受支持（这个版本能读的是 1）。');
  const bad = decodeHash(`#${encodeHash({ ...tutorialState(), x: [[1, 0], [0.5]] })}`);
  assert.equal(describe('en', bad.message),
    'The state is not valid: “x” must be a matrix: row 2 has length 1 but row 1 has length 2; all rows must have the same length.');
});

test('validation names the field and the problem', () => {
  const cases = [
    [{ ...tutorialState(), version: 3 }, 'version 3 is not supported (this version reads 1).'],
    [{ ...tutorialState(), tokens: ['a', 'b'] }, '“x” has 3 rows but there are 2 tokens.'],
    [{ ...tutorialState(), heads: [{ wq: [[1, 2, 3], [4, 5, 6]], wk: [[1], [2]], wv: [[1], [2]] }] }, '“heads[0].wk” is 2 × 1, but must be 2 × 3.'],
    [{ ...tutorialState(), temperature: 0 }, '“temperature” must be a finite number above 0.'],
    [{ ...tutorialState(), keyPadding: [true] }, '“keyPadding” must be an array of true/false, one per key (3).'],
    [{ ...tutorialState(), causal: 'yes' }, '“causal” must be true or false.'],
    [{ ...tutorialState(), casual: true }, '“casual” is not a known field.'],
    [{ ...tutorialState(), wo: [[1, 2]] }, '“wo” is 1 × 2, but must be 2 × 2.'],
    [{ ...tutorialState(), view: { step: 'input', lang: 'fr' } }, '“view.lang” must be one of zh, en.'],
    [{ ...tutorialState(), view: { decimals: 20 } }, '“view.decimals” must be a whole number from 1 to 8.'],
    [{ ...tutorialState(), x: [[1, 0], [0.5, NaN], [0, 1]] }, '“x” has NaN at row 2, column 2: a finite number is expected.'],
    // issue 6: every malformed matrix names its row and column and what was expected
    [{ ...tutorialState(), x: [[1, 0], [0.5, -Infinity], [0, 1]] }, '“x” has -Infinity at row 2, column 2: a finite number is expected.'],
    [{ ...tutorialState(), x: [[1, 0], [0.5, '0.5'], [0, 1]] }, '“x” has "0.5" at row 2, column 2: a finite number is expected.'],
    [{ ...tutorialState(), x: [[1, 0], [0.5, '<img src=x onerror=alert(1)>'.repeat(9)], [0, 1]] },
      '“x” has "<img src=x onerror=alert(1)><img src=x o…" at row 2, column 2: a finite number is expected.'],
    [{ ...tutorialState(), x: [[1, 0], 'row', [0, 1]] }, '“x” must be a matrix: row 2 is not a non-empty array of numbers.'],
    [{ ...tutorialState(), x: [] }, '“x” must be a matrix: rows of finite numbers, all the same length.'],
    [{ ...tutorialState(), heads: [{ wq: [[1, 0], [0, null]], wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] }] },
      '“heads[0].wq” has null at row 2, column 2: a finite number is expected.'],
    [{ ...tutorialState(), tokens: ['a', '', 'c'] }, '“tokens” must hold non-empty strings: token 2 is not one.'],
    [{ ...tutorialState(), tokens: [] }, '“tokens” must be an array of non-empty strings.'],
    [{ ...tutorialState(), tokens: Array(4097).fill('a') }, '“tokens” has 4097 tokens; at most 4096 are allowed.'],
    [{ ...tutorialState(), context: [1] }, '“context” must be an object { tokens, x }.'],
    [{ ...tutorialState(), context: { tokens: ['a'], x: [[1]], extra: 1 } }, '“context.extra” is not a known field.'],
    [{ ...tutorialState(), view: { step: '<script>' } }, '“view.step” must be a step id such as softmax.'],
    [{ ...tutorialState(), x: [[1e300, 0], [0, 1], [0, 1]], heads: [{ wq: [[1e300, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] }] }, null],
    ['[1, 2]', 'it is not valid JSON.'],
  ];
  for (const [input, detail] of cases) {
    const result = typeof input === 'string' ? parseStateJson(input) : validateState(input);
    if (detail === null) {
      assert.equal(result.ok, true, 'finite values whose products overflow are the engine\'s to reject (overflow)');
      continue;
    }
    assert.equal(result.ok, false);
    assert.equal(describe('en', result.message), `The state is not valid: ${detail}`);
  }
});

test('only version 1, the number, is read: a wrong version of any value or type is refused', () => {
  const { version, ...unversioned } = tutorialState();
  assert.equal(version, 1);
  for (const wrong of [2, 0, 1.5, -1, '1', 'v1', true, null, [1], { version: 1 }]) {
    const result = validateState({ ...unversioned, version: wrong });
    assert.equal(result.ok, false, `version ${JSON.stringify(wrong)}`);
    assert.equal(result.message.params.detail.key, 'errStateVersion', `version ${JSON.stringify(wrong)}`);
    // the same state from a file and from a link
    assert.equal(parseStateJson(JSON.stringify({ ...unversioned, version: wrong })).ok, false);
    const link = `#av1.${Buffer.from(JSON.stringify({ ...unversioned, version: wrong })).toString('base64url')}`;
    assert.equal(decodeHash(link).ok, false, `link with version ${JSON.stringify(wrong)}`);
  }
  assert.equal(validateState(unversioned).message.params.detail.key, 'errStateVersion', 'no version');
  assert.equal(decodeHash(`#av1.${Buffer.from(JSON.stringify(tutorialState())).toString('base64url')}`).ok, true, 'the right version passes');
});

test('defaults fill in what a hand-written state leaves out', () => {
  const { version, tokens, x, heads } = tutorialState();
  const result = validateState({ version, tokens, x, heads });
  assert.equal(result.ok, true);
  assert.deepEqual(result.state, tutorialState());
});

test('the state JSON file reads back', () => {
  const state = variant();
  assert.deepEqual(parseStateJson(stateToJson(state)).state, state);
  assert.equal(STATE_VERSION, 1);
});

test('a state goes to the page model and back unchanged', () => {
  const state = { ...variant(), context: { tokens: ['I', 'love', 'you', '!'], x: [[1, 2], [3, 4], [5, 6], [7, 8]] },
    keyPadding: [false, false, true, false] };
  state.heads = state.heads.map((h) => ({ ...h, wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] }));
  assert.equal(validateState(state).ok, true);
  const read = readModel(modelFromState(state));
  assert.equal(read.ok, true);
  const back = stateFromRead(state.tokens, state.context.tokens, read.matrices, read.options, state.view);
  assert.deepEqual(back, state);
  assert.deepEqual(readState(state).options, read.options);
});

// ---- issue 13: hostile states ----

test('deep nesting in version is refused without recursion', () => {
  // String() of this array (the old message) ran out of stack: a link of it never started the page
  const result = validateState({ version: nestedArray(100_000) });
  assert.equal(result.ok, false);
  assert.equal(describe('en', result.message), 'The state is not valid: version […] is not supported (this version reads 1).');
});

test('the element\'s partial states (el.state = …) with deep nesting are refused without recursion', () => {
  const deep = nestedArray(100_000);
  for (const value of [{ version: deep }, { x: deep }, { x: [[deep, 0], [0, 1], [1, 1]] }, { heads: [{ wq: deep, wk: deep, wv: deep }] },
    { view: { step: deep } }, { [`${'k'.repeat(1e6)}`]: deep }]) {
    const result = validateState({ ...tutorialState('en'), ...value });
    assert.equal(result.ok, false);
    assert.ok(describe('en', result.message).length < 200);
  }
});

test('a field name or value in a message is cut short: a megabyte key, a megabyte string cell', () => {
  const key = validateState({ ...tutorialState('en'), [`${'k'.repeat(1e6)}`]: 1 });
  assert.equal(describe('en', key.message), `The state is not valid: “${'k'.repeat(40)}…” is not a known field.`);
  const cell = validateState({ ...tutorialState('en'), x: [['x'.repeat(1e6), 0], [0, 1], [1, 1]] });
  assert.equal(describe('en', cell.message), `The state is not valid: “x” has "${'x'.repeat(40)}…" at row 1, column 1: a finite number is expected.`);
});

test('quote() names a value with bounded work and never cuts a surrogate pair in half', () => {
  assert.equal(quote(nestedArray(100_000)), '[…]');
  assert.equal(quote({ a: nestedArray(100_000) }), '{…}');
  for (const [value, text] of [[1.5, '1.5'], [-0, '0'], [true, 'true'], [null, 'null'], [undefined, 'undefined'], [NaN, 'NaN'], ['ab', '"ab"']]) {
    assert.equal(quote(value), text);
  }
  // 39 ASCII characters then an emoji (two UTF-16 units): cut before the emoji, not inside it
  assert.equal(excerpt(`${'a'.repeat(39)}😀tail`), `${'a'.repeat(39)}…`);
  assert.equal(excerpt(`${'a'.repeat(38)}😀tail`), `${'a'.repeat(38)}😀…`);
  assert.equal(excerpt('a'.repeat(40)), 'a'.repeat(40));
});

test('a token longer than 100 characters is refused, whatever its path (state, hash, file)', () => {
  const state = (token) => ({ ...tutorialState('en'), tokens: ['a', token, 'c'] });
  assert.equal(MAX_TOKEN_CHARS, 100);
  assert.equal(validateState(state('b'.repeat(100))).ok, true);
  const expected = 'The state is not valid: “tokens” must hold tokens of at most 100 characters: token 2 has 101.';
  assert.equal(describe('en', validateState(state('b'.repeat(101))).message), expected);
  assert.equal(describe('en', decodeHash(encodeHash(state('b'.repeat(101)))).message), expected);
  assert.equal(describe('en', parseStateJson(JSON.stringify(state('b'.repeat(101)))).message), expected);
  // five megabytes (a postMessage): refused by its length alone
  const start = performance.now();
  const huge = validateState(state('b'.repeat(5e6)));
  assert.ok(performance.now() - start < 1000);
  assert.equal(describe('zh', huge.message), '状态无效：“tokens” 的词元最多 100 个字符：第 2 个有 5000000 个。');
  const context = validateState({ ...tutorialState('en'), context: { tokens: ['k'.repeat(101)], x: [[1, 0]] }, keyPadding: [false] });
  assert.match(describe('en', context.message), /“context\.tokens” must hold tokens of at most 100 characters: token 1 has 101\./);
});

test('copyState is a deep copy: equal, sharing no object or array', () => {
  for (const state of [tutorialState(), variant(), largeState(), { a: [], b: {}, c: [[], [{}]], d: null }]) {
    const copy = copyState(state);
    assert.deepEqual(copy, state);
    const shared = [];
    const walk = (a, b) => {
      if (a === null || typeof a !== 'object') return;
      if (a === b) shared.push(a);
      for (const key of Object.keys(a)) walk(a[key], b[key]);
    };
    walk(state, copy);
    assert.equal(shared.length, 0);
    if (state.view) {
      copy.view.step = 'output';
      copy.x[0][0] = 12345;
      assert.notEqual(state.view.step, 'output');
      assert.notEqual(state.x[0][0], 12345);
    }
  }
});
