import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMBED_STRINGS, say, sayMessage } from '../../web/src/i18n-embed.js';
import { STRINGS } from '../../web/src/i18n.js';

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('every embedding string exists in Chinese and English with the same placeholders, and no key shadows i18n.js', () => {
  for (const [key, entry] of Object.entries(EMBED_STRINGS)) {
    assert.ok(entry.zh && entry.en, key);
    assert.deepEqual(placeholders(entry.zh), placeholders(entry.en), key);
    assert.ok(!(key in STRINGS), `${key} is also in i18n.js`);
  }
});

test('say() falls back to i18n.js; nested descriptors are described in the same language', () => {
  assert.equal(say('en', 'prev'), '← Previous');
  const message = { key: 'errImportMatrix', params: { file: 'a.npy', detail: { key: 'errNpyShape', params: { shape: '(3,)' } } } };
  assert.equal(sayMessage('en', message), 'a.npy: shape (3,) is not a matrix: it must be (rows, columns), both at least 1.');
  assert.equal(sayMessage('zh', message), 'a.npy：形状 (3,) 不是二维矩阵：需要 (行, 列)，且都至少为 1。');
});
