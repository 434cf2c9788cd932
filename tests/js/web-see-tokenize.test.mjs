// The tokenize modes on Chinese, Japanese, English, mixed text and emoji, token
// by token, against ICU's segmentation through python3-icu
// (tests/make_tokenize_fixtures.py → tests/fixtures/tokenize_cases.json), not
// against Intl.Segmenter itself: "By words" must find the words of text without
// spaces (北京, 天安门), "By characters" must keep an emoji one token as a reader
// sees it (a skin tone, a ZWJ family, a flag).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tokenize, joinTokens, defaultMode } from '../../web/src/io/tokenize.js';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/tokenize_cases.json', import.meta.url), 'utf8'));

for (const mode of ['word', 'char', 'space']) {
  test(`tokenize by ${mode}: ICU's tokens for Chinese, Japanese, English, mixed text and emoji`, () => {
    for (const c of cases) assert.deepEqual(tokenize(c.text, mode), c[mode], `${mode}: ${c.text}`);
  });
}

test('by words, Chinese without spaces is words, not characters', () => {
  const words = tokenize('注意力机制是深度学习的重要组成部分', 'word');
  assert.ok(words.includes('注意力') && words.includes('深度') && words.includes('学习'), words.join(' | '));
  assert.ok(words.length < Array.from('注意力机制是深度学习的重要组成部分').length);
});

test('tokens by characters read back as the sentence without its spaces', () => {
  for (const c of cases) assert.equal(joinTokens(tokenize(c.text, 'char'), 'char'), c.text.replace(/\s/gu, ''), c.text);
});

test('the default mode reads the sentence without its surrounding spaces', () => {
  assert.equal(defaultMode('  我爱你 \n'), 'char');
  assert.equal(defaultMode(' I love you '), 'space');
});
