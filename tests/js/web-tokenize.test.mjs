import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../../web/src/tokenize.js';

test('text without spaces is one token per character', () => {
  assert.deepEqual(tokenize('我爱你'), ['我', '爱', '你']);
});

test('astral characters and emoji stay one token each', () => {
  assert.deepEqual(tokenize('我😀𠀀'), ['我', '😀', '𠀀']);
});

test('text with spaces is split into words, any run of whitespace', () => {
  assert.deepEqual(tokenize('  the cat\tsat \n on  '), ['the', 'cat', 'sat', 'on']);
});

test('a single word without spaces is split into characters', () => {
  assert.deepEqual(tokenize(' cat '), ['c', 'a', 't']);
});

test('empty or blank text has no tokens', () => {
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize(' \t\n'), []);
});
