// What each step says, on screen, in both languages, and how far the keys go:
// - every step of a state that has them all (PE, two heads, W_O, a causal
//   mask, T ≠ 1) shows its own title (i18n.js) and notes in the page's
//   language: Chinese in zh (besides symbols: formulas, tokens), none in en;
// - the temperature note says "sharper" for T < 1 and "flatter" for T > 1,
//   and the weights (computed here in plain JS) agree with what it says;
// - Left/Right reach the first and the last step, and no further, in the
//   compact element (embed.html, all steps and a `steps` subset) and on the
//   full page (index.html); Previous/Next too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { STRINGS, translate } from '../../web/src/ui/i18n.js';
import { browserAndServer } from './local.mjs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';

const local = browserAndServer(path.resolve('dist'));
const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/u;
const titleKey = (id) => `step${id[0].toUpperCase()}${id.slice(1)}Title`;

const round = (v) => Math.round(v * 100) / 100;
const grid = (rows, cols, seed) => Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (__, c) => round(Math.sin(seed + r * 7 + c * 3) * 0.9)));
const EVERY_STEP = {
  tokens: ['the', 'cat', 'sat'], x: grid(3, 4, 1),
  heads: [{ wq: grid(4, 2, 2), wk: grid(4, 2, 3), wv: grid(4, 2, 4) }, { wq: grid(4, 2, 5), wk: grid(4, 2, 6), wv: grid(4, 2, 7) }],
  wo: grid(4, 4, 8), causal: true, keyPadding: [false, false, false], temperature: 0.5, positionalEncoding: true,
};
const ALL_IDS = ['input', 'pe', 'project', 'scores', 'scale', 'softmax', 'output', 'heads', 'concat', 'wo', 'learn'];

async function embedPage(context, query = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(local.at(`embed.html${query}`));
  await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
  return { page, problems };
}

async function setState(page, state) {
  await page.evaluate((s) => { document.querySelector('attention-visualizer').state = s; }, state);
  await page.waitForFunction((step) => {
    const v = document.querySelector('attention-visualizer');
    return !v.computing && v.shadowRoot.querySelector(`.step[data-step="${step}"] .step-title`);
  }, state.view.step);
}

// The texts of the step on screen: its title, number, formula, explanation and every note, hint and legend.
const stepTexts = (page) => page.evaluate(() => {
  const step = document.querySelector('attention-visualizer').shadowRoot.querySelector('.step');
  const pick = (selector) => [...step.querySelectorAll(selector)].map((n) => n.textContent.trim()).filter(Boolean);
  return {
    id: step.dataset.step,
    title: step.querySelector('.step-title').textContent,
    num: step.querySelector('.step-num').textContent,
    words: pick(':scope > .plain, :scope > .step-note, .step-notes .step-note, :scope > .hint, .lines-view > .hint, .legend-text, .work-hint, .heat-hint, .lines-title, .compare-title'),
    formulas: pick(':scope > .formula'),
  };
});

