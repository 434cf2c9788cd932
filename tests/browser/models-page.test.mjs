// The shipped models on the page (issue 36): <attention-visualizer model="…" sentence="…" layer="…"
// head="…"> with no matrices, in a host page and in embed.html; each token its learned vector, a
// token the model does not know named with its stand-in; the head shown step by step equal to an
// independent numpy forward of the shipped model (tests/make_model_page_fixtures.py, committed);
// the share link and the embed code name the model, never its weights.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { HOST_CSP, TUTORIAL, openHost, pageFolder } from './host-pages.mjs';
import { colorTable, packRgba } from '../../web/src/ui/color.js';

const { cases: FIXTURES, ablated: ABLATED } = JSON.parse(readFileSync('tests/fixtures/model_page_cases.json', 'utf8'));
const DIR = pageFolder('models-page', ['attention-visualizer.js', 'embed.html', 'embed.css', 'embed.js', 'style.css', 'models']);
const local = {};
const attr = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

// one element per fixture case, by its attributes alone (layer and head from 1, as on screen)
const elements = FIXTURES.map((c, i) => `<attention-visualizer id="c${i}" lang="en" model="${c.model}" sentence="${attr(c.sentence)}" layer="${c.layer + 1}" head="${c.head + 1}" step="softmax"></attention-visualizer>`);
writeFileSync(path.join(DIR, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">'
  + `<script src="attention-visualizer.js"></script></head><body>${elements.join('\n')}`
  + '<attention-visualizer id="zh" lang="zh" model="learner-words" sentence="I love zebras"></attention-visualizer>'
  + '<attention-visualizer id="nope" lang="en" model="no-such-model" sentence="I love you"></attention-visualizer></body></html>\n');

// ---- an author's own model files, served beside the page (http on localhost, the host CSP) ----
const shipped = (name) => JSON.parse(readFileSync(`web/models/${name}.json`, 'utf8'));
const HTML_TOKEN = '<img src=x onerror="window.pwned=1">lake';
const OWN = {
  'own.json': JSON.stringify({ ...shipped('induction'), title: { en: 'My copy of the induction model', zh: '我的归纳模型副本' } }),
  'own-html.json': JSON.stringify({ ...shipped('animal-street'), title: '<b onclick="window.pwned=2">bold</b>', vocab: shipped('animal-street').vocab.map((t) => (t === 'lake' ? HTML_TOKEN : t)) }),
  'big.json': `${' '.repeat(16 * 1024 * 1024 + 1)}{}`,
  'notjson.json': '<html>not a model</html>',
  'shape.json': JSON.stringify({ vocab: ['a', 2], layers: [] }),
  'bad-dmodel.json': JSON.stringify({ ...shipped('induction'), dModel: 5 }),
};
for (const [file, text] of Object.entries(OWN)) writeFileSync(path.join(DIR, file), text);
const OWN_ELEMENTS = [
  ['own', 'en', './own.json', 'ABCDEFABCD', 'layer="2" head="1" step="softmax"'],
  ['own-html', 'en', './own-html.json', "The animal didn't cross the street because it was too tired", ''],
  ['big', 'en', './big.json', 'a b', ''], ['big-zh', 'zh', './big.json', 'a b', ''], ['notjson', 'en', './notjson.json', 'a', ''],
  ['shape', 'en', './shape.json', 'a', ''], ['bad-dmodel', 'zh', './bad-dmodel.json', 'ABC', ''], ['origin', 'en', 'https://example.org/m.json', 'a', ''],
].map(([id, lang, model, sentence, more]) => `<attention-visualizer id="${id}" lang="${lang}" model="${model}" sentence="${attr(sentence)}" ${more}></attention-visualizer>`);
writeFileSync(path.join(DIR, 'own.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">'
  + `<script src="attention-visualizer.js"></script></head><body>${OWN_ELEMENTS.join('\n')}</body></html>\n`);

before(async () => {
  local.server = await startServer({ root: DIR, headers: { 'Content-Security-Policy': HOST_CSP } });
  local.browser = await launchChromium();
});
after(async () => {
  await local.browser?.close();
  await local.server?.close();
});

const close = (got, want, label, tol = 1e-12) => {
  assert.equal(got.length, want.length, `${label}: rows`);
  got.forEach((row, r) => row.forEach((v, c) => assert.ok(Math.abs(v - want[r][c]) <= tol, `${label}[${r}][${c}] = ${v}, numpy ${want[r][c]}`)));
};

// ---- the model view (views/modelgrid.js): every layer × head's thumbnail, read back from its pixels ----

const INDEX = JSON.parse(readFileSync('web/models/index.json', 'utf8'));
const WEIGHT_COLOURS = colorTable('weights'); // the colour map the thumbnails are painted with: entry k for a weight k / last
const HATCH = [packRgba([200, 200, 200]), packRgba([140, 140, 140])]; // a masked cell's stripes

// Every thumbnail of the model view in `id`'s shadow root (null: the page's): its layer, head, label, role, marks
// and the pixel at the middle of each of its n × n cells (packed as ImageData's bytes are).
const thumbnails = (page, id, n) => page.evaluate(({ id, n }) => {
  const root = id ? document.getElementById(id).shadowRoot : document;
  return [...root.querySelectorAll('.model-view .mv-tile')].map((tile) => {
    const canvas = tile.querySelector('canvas');
    const box = tile.querySelector('.mv-box');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const scale = canvas.width / n;
    const at = (r, c) => {
      const i = 4 * ((r * scale + (scale >> 1)) * canvas.width + c * scale + (scale >> 1));
      return (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)) >>> 0;
    };
    return {
      layer: Number(tile.dataset.layer), head: Number(tile.dataset.head), label: box.getAttribute('aria-label'), title: box.title,
      role: tile.querySelector('.mv-role').textContent, current: box.getAttribute('aria-current') === 'true', tabIndex: box.tabIndex,
      pixels: Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => at(r, c))),
    };
  });
}, { id, n });

