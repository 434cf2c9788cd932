import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTargets, withMatrix, shareLink, exportables } from '../../web/src/views/tools.js';
import { embedCode, siblingPath } from '../../web/src/element/embed-code.js';
import { stepsFor } from '../../web/src/views/steps.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { decodeHash } from '../../web/src/state/link.js';

const BASE = 'https://example.org/tutorials/av/attention-visualizer.js';
const PAGE = 'https://example.org/tutorials/lesson-1.html'; // the page the code is copied on

test('the element embed code spells out every input and option, escaped for an attribute', () => {
  const state = {
    ...tutorialState('en'), tokens: ["it's", '<b>', '&'], causal: true, keyPadding: [false, false, true], temperature: 0.5,
    view: { step: 'softmax', head: 0, lang: 'en', decimals: 6 },
  };
  const code = embedCode('element', state, [['panels', 'nav,work'], ['theme', 'dark']], BASE, PAGE);
  assert.equal(code, `<script src="av/attention-visualizer.js"></script>
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
  const code = embedCode('iframe', state, [['steps', 'scores,scale'], ['editable', '']], BASE, PAGE);
  const src = /src="([^"]+)"/.exec(code)[1].replace(/&amp;/g, '&');
  assert.ok(src.startsWith('av/embed.html?'), src);
  const url = new URL(src, PAGE);
  assert.equal(url.origin + url.pathname, 'https://example.org/tutorials/av/embed.html');
  assert.equal(url.searchParams.get('steps'), 'scores,scale');
  assert.equal(url.searchParams.get('editable'), '');
  assert.deepEqual(decodeHash(url.hash).state, state);
  assert.match(code, /title="注意力计算" width="100%" height="720" loading="lazy"><\/iframe>\n$/);
});

test('the Hugo embed code is the shortcode: raw strings in backticks, a backtick in JSON as \\u0060, flags "true"', () => {
  const state = {
    ...tutorialState('en'), tokens: ['a`b', '}}', 'q"t'], causal: true, keyPadding: [false, false, true],
    view: { step: 'softmax', head: 0, lang: 'en', decimals: 4 },
  };
  const code = embedCode('hugo', state, [['panels', 'nav,work'], ['editable', '']], BASE, PAGE);
  assert.equal(code, `{{< attention-visualizer
  tokens=\`["a\\u0060b","}}","q\\"t"]\`
  x=\`[[1,0],[0.5,0.5],[0,1]]\`
  wq=\`[[0.5,0.2],[0.1,0.6]]\`
  wk=\`[[0.4,0.3],[0.2,0.7]]\`
  wv=\`[[0.8,0.1],[0.3,0.9]]\`
  causal="true"
  key-padding=\`false,false,true\`
  lang=\`en\`
  step=\`softmax\`
  decimals=\`4\`
  panels=\`nav,work\`
  editable="true" >}}
`);
  assert.equal(JSON.parse(/tokens=`([^`]*)`/.exec(code)[1]).join('|'), state.tokens.join('|'));
});

test('the Jupyter embed code is a show() cell whose keywords are Python literals; MkDocs gets the element alone', () => {
  const state = {
    ...tutorialState('zh'), heads: [tutorialState().heads[0], tutorialState().heads[0]], wo: [[1, 0], [0, 1], [1, 0], [0, 1]],
    keyPadding: [false, true, false], positionalEncoding: true, temperature: 0.5, view: { step: 'scores', head: 1, lang: 'zh', decimals: 3 },
  };
  const code = embedCode('jupyter', state, [['theme', 'dark'], ['editable', '']], BASE, PAGE);
  assert.equal(code, `from attention_visualizer import show

