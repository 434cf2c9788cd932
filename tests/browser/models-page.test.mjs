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

const FIXTURES = JSON.parse(readFileSync('tests/fixtures/model_page_cases.json', 'utf8')).cases;
const DIR = pageFolder('models-page', ['attention-visualizer.js', 'embed.html', 'embed.css', 'embed.js', 'style.css', 'models']);
const local = {};
const attr = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

// one element per fixture case, by its attributes alone (layer and head from 1, as on screen)
const elements = FIXTURES.map((c, i) => `<attention-visualizer id="c${i}" lang="en" model="${c.model}" sentence="${attr(c.sentence)}" layer="${c.layer + 1}" head="${c.head + 1}" step="softmax"></attention-visualizer>`);
writeFileSync(path.join(DIR, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">'
  + `<script src="attention-visualizer.js"></script></head><body>${elements.join('\n')}`
  + '<attention-visualizer id="zh" lang="zh" model="learner-words" sentence="I love zebras"></attention-visualizer>'
  + '<attention-visualizer id="nope" lang="en" model="no-such-model" sentence="I love you"></attention-visualizer></body></html>\n');

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

// the element's state and result once its model is read (its tokens the model's)
async function modelElement(page, id) {
  return page.evaluate(async (id) => {
    const el = document.getElementById(id);
    el.scrollIntoView();
    await el.ready;
    await new Promise((resolve) => {
      // read with its model: X named as the layer's input
      const check = () => (/LayerNorm/.test(el.shadowRoot.querySelector('.status').textContent) && !el.computing ? resolve() : setTimeout(check, 20));
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
    // the layer, by keyboard too: layer 2, head 4 by its tab
    await page.focus('#model-layer');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.layer === 1);
    await modelRead(page);
    await page.click('#view-heads .head-tab[data-head="3"]');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.view.head === 3);
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

test('the predictions: the top 5 at each position as numpy gives them; the head switched off (headsOff) changes them, as numpy without that head', async () => {
  const host = await openHost(local.browser, local.server.url);
  try {
    for (const [i, c] of FIXTURES.entries()) {
      await modelElement(host.page, `c${i}`);
      const read = (column) => host.page.evaluate(({ id, column }) => [...document.getElementById(id).shadowRoot.querySelectorAll('.predictions-table tr')].slice(1)
        .map((tr) => [...tr.children[column].querySelectorAll('.prediction')].map((li) => [li.querySelector('.prediction-token').textContent, li.querySelector('.prediction-p').textContent])), { id: `c${i}`, column });
      const shown = (rows) => rows.map((row) => row.map(([token, p]) => [token, `${(100 * p).toFixed(1)}%`]));
      assert.deepEqual(await read(1), shown(c.top5), `${c.model} “${c.sentence}”: with every head`);
      assert.equal(await host.page.evaluate((id) => document.getElementById(id).shadowRoot.querySelectorAll('.predictions-table tr:first-child th').length, `c${i}`), 2);
      // switched off by keyboard: the button focused, Enter
      await host.page.evaluate((id) => document.getElementById(id).shadowRoot.querySelector('.head-off').focus(), `c${i}`);
      await host.page.keyboard.press('Enter');
      await host.page.waitForFunction((id) => document.getElementById(id).shadowRoot.querySelector('.head-off[aria-pressed="true"]'), `c${i}`);
      assert.deepEqual(await read(1), shown(c.top5), `${c.model}: the column with every head stays`);
      const off = await read(2);
      assert.deepEqual(off, shown(c.top5Off), `${c.model} “${c.sentence}”: layer ${c.layer} head ${c.head} off`);
      assert.notDeepEqual(c.top5Off, c.top5, 'numpy: the head matters');
      assert.equal(await host.page.evaluate((id) => document.getElementById(id).shadowRoot.activeElement?.classList.contains('head-off'), `c${i}`), true, 'the focus stays on the button');
    }
  } finally {
    await host.context.close();
  }
});