// The shipped roles as a reader reads them (an author's own role is shown as its file writes it).
const ROLE_NAMES = {
  en: { 'previous-token': 'previous token', 'first-token': 'first token', induction: 'induction', translation: 'translation', coreference: 'coreference', adjective: 'adjective', self: 'self', duplicate: 'duplicate' },
  zh: { 'previous-token': '前一个词元', 'first-token': '首个词元', induction: '归纳头', translation: '翻译', coreference: '指代', adjective: '看形容词', self: '自身', duplicate: '更早的副本' },
};

// The thumbnails' pixels are numpy's weights in the colour map (a masked cell hatched), every layer × head.
function assertThumbnails(tiles, c, weights, label) {
  const model = JSON.parse(readFileSync(`web/models/${c.model}.json`, 'utf8'));
  assert.deepEqual(tiles.map((t) => [t.layer, t.head]), weights.flatMap((heads, l) => heads.map((_, h) => [l, h])), `${label}: a thumbnail for every layer × head`);
  const roles = INDEX.find((e) => e.name === c.model).roles;
  const { pixels, last } = WEIGHT_COLOURS;
  for (const tile of tiles) {
    const role = roles.find((r) => r.layer === tile.layer && r.head === tile.head);
    if (role) assert.equal(tile.role, ROLE_NAMES.en[role.role] ?? role.role, `${label}: layer ${tile.layer} head ${tile.head}'s role, named`);
    for (const token of c.tokens) assert.ok(tile.label.includes(token), `${label}: the label names “${token}”: ${tile.label}`);
    const want = weights[tile.layer][tile.head];
    tile.pixels.forEach((row, r) => row.forEach((pixel, col) => {
      const where = `${label}: layer ${tile.layer} head ${tile.head} [${r}][${col}]`;
      if (model.causal && col > r) {
        assert.ok(HATCH.includes(pixel), `${where}: masked, hatched`);
        return;
      }
      const t = Math.min(last, Math.max(0, want[r][col] * last));
      const k = Math.round(t);
      // (a weight within 1e-9 of half a colour step either way may fall on the neighbouring colour)
      const near = Math.abs(t - Math.floor(t) - 0.5) < 1e-9 ? [pixels[Math.floor(t)], pixels[Math.ceil(t)]] : [pixels[k]];
      assert.ok(near.includes(pixel), `${where}: pixel ${pixel.toString(16)} is not the colour of numpy's ${want[r][col]}`);
    }));
  }
}

