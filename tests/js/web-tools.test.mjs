import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedCode, importTargets, withMatrix, shareLink } from '../../web/src/tools.js';
import { tutorialState, decodeHash } from '../../web/src/share.js';

const BASE = 'https://example.org/tutorials/av/attention-visualizer.js';

test('the element embed code spells out every input and option, escaped for an attribute', () => {
  const state = {
    ...tutorialState('en'), tokens: ["it's", '<b>', '&'], causal: true, keyPadding: [false, false, true], temperature: 0.5,
    view: { step: 'softmax', head: 0, lang: 'en', decimals: 6 },
  };
  const code = embedCode('element', state, [['panels', 'nav,work'], ['theme', 'dark']], BASE);
  assert.equal(code, `<script src="https://example.org/tutorials/av/attention-visualizer.js"></script>
<attention-visualizer
  tokens='["it&#39;s","&lt;b>","&amp;"]'
  x='[[1,0],[0.5,0.5],[0,1]]'
  wq='[[0.5,0.2],[0.1,0.6]]'
  wk='[[0.4,0.3],[0.2,0.7]]'
  wv='[[0.8,0.1],[0.3,0.9]]'
  causal
  key-padding='false,false,true'
  temperature='0.5'
  lang='en'
  step='softmax'
  decimals='6'
  panels='nav,work'
  theme='dark'>
</attention-visualizer>
`);
});

test('the iframe embed code points at embed.html next to the script, with the state in the hash', () => {
  const state = { ...tutorialState('zh'), view: { step: 'scores', head: 0, lang: 'zh', decimals: 4 } };
  const code = embedCode('iframe', state, [['steps', 'scores,scale'], ['editable', '']], BASE);
  const src = /src="([^"]+)"/.exec(code)[1].replace(/&amp;/g, '&');
  const url = new URL(src);
  assert.equal(url.origin + url.pathname, 'https://example.org/tutorials/av/embed.html');
  assert.equal(url.searchParams.get('steps'), 'scores,scale');
  assert.equal(url.searchParams.get('editable'), '');
  assert.deepEqual(decodeHash(url.hash).state, state);
  assert.match(code, /title="注意力计算" width="100%" height="720" loading="lazy"><\/iframe>\n$/);
});

test('import targets name every matrix; a matrix replaces only its own', () => {
  const state = { ...tutorialState(), heads: [tutorialState().heads[0], tutorialState().heads[0]], wo: [[1, 0], [0, 1], [1, 0], [0, 1]] };
  assert.deepEqual(importTargets(state).map((t) => t.id), ['x', 'wq', 'wk', 'wv', 'wq.2', 'wk.2', 'wv.2', 'wo']);
  const target = importTargets(state).find((t) => t.id === 'wk.2');
  const next = withMatrix(state, target, [[9, 9], [9, 9]]);
  assert.deepEqual(next.heads[1].wk, [[9, 9], [9, 9]]);
  assert.deepEqual(next.heads[0].wk, state.heads[0].wk);
  assert.deepEqual(state.heads[1].wk, tutorialState().heads[0].wk); // the original is untouched
});

test('a share link opens the full page, or embed.html for several heads without W_O', () => {
  const one = tutorialState();
  assert.ok(shareLink(one, BASE).startsWith('https://example.org/tutorials/av/index.html#av1.'));
  assert.deepEqual(decodeHash(new URL(shareLink(one, BASE)).hash).state, one);
  const two = { ...one, heads: [one.heads[0], one.heads[0]] };
  assert.ok(shareLink(two, BASE).startsWith('https://example.org/tutorials/av/embed.html#av1.'));
  assert.ok(shareLink({ ...two, wo: [[1, 0], [0, 1], [1, 0], [0, 1]] }, BASE).includes('/index.html#'));
});