test('every step\'s title, formula and notes on screen are in the page\'s language (zh and en)', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const { page, problems } = await embedPage(context);
    // formulas the same in both languages (tests/js/web-see-i18n.test.mjs ALLOWED)
    const sameFormulas = new Set(['stepScoresFormula', 'stepScaleFormula', 'stepOutputFormula'].map((key) => STRINGS[key].zh));
    for (const lang of ['zh', 'en']) {
      for (const [i, id] of ALL_IDS.entries()) {
        await setState(page, { ...EVERY_STEP, view: { step: id, lang, head: 0 } });
        const shown = await stepTexts(page);
        assert.equal(shown.id, id);
        assert.equal(shown.title, translate(lang, titleKey(id)), `${lang} ${id}: its title`);
        assert.equal(shown.num, translate(lang, 'stepOf', { n: i + 1, total: ALL_IDS.length }), `${lang} ${id}: its number`);
        if (lang === 'zh') assert.notEqual(shown.title, translate('en', titleKey(id)), `${id}: the Chinese title is not the English one`);
        if (id !== 'learn') assert.ok(shown.words.length > 0, `${lang} ${id}: some notes`);
        for (const text of [shown.title, ...shown.words, ...shown.formulas.filter((f) => !sameFormulas.has(f))]) {
          if (lang === 'zh') assert.match(text, CJK, `zh ${id}: “${text}” is Chinese`);
          else assert.doesNotMatch(text, CJK, `en ${id}: “${text}” is English`);
        }
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The weights of one causal head at temperature T, in plain JS from the state.
function weightsAt(state, h, temperature) {
  const mul = (a, b) => a.map((row) => b[0].map((_, c) => row.reduce((s, v, k) => s + v * b[k][c], 0)));
  const pe = state.x.map((row, pos) => row.map((v, i) => v + (i % 2 === 0 ? Math.sin : Math.cos)(pos / 10000 ** ((i - (i % 2)) / row.length))));
  const q = mul(pe, state.heads[h].wq);
  const k = mul(pe, state.heads[h].wk);
  return q.map((qr, i) => {
    const s = k.map((kr, j) => (j > i ? -Infinity : qr.reduce((a, v, d) => a + v * kr[d], 0) / Math.sqrt(qr.length) / temperature));
    const max = Math.max(...s);
    const e = s.map((v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / sum);
  });
}
const peak = (weights) => weights.reduce((a, row) => a + Math.max(...row), 0) / weights.length;

test('the temperature note: "sharper" below 1, "flatter" above 1, as the weights are', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  const words = {
    en: { sharper: /sharp|peak|concentrat/i, flatter: /flat|even|uniform|spread/i },
    // 更平均 (more even), not 平均 alone: the notes also say 平均是 (the mean is) of the row maxima
    zh: { sharper: /集中|尖锐|尖/, flatter: /更平均|平缓|均匀|平坦/ },
  };
  try {
    const { page, problems } = await embedPage(context);
    for (const lang of ['en', 'zh']) {
      for (const temperature of [0.5, 0.25, 2, 5]) {
        await setState(page, { ...EVERY_STEP, temperature, view: { step: 'scale', lang, head: 0 } });
        const { words: notes } = await stepTexts(page);
        const about = notes.filter((text) => text.includes(String(temperature)) && /T/.test(text));
        assert.equal(about.length, 1, `${lang} T = ${temperature}: one note names the temperature: ${JSON.stringify(notes)}`);
        // what the numbers do: a larger mean row maximum is sharper
        const sharper = peak(weightsAt(EVERY_STEP, 0, temperature)) > peak(weightsAt(EVERY_STEP, 0, 1));
        assert.equal(sharper, temperature < 1, 'the plain-JS weights: a lower temperature sharpens');
        const [says, never] = sharper ? ['sharper', 'flatter'] : ['flatter', 'sharper'];
        assert.match(about[0], words[lang][says], `${lang} T = ${temperature}: “${about[0]}” says ${says}`);
        assert.doesNotMatch(about[0], words[lang][never], `${lang} T = ${temperature}: “${about[0]}” does not say ${never}`);
      }
      // T = 1: no temperature note at all
      await setState(page, { ...EVERY_STEP, temperature: 1, view: { step: 'scale', lang, head: 0 } });
      const { words: plain } = await stepTexts(page);
      assert.ok(plain.every((text) => !words[lang].sharper.test(text) && !words[lang].flatter.test(text)), `${lang} T = 1: ${JSON.stringify(plain)}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// Compact element: the step ids its diagram offers, in order, and the one on screen.
const compactSteps = (page) => page.evaluate(() => {
  const root = document.querySelector('attention-visualizer').shadowRoot;
  const ids = [...new Set([...root.querySelectorAll('.pipeline-stage')].map((g) => g.dataset.step))];
  return { ids, current: root.querySelector('.step')?.dataset.step, state: document.querySelector('attention-visualizer').state.view.step };
});

// Walks the compact element's steps `ids` with the keys (one at a time when
// stepwise, checking each) and with Previous/Next.
async function walkCompact(page, label, { ids = null, stepwise = true } = {}) {
  ids ||= (await compactSteps(page)).ids;
  assert.ok(ids.length >= 3, `${label}: steps ${ids}`);
  await page.locator('attention-visualizer [data-focus-id="next"]').focus();
  const at = async (i, how) => {
    await page.waitForFunction((id) => document.querySelector('attention-visualizer').shadowRoot.querySelector('.step')?.dataset.step === id, ids[i], { timeout: 3000 })
      .catch(() => {});
    const now = await compactSteps(page);
    assert.equal(now.current, ids[i], `${label}: after ${how}, step ${ids[i]} on screen`);
    // (a state's step that the element does not offer shows its first step, until a key moves it)
    if (ids.includes(now.state) || i !== 0) assert.equal(now.state, ids[i], `${label}: after ${how}, the state's step`);
  };
  const press = async (key, times, to, how, each = stepwise) => {
    for (let i = 1; i <= times; i++) {
      await page.keyboard.press(key);
      if (each) await at(key === 'ArrowRight' ? Math.min(i, ids.length - 1) : Math.max(ids.length - 1 - i, 0), `${how} ×${i}`);
    }
    await at(to, how);
  };
  await press('ArrowLeft', ids.length, 0, 'Left to the start', false); // from wherever it was
  await press('ArrowRight', ids.length, ids.length - 1, 'Right to the end and once more');
  await press('ArrowLeft', ids.length, 0, 'Left to the start and once more');
  // the buttons: Next until it is disabled ends on the last step, Previous on the first
  const next = page.locator('attention-visualizer [data-focus-id="next"]');
  for (let i = 0; i < ids.length + 1 && !(await next.isDisabled()); i++) await next.click();
  await at(ids.length - 1, 'Next until disabled');
  const prev = page.locator('attention-visualizer [data-focus-id="prev"]');
  for (let i = 0; i < ids.length + 1 && !(await prev.isDisabled()); i++) await prev.click();
  await at(0, 'Previous until disabled');
}

test('keys and buttons reach the first and the last step: compact element (embed.html), all steps and a subset', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const { page, problems } = await embedPage(context);
    await walkCompact(page, 'embed.html');
    await setState(page, { ...EVERY_STEP, view: { step: 'scores', lang: 'en', head: 0 } });
    assert.deepEqual((await compactSteps(page)).ids, ALL_IDS);
    await walkCompact(page, 'embed.html, every step', { stepwise: false });
    const subset = await embedPage(context, '?steps=scores,scale,softmax');
    await walkCompact(subset.page, 'embed.html?steps=scores,scale,softmax', { ids: ['scores', 'scale', 'softmax'] });
    assert.deepEqual([...problems, ...subset.problems], []);
  } finally {
    await context.close();
  }
});

// Walks the full page's steps with the keys (from the step's position line) and Next.
async function walkFull(page, label, minimum) {
  const ids = await page.evaluate(() => [...new Set([...document.querySelectorAll('#pipeline .pipeline-stage')].map((g) => g.dataset.step))]);
  assert.ok(ids.length >= minimum, `${label}: steps ${ids}`);
  const shown = () => page.evaluate(() => ({
    steps: [...document.querySelectorAll('#steps > li.step')].map((li) => li.dataset.step),
    state: document.querySelector('attention-visualizer').state.view.step,
  }));
  const at = async (i, how) => {
    await page.waitForFunction((id) => [...document.querySelectorAll('#steps > li.step')].map((li) => li.dataset.step).join() === id, ids[i], { timeout: 3000 }).catch(() => {});
    assert.deepEqual(await shown(), { steps: [ids[i]], state: ids[i] }, `${label}: after ${how}`);
  };
  await page.locator('#step-position').click();
  for (let i = 0; i < ids.length; i++) await page.keyboard.press('ArrowLeft');
  await at(0, 'Left to the start');
  for (let i = 1; i < ids.length; i++) await page.keyboard.press('ArrowRight');
  await at(ids.length - 1, 'Right to the end');
  await page.keyboard.press('ArrowRight');
  await at(ids.length - 1, 'Right past the end');
  assert.equal(await page.isDisabled('#next'), true, `${label}: Next is off on the last step`);
  for (let i = 1; i < ids.length; i++) await page.keyboard.press('ArrowLeft');
  await at(0, 'Left to the start');
  assert.equal(await page.isDisabled('#prev'), true, `${label}: Previous is off on the first step`);
  for (let i = 0; i < ids.length + 1 && !(await page.isDisabled('#next')); i++) await page.click('#next');
  await at(ids.length - 1, 'Next until disabled');
  for (let i = 0; i < ids.length + 1 && !(await page.isDisabled('#prev')); i++) await page.click('#prev');
  await at(0, 'Previous until disabled');
  return ids;
}

test('keys and buttons reach the first and the last step: the full page (index.html), its tutorial and a state with every step', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(local.at('index.html?example=tutorial'));
    await page.waitForSelector('#steps .step table');
    await walkFull(page, 'full page', 7);
    // a link of a state with every step (PE, two heads, W_O): the walk reaches learn, past W_O
    const every = await context.newPage();
    every.on('pageerror', (error) => problems.push(error.message));
    await every.goto(local.at(`index.html#${encodeHash({ ...tutorialState('en'), ...EVERY_STEP, view: { step: 'scores', head: 0, lang: 'en', decimals: 4 } })}`));
    await every.waitForSelector('#steps .step table');
    assert.deepEqual(await walkFull(every, 'full page, every step', ALL_IDS.length), ALL_IDS);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the lines view on screen: each line from its query\'s token to its key\'s, as strong as numpy\'s weight; a focused query lists its weights', async () => {
  const { cross } = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
  const weights = cross.result.heads[0].weights;
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const { page, problems } = await embedPage(context);
    await setState(page, {
      tokens: cross.tokens, x: cross.x, heads: cross.heads, context: { tokens: cross.keyTokens, x: cross.c },
      keyPadding: cross.options.keyPadding, causal: false, temperature: 1, positionalEncoding: false, view: { step: 'softmax', lang: 'en', head: 0, decimals: 4 },
    });
    const drawn = await page.evaluate(() => {
      const view = document.querySelector('attention-visualizer').shadowRoot.querySelector('.lines-view');
      const svg = view.querySelector('svg.lines-svg').getBoundingClientRect();
      const middle = (node) => { const r = node.getBoundingClientRect(); return r.top + r.height / 2; };
      return {
        queries: [...view.querySelectorAll('.lines-queries button')].map((b) => ({ text: b.textContent, y: middle(b) })),
        keys: [...view.querySelectorAll('.lines-keys .lines-key')].map((k) => ({ text: k.querySelector('.lines-key-text').textContent, y: middle(k) })),
        lines: [...view.querySelectorAll('line')].map((l) => ({
          y1: svg.top + l.y1.baseVal.value * (svg.height / l.ownerSVGElement.viewBox.baseVal.height),
          y2: svg.top + l.y2.baseVal.value * (svg.height / l.ownerSVGElement.viewBox.baseVal.height),
          opacity: Number(l.getAttribute('stroke-opacity')), width: Number(l.getAttribute('stroke-width')),
        })),
      };
    });
    assert.deepEqual(drawn.queries.map((q) => q.text), cross.tokens);
    assert.deepEqual(drawn.keys.map((k) => k.text), cross.keyTokens);
    assert.equal(drawn.lines.length, cross.tokens.length * cross.keyTokens.length);
    const nearest = (list, y) => list.reduce((best, item, i) => (Math.abs(item.y - y) < Math.abs(list[best].y - y) ? i : best), 0);
    const seen = new Set();
    for (const line of drawn.lines) {
      const i = nearest(drawn.queries, line.y1);
      const j = nearest(drawn.keys, line.y2);
      assert.ok(Math.abs(drawn.queries[i].y - line.y1) < 4 && Math.abs(drawn.keys[j].y - line.y2) < 4, `a line's ends at its tokens: ${JSON.stringify(line)}`);
      assert.ok(!seen.has(`${i},${j}`), `one line ${i} → ${j}`);
      seen.add(`${i},${j}`);
      assert.ok(Math.abs(line.opacity - weights[i][j]) <= 5e-5, `${cross.tokens[i]} → ${cross.keyTokens[j]}: opacity ${line.opacity}, weight ${weights[i][j]}`);
    }
    // thicker for a larger weight
    const byWeight = drawn.lines.map((line) => line.width).map((width, k) => [weights[Math.floor(k / cross.keyTokens.length)][k % cross.keyTokens.length], width]).sort((a, b) => a[0] - b[0]);
    for (let k = 1; k < byWeight.length; k++) assert.ok(byWeight[k][1] >= byWeight[k - 1][1], 'a larger weight is not thinner');
    // a focused query writes its row's weights next to the keys
    for (const i of [0, 2]) {
      await page.locator(`attention-visualizer .lines-queries button[data-q="${i}"]`).click();
      const written = await page.evaluate(() => [...document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('.lines-keys .lines-weight')].map((s) => Number(s.textContent)));
      written.forEach((w, j) => assert.ok(Math.abs(w - weights[i][j]) <= 5e-5 + 1e-12, `query ${i}, key ${j}: wrote ${w}, numpy ${weights[i][j]}`));
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