// the element's state and result once its model is read (its tokens the model's)
async function modelElement(page, id) {
  return page.evaluate(async (id) => {
    const el = document.getElementById(id);
    el.scrollIntoView();
    await el.ready;
    const until = Date.now() + 20000; // (a model that never reads fails the test, not the suite's time)
    await new Promise((resolve, reject) => {
      // read with its model: X named as the layer's input
      const status = () => el.shadowRoot.querySelector('.status').textContent;
      const check = () => (/LayerNorm/.test(status()) && !el.computing ? resolve() : Date.now() > until ? reject(new Error(`${id} not read: ${status()}`)) : setTimeout(check, 20));
      check();
    });
    const { state, result } = el;
    return {
      state, weights: result.heads.map((h) => h.weights), head: result.heads[state.view.head],
      status: [...el.shadowRoot.querySelectorAll('.status p')].map((p) => `${p.className}: ${p.textContent}`),
      embed: el.embedCode('element'),
    };
  }, id);
}

test('a model element with a sentence and no matrices shows the chosen head equal to numpy\'s forward of the shipped model', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    for (const [i, c] of FIXTURES.entries()) {
      const got = await modelElement(host.page, `c${i}`);
      const label = `${c.model} “${c.sentence}” layer ${c.layer} head ${c.head}`;
      assert.deepEqual(got.state.tokens, c.tokens, label);
      assert.equal(got.state.layer, c.layer);
      assert.equal(got.state.view.head, c.head);
      close(got.state.x, c.input, `${label} X (layer input after LayerNorm)`);
      for (const name of ['q', 'k', 'v', 'scores', 'weights', 'output']) close(got.head[name], c[name], `${label} ${name}`);
      const model = JSON.parse(readFileSync(`web/models/${c.model}.json`, 'utf8'));
      assert.equal(got.state.causal, model.causal, `${label}: the model's mask`);
      assert.ok(got.status.some((s) => /LayerNorm \(norm1\)/.test(s)), `${label}: X is named as the layer's input after LayerNorm: ${got.status}`);
      assert.ok(!got.status.some((s) => s.startsWith('status-error')), `${label}: no error: ${got.status}`);
    }
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('a token the model does not know is marked, in zh and en, with what it gets instead', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    const i = FIXTURES.findIndex((c) => c.known.includes(-1));
    const en = await modelElement(host.page, `c${i}`);
    assert.ok(en.status.some((s) => s.includes('Not known to the model: “zebras”') && s.includes('“<s>”')), en.status.join('\n'));
    const zh = await modelElement(host.page, 'zh');
    assert.ok(zh.status.some((s) => s.includes('模型不认识的词元：“zebras”') && s.includes('“<s>”')), zh.status.join('\n'));
    // the model view names the heads' roles in Chinese (it printed learner-words' "translation" in English)
    const roles = INDEX.find((e) => e.name === 'learner-words').roles;
    const tiles = await host.page.evaluate(() => [...document.getElementById('zh').shadowRoot.querySelectorAll('.mv-tile')]
      .map((tile) => [Number(tile.dataset.layer), Number(tile.dataset.head), tile.querySelector('.mv-role').textContent]));
    assert.ok(roles.length > 0 && tiles.length > 0);
    for (const r of roles) assert.deepEqual(tiles.find(([l, h]) => l === r.layer && h === r.head), [r.layer, r.head, ROLE_NAMES.zh[r.role]], `layer ${r.layer} head ${r.head}`);
    // the known ones are not named
    assert.ok(!en.status.some((s) => s.includes('“love”')));
  } finally {
    await host.context.close();
  }
});

test('an unknown model name is an error where the reader looks, and the element still shows a result', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    const status = await host.page.evaluate(async () => {
      const el = document.getElementById('nope');
      el.scrollIntoView();
      await el.ready;
      await new Promise((resolve) => {
        const check = () => (el.shadowRoot.querySelector('.status-error') ? resolve() : setTimeout(check, 20));
        check();
      });
      return { text: el.shadowRoot.querySelector('.status-error').textContent, result: Boolean(el.result) };
    });
    assert.match(status.text, /There is no model named “no-such-model”; the models are learner-words, animal-street, induction/);
    assert.equal(status.result, true);
  } finally {
    await host.context.close();
  }
});

