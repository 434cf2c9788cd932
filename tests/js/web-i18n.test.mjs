import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { STRINGS, LANGUAGES, translate, describe, describeLoadFailure, detectLanguage, htmlLang } from '../../web/src/ui/i18n.js';

const placeholders = (text) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
test('every key has a non-empty Chinese and English string', () => {
  for (const [key, entry] of Object.entries(STRINGS)) {
    assert.deepEqual(Object.keys(entry).sort(), [...LANGUAGES].sort(), key);
    for (const lang of LANGUAGES) {
      const value = entry[lang];
      assert.ok(typeof value === 'function' || (typeof value === 'string' && value.trim() !== ''), `${key}.${lang}`);
    }
  }
});

test('template strings use the same placeholders in both languages', () => {
  for (const [key, entry] of Object.entries(STRINGS)) {
    if (typeof entry.zh === 'string' && typeof entry.en === 'string') {
      assert.deepEqual(placeholders(entry.zh), placeholders(entry.en), key);
    }
  }
});

test('every message renders without a leftover placeholder in both languages', () => {
  const params = {
    n: 2, detail: 'x', dk: 2, sqrt: '1.4142', result: 'Q', weights: 'W_Q', name: 'X', rows: 3, cols: 2,
    row: 2, token: '爱', col: 1, text: 'abc', count: 3, expected: 2, tokens: 3, message: 'm', total: 6, max: 24, length: 150,
    min: 1, names: 'Q, K', query: '我', key: '爱', argmax: '我', list: '我 0.3', fn: 'sin', from: 'on', to: 'off', dModel: 2, pe: 'PE', q: 'X', kv: 'C', value: '0.5', shape: '3 × 2', label: '我',
    a: 'Q row 1', b: 'K row 2', c: 'b_Q column 1', target: 'Scores[我, 爱]', where: 'Step 5',
    bias: 'b_Q', // show the work's bias term (work.js)
    // the parameters of export, import, state and load messages
    actual: 'actual', dtype: 'dtype', field: 'field', file: 'file', index: 'index', problem: 'problem', supported: 'supported', version: 'version', percent: 50,
    got: 5, chars: 9,
    // ALiBi's bias: the slope, the query's and the key's positions, their distance
    m: '0.25', i: 0, j: 2, d: 2,
    // why a training run stopped
    floor: '0.0000', gap: 0.001, window: 50, p: '我',
    // the induction model trained from scratch (learninduction.js)
    goal: 0.4, loss: '2.300', score: '88.3%', layer: 2, head: 1, ln: '3.18', every: 50, chunk: 200, patience: 2000, gain: 1, step: 400, prefix: '88.3%',
    // the parameters of "What to look at" and the temperature's note (hints.js)
    lo: '0.3', hi: '0.4', animal: '0.6', street: '0.2', first: 'it', second: 'the', least: '0.5', most: '0.1', k: 2, now: '0.7', base: '0.4',
    words: 2, // the split prompt's count by spaces (editor.js)
    // the shipped models (strings-models.js): the model's title, a layer asked for (layer, head: above)
    title: 'A model', before: 1, asked: 3, layers: 2, instead: '<s>',
    // an author's own model (its size bound, the path and code of what does not read) and a head's role
    mb: 16, path: 'vocab[1]', code: 'shape', role: 'coreference',
    // checking a learner's value (engine/check.js)
    cell: 'Weights[我, 爱]', places: 4, wrong: '0.3361', full: '0.33569311', other: 'Weights[爱, 我]', root: '1.4142', term: 'Q[我, d1]·K[爱, d1]', slip: 'left out', previous: 'Scaled',
    // "Guess first" (views/guess.js): the choice, the scale step's row before and after
    choice: '爱', key0: '我', top0: '0.2600', spread0: '0.0200', key1: '我', top1: '0.1838', spread1: '0.0141',
  };
  for (const key of Object.keys(STRINGS)) {
    for (const lang of LANGUAGES) {
      const text = describe(lang, { key, params });
      assert.doesNotMatch(text, /\{\w+\}|undefined/, `${key}.${lang}: ${text}`);
    }
  }
});

test('English plurals', () => {
  assert.equal(translate('en', 'tokenCount', { n: 1 }), '1 token');
  assert.equal(translate('en', 'tokenCount', { n: 3 }), '3 tokens');
});

