import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize, defaultMode, joinTokens } from '../../web/src/io/tokenize.js';

test('by character: one token per character, spaces skipped', () => {
  assert.deepEqual(tokenize('我爱你', 'char'), ['我', '爱', '你']);
  assert.deepEqual(tokenize('我 爱你', 'char'), ['我', '爱', '你']);
});

test('astral characters and emoji stay one token each', () => {
  assert.deepEqual(tokenize('我😀𠀀', 'char'), ['我', '😀', '𠀀']);
});

test('by spaces: any run of whitespace separates', () => {
  assert.deepEqual(tokenize('  the cat\tsat \n on  ', 'space'), ['the', 'cat', 'sat', 'on']);
});

test('by words: Intl.Segmenter words and punctuation, no spaces', () => {
  assert.deepEqual(tokenize('Hello, world!', 'word'), ['Hello', ',', 'world', '!']);
  const chinese = tokenize('我爱你。', 'word');
  assert.equal(chinese.join(''), '我爱你。');
  assert.ok(chinese.every((t) => t.trim() !== ''));
});

test('empty or blank text has no tokens in every mode', () => {
  for (const mode of ['char', 'space', 'word']) {
    assert.deepEqual(tokenize('', mode), []);
    assert.deepEqual(tokenize(' \t\n', mode), []);
  }
});

test('default mode: characters without spaces (Chinese), spaces otherwise', () => {
  assert.equal(defaultMode('我爱你'), 'char');
  assert.equal(defaultMode('I love you'), 'space');
});

test('edited tokens read back as a sentence', () => {
  assert.equal(joinTokens(['我', '喜欢', '你'], 'char'), '我喜欢你');
  assert.equal(joinTokens(['I', 'love', 'you'], 'space'), 'I love you');
});