show(
    tokens=["我","爱","你"],
    x=[[1,0],[0.5,0.5],[0,1]],
    heads=${JSON.stringify(state.heads)},
    wo=[[1,0],[0,1],[1,0],[0,1]],
    key_padding=[False, True, False],
    temperature="0.5",
    positional_encoding=True,
    lang="zh",
    step="scores",
    head=2,
    decimals=3,
    theme="dark",
    editable=True,
)
`);
  const mkdocs = embedCode('mkdocs', state, [], BASE, PAGE);
  assert.equal(mkdocs, `<div class="attention-visualizer">\n${embedCode('element', state, [], BASE, PAGE).replace(/^<script [^\n]*\n/, '')}</div>\n`);
  assert.throws(() => embedCode('wordpress', state, [], BASE, PAGE), /one of element, iframe, hugo, mkdocs, jupyter, not wordpress/);
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

// Issue 34: the export list was a second catalog that had lost the positional encodings
// (PE, and the context's PE_C and C+PE_C); it now reads the steps' catalog (views/catalog.js).
test('the export panel offers every matrix the steps of the head in view show, the positional encodings too', () => {
  const m = [[1, 0], [0, 1]];
  const head = { q: m, k: m, v: m, scores: m, scaled: m, weights: m, output: m };
  const variants = [
    { heads: 1, usesWo: false, cross: true, positionalEncoding: true },
    { heads: 1, usesWo: false, cross: false, positionalEncoding: true },
    { heads: 2, usesWo: true, cross: true, positionalEncoding: false },
  ];
  for (const options of variants) {
    const ctx = {
      lang: 'en', tokens: ['a', 'b'], keyTokens: ['c', 'd'], head: 1 % options.heads, options: { ...options, scaleBySqrtDk: true, temperature: 1, causal: false, keyPadding: [] },
      inputs: { x: m, c: m, wq: m, wk: m, wv: m, wo: m }, result: head,
      full: { heads: Array.from({ length: options.heads }, () => head), concat: m, output: m, masked: null, pe: m, xWithPe: m, contextPe: m, contextWithPe: m },
    };
    const offered = Object.keys(exportables(ctx));
    const shown = stepsFor(ctx.options).flatMap((step) => step.groups(ctx).flat());
    const ownHeads = (name) => !/^head_\d+$/.test(name) || name === `head_${ctx.head + 1}`;
    for (const name of shown.filter(ownHeads)) assert.ok(offered.includes(name), `${name} of ${JSON.stringify(options)} is offered (${offered})`);
    assert.equal(exportables(ctx).Weights.data, m);
  }
});

test('a share link opens the full page, or embed.html for several heads without W_O', () => {
  const one = tutorialState();
  assert.ok(shareLink(one, BASE).startsWith('https://example.org/tutorials/av/index.html#av1.'));
  assert.deepEqual(decodeHash(new URL(shareLink(one, BASE)).hash).state, one);
  const two = { ...one, heads: [one.heads[0], one.heads[0]] };
  assert.ok(shareLink(two, BASE).startsWith('https://example.org/tutorials/av/embed.html#av1.'));
  assert.ok(shareLink({ ...two, wo: [[1, 0], [0, 1], [1, 0], [0, 1]] }, BASE).includes('/index.html#'));
});

test('embed code paths are relative to the page, never file: or the author\'s own machine', () => {
  const cases = [
    // [script, page, what the code says]
    ['file:///home/me/site/dist/attention-visualizer.js', 'file:///home/me/site/dist/index.html', 'attention-visualizer.js'],
    ['file:///home/me/site/dist/attention-visualizer.js', 'file:///home/me/site/dist/examples/tutorial.html', '../attention-visualizer.js'],
    ['http://127.0.0.1:8080/attention-visualizer.js', 'http://127.0.0.1:8080/', 'attention-visualizer.js'],
    ['http://localhost:5173/assets/attention-visualizer.js', 'http://localhost:5173/blog/2024/post/', '../../../assets/attention-visualizer.js'],
    ['https://example.org/docs/av/attention-visualizer.js', 'https://example.org/docs/av/', 'attention-visualizer.js'],
    ['https://example.org/a/b/attention-visualizer.js', 'https://example.org/a/c/d.html', '../b/attention-visualizer.js'],
    // another host: the author's machine is left out, a CDN kept
    ['http://localhost:8080/attention-visualizer.js', 'file:///home/me/post.html', 'attention-visualizer.js'],
    ['file:///home/me/dist/attention-visualizer.js', 'https://example.org/post.html', 'attention-visualizer.js'],
    ['https://cdn.example.net/av@0.1.0/dist/attention-visualizer.js', 'https://example.org/post.html', 'https://cdn.example.net/av@0.1.0/dist/attention-visualizer.js'],
  ];
  for (const [script, page, expected] of cases) {
    const path = siblingPath('attention-visualizer.js', script, page);
    assert.equal(path, expected, `${script} from ${page}`);
    // on the same host the path leads back to the script itself
    const sameHost = new URL(script).protocol === new URL(page).protocol && new URL(script).host === new URL(page).host;
    if (sameHost) assert.equal(new URL(path, page).href, script);
  }
});