test('the embed code and the share link name the model and the sentence, not its weights; embed.html shows the same head', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    const c = FIXTURES[0];
    const got = await modelElement(host.page, 'c0');
    assert.match(got.embed, /model='learner-words'/);
    assert.match(got.embed, /sentence='i love you'/);
    assert.match(got.embed, /layer='2'/);
    assert.match(got.embed, /head='3'/);
    assert.doesNotMatch(got.embed, / x=| wq=| heads=| wo=/);
    const hash = await host.page.evaluate(() => document.getElementById('c0').embedCode('iframe').match(/#([^"]+)"/)[1]);
    const decoded = JSON.parse(Buffer.from(hash.slice(4), 'base64url').toString('utf8'));
    assert.equal(decoded.model, 'learner-words');
    assert.equal(decoded.x, undefined);
    assert.equal(decoded.heads, undefined);
    assert.ok(hash.length < 400, `a link of ${hash.length} characters`);
    // embed.html from that link: the same head, read from the model
    await host.page.goto(`${local.server.url}embed.html#${hash}`);
    const shown = await host.page.evaluate(async () => {
      const el = document.querySelector('attention-visualizer');
      await el.ready;
      await new Promise((resolve) => {
        const check = () => (el.state.model && el.state.x[0].length > 2 && !el.computing ? resolve() : setTimeout(check, 20));
        check();
      });
      return { weights: el.result.heads[el.state.view.head].weights, tokens: el.state.tokens };
    });
    assert.deepEqual(shown.tokens, c.tokens);
    close(shown.weights, c.weights, 'embed.html weights');
  } finally {
    await host.context.close();
  }
});

// ---- the page (dist/index.html from file://): the picker by keyboard, axe, the link ----

const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
const PAGE = `${pathToFileURL(path.resolve('dist/index.html')).href}?example=tutorial`;

async function serious(page, scope) {
  if (!await page.evaluate(() => 'axe' in globalThis)) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (scope) => {
    const report = await globalThis.axe.run({ include: scope }, { resultTypes: ['violations'] });
    return report.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
  }, scope);
}

const shownWeights = (page) => page.evaluate(() => {
  const el = document.querySelector('attention-visualizer');
  return { weights: el.result.heads[el.state.view.head].weights, state: el.state, hash: location.hash };
});
const modelRead = (page) => page.waitForFunction(() => /LayerNorm \(norm1\)/.test(document.querySelector('.status')?.textContent || '')
  && !document.querySelector('attention-visualizer').computing);