test('row locations name the token in both languages', () => {
  const message = { key: 'errNotNumber', params: { row: 2, token: '爱', col: 1, text: 'abc' } };
  assert.equal(describe('en', message), 'Row 2 (爱), column 1: “abc” is not a number; write it like 0.5 or -2.');
  assert.equal(describe('zh', message), '第 2 行（爱）第 1 列：“abc”不是数字，请写成 0.5 或 -2 这样的形式。');
});

test('language detection and html lang', () => {
  assert.equal(detectLanguage('zh-CN'), 'zh');
  assert.equal(detectLanguage('zh-Hant-TW'), 'zh');
  assert.equal(detectLanguage('en-US'), 'en');
  assert.equal(detectLanguage('fr'), 'en');
  assert.equal(detectLanguage(undefined), 'en');
  // navigator.languages: the first language the page speaks decides
  assert.equal(detectLanguage(['fr-FR', 'zh-CN', 'en']), 'zh');
  assert.equal(detectLanguage(['de', 'en-GB', 'zh-TW']), 'en');
  assert.equal(detectLanguage(['ja', 'ko']), 'en');
  assert.equal(detectLanguage([]), 'en');
  assert.equal(htmlLang('zh'), 'zh-CN');
  assert.equal(htmlLang('en'), 'en');
});

test('nested descriptors are described in the same language', () => {
  assert.equal(translate('en', 'prev'), '← Previous');
  const message = { key: 'errImportMatrix', params: { file: 'a.npy', detail: { key: 'errNpyShape', params: { shape: '(3,)' } } } };
  assert.equal(describe('en', message), 'a.npy: shape (3,) is not a matrix: it must be (rows, columns), both at least 1.');
  assert.equal(describe('zh', message), 'a.npy：形状 (3,) 不是二维矩阵：需要 (行, 列)，且都至少为 1。');
  // a nested message with a row gets its "where" phrase too
  const cell = { key: 'errImportMatrix', params: { file: 'x.csv', detail: { key: 'errNotNumber', params: { row: 2, token: '爱', col: 1, text: 'abc' } } } };
  assert.match(describe('en', cell), /Row 2 \(爱\), column 1: “abc” is not a number/);
});

test('load failures name their cause', () => {
  assert.match(describeLoadFailure('en', { code: 'csp', message: '' }), /Content-Security-Policy/);
  assert.equal(describeLoadFailure('en', { code: 'other', message: 'boom' }), 'The attention engine could not start: boom');
  assert.equal(describeLoadFailure('zh', { code: 'other', message: 'boom' }), '注意力计算引擎无法启动：boom');
});

// Every key is used by the code or the pages: written out ('key'), or built from
// a written prefix (`presetNote_${name}`) or a written base and suffix
// (key: 'stepInput' with `${step.key}Title`).
test('no key is unused', () => {
  const dir = new URL('../../web/', import.meta.url);
  const sources = [
    ...readdirSync(new URL('src/', dir), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => readFileSync(new URL(`src/${f}`, dir), 'utf8')),
    ...['index.html', 'embed.html'].map((f) => readFileSync(new URL(f, dir), 'utf8')),
  ];
  // the table itself does not count as a use, the code after it does
  const table = sources.findIndex((text) => text.includes('export const STRINGS = {'));
  sources[table] = sources[table].slice(sources[table].indexOf('\n};\n'));
  const text = sources.join('\n');
  const quoted = new Set([...text.matchAll(/['"`]([A-Za-z_]\w*)['"`]/g)].map((m) => m[1]));
  const prefixes = [...new Set([...text.matchAll(/[`'"]([A-Za-z]\w*_)(?:\$\{|['"]\s*\+)/g)].map((m) => m[1]))];
  const suffixes = [...new Set([...text.matchAll(/\}([A-Z]\w*)`/g)].map((m) => m[1]))];
  const used = (key) => quoted.has(key) || prefixes.some((p) => key.startsWith(p))
    || suffixes.some((s) => key.endsWith(s) && quoted.has(key.slice(0, -s.length)));
  assert.deepEqual(Object.keys(STRINGS).filter((key) => !used(key)), []);
});