test('the page: the model picker beside the sentence, by keyboard, axe 0 serious; the link names the model and opens it again; the tutorial one choice away', async () => {
  const context = await local.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  try {
    await page.goto(PAGE);
    await page.waitForSelector('#steps .step table');
    if (await page.getAttribute('#edit-toggle', 'aria-expanded') !== 'true') await page.click('#edit-toggle');
    await page.waitForFunction(() => document.querySelectorAll('#model-picker option').length === 4);
    // beside the sentence: in its row, named by its label
    assert.equal(await page.evaluate(() => document.querySelector('#model-picker').closest('.sentence-row') === document.querySelector('#sentence').closest('.sentence-row')), true);
    assert.equal(await page.evaluate(() => document.querySelector('#model-picker').labels[0].textContent), 'Model');
    // by keyboard: Tab from the sentence's tokenizer select to the picker, ↓ chooses the first model
    await page.focus('#token-mode');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'model-picker');
    await page.keyboard.press('ArrowDown');
    await modelRead(page);
    const c = FIXTURES.find((f) => f.sentence === '我爱你'); // the tutorial's 我爱你, which learner-words knows
    let got = await shownWeights(page);
    assert.equal(got.state.model, 'learner-words');
    assert.deepEqual(got.state.tokens, c.tokens);
    close(got.weights, c.allWeights[0][0], 'the page: layer 1 head 1 of learner-words on 我爱你');
    assert.deepEqual(await serious(page, ['.model-choice']), []);
    assert.deepEqual(await serious(page, ['.predictions']), []);
    // layer 1 head 1 switched off, then the layer, by keyboard too: layer 2, head 4 by its tab
    await page.click('.head-off');
    await page.waitForSelector('.head-off[aria-pressed="true"]');
    await page.focus('#model-layer');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.layer === 1);
    await modelRead(page);
    await page.click('#view-heads .head-tab[data-head="3"]');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.view.head === 3);
    // the later layer's X and its head step by step follow the run without layer 1 head 1 (numpy's)
    const a = ABLATED.find((x) => x.model === 'learner-words');
    assert.deepEqual([a.off, a.layer, a.head], [{ layer: 0, head: 0 }, 1, 3]);
    got = await shownWeights(page);
    close(got.state.x, a.input, 'layer 2 X with layer 1 head 1 off');
    const ablatedHead = await page.evaluate(() => document.querySelector('attention-visualizer').result.heads[3]);
    for (const name of ['q', 'k', 'v', 'scores', 'weights', 'output']) close(ablatedHead[name], a[name], `layer 2 head 4 with layer 1 head 1 off: ${name}`);
    assert.ok(a.inputChange > 0.1, `numpy: the head changes layer 2's input (${a.inputChange})`);
    assert.match(await page.textContent('.status'), /This X is with layer 1 head 1 switched off/);
    assert.equal(await page.textContent('.head-off'), 'Switch layer 1 head 1 on again');
    // on again: the model's own X
    await page.click('.head-off');
    await page.waitForSelector('.head-off[aria-pressed="false"]');
    await page.waitForFunction(() => !/switched off/.test(document.querySelector('.status').textContent));
    got = await shownWeights(page);
    const head = 3;
    close(got.weights, c.allWeights[1][head], `the page: layer 2 head ${head + 1}`);
    // the link: the model by name, no weights; opened in a new page, the same head
    // (the page writes its link after a change settles)
    await page.waitForFunction(() => {
      const text = location.hash.slice(5).replace(/-/g, '+').replace(/_/g, '/');
      if (!text) return false;
      const state = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0))));
      return state.layer === 1 && state.view.head === 3;
    });
    const hash = await page.evaluate(() => location.hash.slice(1));
    const decoded = JSON.parse(Buffer.from(hash.slice(4), 'base64url').toString('utf8'));
    assert.equal(decoded.model, 'learner-words');
    assert.equal(decoded.layer, 1);
    assert.equal(decoded.x, undefined);
    const again = await context.newPage();
    await again.goto(`${PAGE}#${hash}`);
    await again.waitForSelector('#steps .step table');
    await modelRead(again);
    const opened = await shownWeights(again);
    assert.equal(opened.state.layer, 1);
    assert.equal(opened.state.view.head, head);
    close(opened.weights, c.allWeights[1][head], 'the link opened again');
    await again.close();
    // the model view under the steps: every layer × head, numpy's weights; the open head marked and
    // the one Tab reaches; ← then Enter opens layer 2 head 3, ↑ then Space layer 1 head 3, the focus kept
    assertThumbnails(await thumbnails(page, null, c.tokens.length), c, c.allWeights, 'the page\'s model view');
    const marked = async () => (await thumbnails(page, null, c.tokens.length)).filter((t) => t.current || t.tabIndex === 0).map((t) => [t.layer, t.head, t.current, t.tabIndex]);
    assert.deepEqual(await marked(), [[1, head, true, 0]]);
    const focused = () => page.evaluate(() => {
      const box = document.activeElement.closest('.mv-box');
      return box && [Number(box.dataset.layer), Number(box.dataset.head)];
    });
    await page.focus(`.model-view .mv-box[data-layer="1"][data-head="${head}"]`);
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await focused(), [1, head - 1]);
    // a head of the layer on screen: a change of view (as the head tabs), nothing computed or shown
    // anew; the softmax step's lines given the head's weights in place (not its 1 024 lines made again)
    const before = await page.evaluate(() => {
      document.querySelector('#steps .lines-view').dataset.probe = 'kept';
      return document.documentElement.dataset.renderCount;
    });
    await page.keyboard.press('Enter');
    await page.waitForFunction((h) => document.querySelector('attention-visualizer').state.view.head === h, head - 1);
    await modelRead(page);
    got = await shownWeights(page);
    assert.equal(got.state.layer, 1);
    close(got.weights, c.allWeights[1][head - 1], 'the page: layer 2 head 3, opened from its thumbnail');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.renderCount), before, 'a same-layer head switch is a change of view');
    const stepLines = await page.evaluate(() => [document.querySelector('#steps .lines-view').dataset.probe,
      ...[...document.querySelectorAll('#steps .lines-view .weight-line')].map((line) => [Number(line.dataset.q), Number(line.dataset.k), Number(line.getAttribute('stroke-opacity'))])]);
    assert.equal(stepLines.shift(), 'kept', 'the step\'s lines view updated in place');
    assert.equal(stepLines.length, c.tokens.length ** 2);
    for (const [q, k, opacity] of stepLines) assert.equal(opacity.toFixed(4), c.allWeights[1][head - 1][q][k].toFixed(4), `the step's lines [${q}][${k}]`);
    assert.deepEqual(await focused(), [1, head - 1], 'the focus stays on the thumbnail');
    await page.keyboard.press('ArrowUp');
    assert.deepEqual(await focused(), [0, head - 1]);
    await page.keyboard.press(' ');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.layer === 0);
    await modelRead(page);
    got = await shownWeights(page);
    assert.equal(got.state.view.head, head - 1);
    close(got.weights, c.allWeights[0][head - 1], 'the page: layer 1 head 3, opened from its thumbnail');
    assert.deepEqual(await focused(), [0, head - 1], 'the focus stays on the thumbnail');
    assert.deepEqual(await marked(), [[0, head - 1, true, 0]]);
    // the open head as lines: each line as strong as numpy's weight
    const lines = await page.evaluate(() => [...document.querySelectorAll('.model-view .mv-lines .weight-line')]
      .map((line) => [Number(line.dataset.q), Number(line.dataset.k), Number(line.getAttribute('stroke-opacity'))]));
    assert.equal(lines.length, c.tokens.length ** 2);
    for (const [q, k, opacity] of lines) assert.equal(opacity.toFixed(4), c.allWeights[0][head - 1][q][k].toFixed(4), `lines [${q}][${k}]`);
    assert.match(await page.textContent('.model-view .mv-lines-title'), /Layer 1 head 3/);
    assert.deepEqual(await serious(page, ['.model-view']), []);
    // the tutorial, one choice away: its hand-set vectors again
    await page.selectOption('#model-picker', '');
    await page.waitForFunction(() => !document.querySelector('attention-visualizer').state.model);
    got = await shownWeights(page);
    assert.deepEqual(got.state.tokens, ['我', '爱', '你']);
    assert.deepEqual(got.state.x, TUTORIAL.x);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the predictions: the top 5 at each position as numpy gives them; the head switched off (headsOff) changes them, as numpy without that head; the model view\'s thumbnails are every layer × head\'s weights, numpy\'s, and follow the head off', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    for (const [i, c] of FIXTURES.entries()) {
      await modelElement(host.page, `c${i}`);
      const read = (column) => host.page.evaluate(({ id, column }) => [...document.getElementById(id).shadowRoot.querySelectorAll('.predictions-table tr')].slice(1)
        .map((tr) => [...tr.children[column].querySelectorAll('.prediction')].map((li) => [li.querySelector('.prediction-token').textContent, li.querySelector('.prediction-p').textContent])), { id: `c${i}`, column });
      const shown = (rows) => rows.map((row) => row.map(([token, p]) => [token, `${(100 * p).toFixed(1)}%`]));
      assert.deepEqual(await read(1), shown(c.top5), `${c.model} “${c.sentence}”: with every head`);
      // titled from the model's mask: a causal model predicts the next token; animal-street (none) gives its task's output
      const model = JSON.parse(readFileSync(`web/models/${c.model}.json`, 'utf8'));
      assert.equal(await host.page.evaluate((id) => document.getElementById(id).shadowRoot.querySelector('.predictions-title').textContent, `c${i}`),
        model.causal ? 'What the model predicts next, at each position' : 'The model’s output at each position (its task, not the next token)');
      assert.equal(model.causal, c.model !== 'animal-street');
      assertThumbnails(await thumbnails(host.page, `c${i}`, c.tokens.length), c, c.allWeights, `${c.model} “${c.sentence}” model view`);
      assert.equal(await host.page.evaluate((id) => document.getElementById(id).shadowRoot.querySelectorAll('.predictions-table tr:first-child th').length, `c${i}`), 2);
      // switched off by keyboard: the button focused, Enter
      await host.page.evaluate((id) => document.getElementById(id).shadowRoot.querySelector('.head-off').focus(), `c${i}`);
      await host.page.keyboard.press('Enter');
      await host.page.waitForFunction((id) => document.getElementById(id).shadowRoot.querySelector('.head-off[aria-pressed="true"]'), `c${i}`);
      assert.deepEqual(await read(1), shown(c.top5), `${c.model}: the column with every head stays`);
      const off = await read(2);
      assert.deepEqual(off, shown(c.top5Off), `${c.model} “${c.sentence}”: layer ${c.layer} head ${c.head} off`);
      // the model view follows: runModel's weights with that head off (numpy's), the later layers changed
      const tiles = await thumbnails(host.page, `c${i}`, c.tokens.length);
      assertThumbnails(tiles, c, c.allWeightsOff, `${c.model} “${c.sentence}” model view, layer ${c.layer} head ${c.head} off`);
      if (c.layer + 1 < c.allWeights.length) assert.notDeepEqual(c.allWeightsOff[c.layer + 1], c.allWeights[c.layer + 1], 'numpy: a later layer changes');
      assert.notDeepEqual(c.top5Off, c.top5, 'numpy: the head matters');
      assert.equal(await host.page.evaluate((id) => document.getElementById(id).shadowRoot.activeElement?.classList.contains('head-off'), `c${i}`), true, 'the focus stays on the button');
    }
  } finally {
    await host.context.close();
  }
});

test('an author\'s own model by URL (model="./own.json", served): the head equal to numpy\'s; bad files say why in zh and en and a result stays; nothing from the file runs as markup; no other origin asked', async () => {
  const host = await openHost(local.browser, `${local.server.url}own.html`);
  try {
    const c = FIXTURES.find((f) => f.model === 'induction'); // own.json is induction.json under a title of its own
    const got = await modelElement(host.page, 'own');
    assert.deepEqual(got.state.tokens, c.tokens);
    close(got.state.x, c.input, 'own model X');
    for (const name of ['q', 'k', 'v', 'scores', 'weights', 'output']) close(got.head[name], c[name], `own model ${name}`);
    assert.ok(got.status.includes('status-note: Model: My copy of the induction model, layer 2, head 1'), got.status.join('\n'));
    // HTML in a token and in the title: text, never markup
    const html = await modelElement(host.page, 'own-html');
    const shown = await host.page.evaluate(() => {
      const root = document.getElementById('own-html').shadowRoot;
      return { tokens: [...root.querySelectorAll('.prediction-token')].map((n) => n.textContent), img: root.querySelectorAll('img, b').length, pwned: window.pwned };
    });
    assert.ok(shown.tokens.includes(HTML_TOKEN), 'the token shown as its text');
    assert.equal(shown.img, 0);
    assert.equal(shown.pwned, undefined);
    assert.ok(html.status.some((s) => s.includes('Model: <b onclick="window.pwned=2">bold</b>')), html.status.join('\n'));
    const error = (id) => host.page.evaluate(async (id) => {
      const el = document.getElementById(id);
      el.scrollIntoView();
      await el.ready;
      await new Promise((resolve) => {
        const check = () => (el.shadowRoot.querySelector('.status-error') ? resolve() : setTimeout(check, 20));
        check();
      });
      return { text: el.shadowRoot.querySelector('.status-error').textContent, result: Boolean(el.result) };
    }, id);
    const want = {
      big: 'The model file ./big.json is too large: at most 16 MB.',
      'big-zh': '模型文件 ./big.json 太大：最多 16 MB。',
      notjson: 'The model file ./notjson.json is not JSON.',
      shape: 'The model file ./shape.json is not in the model format: vocab[1] is not what the format asks for (docs/api.md, the model format).',
      origin: 'The model https://example.org/m.json was not loaded: only model files from this page’s own origin are read.',
    };
    for (const [id, text] of Object.entries(want)) assert.deepEqual(await error(id), { text, result: true }, id);
    assert.match((await error('bad-dmodel')).text, /^模型 \.\/bad-dmodel\.json 读不了（shape）：.*dModel/);
    assert.deepEqual(host.outside(), [], 'only this origin asked');
    assert.deepEqual(host.problems.filter((p) => !/Failed to load resource/.test(p)), []);
  } finally {
    await host.context.close();
  }
});

test('the page: an own model file chosen in the picker is read (numpy\'s head); a bad or too large file says why beside the picker and the model on screen stays; a URL from file:// says why', async () => {
  const context = await local.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const choose = async (name, text) => {
    if (text.length > 1e6) {
      // (a file past the bound made in the page: 16 MB through the browser's protocol took ~20 s)
      await page.evaluate(({ name, size }) => {
        const files = new DataTransfer();
        files.items.add(new File([new Uint8Array(size).fill(32)], name, { type: 'application/json' }));
        const input = document.querySelector('.model-file-input');
        input.files = files.files;
        input.dispatchEvent(new Event('change'));
      }, { name, size: text.length });
      return;
    }
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('.model-open')]);
    await chooser.setFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  };
  try {
    await page.goto(PAGE);
    await page.waitForSelector('#steps .step table');
    if (await page.getAttribute('#edit-toggle', 'aria-expanded') !== 'true') await page.click('#edit-toggle');
    await page.fill('#sentence', 'ABCDEFABCD');
    await choose('my model.json', OWN['own.json']);
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.model === 'file:my model.json');
    assert.equal(await page.evaluate(() => document.querySelector('#model-picker').selectedOptions[0].textContent), 'My copy of the induction model', 'named by its title');
    await modelRead(page);
    await page.selectOption('#model-layer', { value: '1' }); // (layer 2: the options' labels count from 1)
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.layer === 1);
    await modelRead(page);
    const c = FIXTURES.find((f) => f.model === 'induction');
    let got = await shownWeights(page);
    assert.deepEqual(got.state.tokens, c.tokens);
    close(got.weights, c.weights, 'a chosen file: layer 2 head 1');
    // bad files: said beside the picker (en), the model on screen stays
    for (const [name, text, message] of [
      ['broken.json', '{"vocab": [', 'The model file broken.json is not JSON.'],
      ['huge.json', ' '.repeat(16 * 1024 * 1024 + 1), 'The model file huge.json is too large: at most 16 MB.'],
      ['dmodel.json', OWN['bad-dmodel.json'], /^The model dmodel\.json cannot be read \(shape\): /],
    ]) {
      const before = await page.textContent('.model-error');
      await choose(name, text);
      await page.waitForFunction((before) => !document.querySelector('.model-error').hidden && document.querySelector('.model-error').textContent !== before, before);
      const shown = await page.textContent('.model-error');
      if (typeof message === 'string') assert.equal(shown, message);
      else assert.match(shown, message);
      got = await shownWeights(page);
      assert.equal(got.state.model, 'file:my model.json');
      close(got.weights, c.weights, `after ${name}: the last good result`);
    }
    assert.deepEqual(await serious(page, ['.model-choice']), []);
    // a model by URL from a page opened from file://: why not, and what to do
    const state = { version: 1, tokens: ['A', 'B'], model: './own.json', view: { step: 'softmax', lang: 'en' } };
    await page.goto(`${PAGE}#av1.${Buffer.from(JSON.stringify(state)).toString('base64url')}`);
    await page.waitForSelector('.status-error');
    assert.equal(await page.textContent('.status-error'), 'The model ./own.json was not loaded: this page was opened from file://, where the browser lets it read no file by its address. Choose the file beside “Model”, or open the page over http(s).');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
