// Browser tests of the presets on the built page (dist/): each preset's
// weights on the softmax step show the pattern tests/make_preset_fixtures.py
// checked with numpy ("it" → "animal", the previous token, the same word),
// its note in both languages, the near-uniform hint only where the weights
// are near-uniform, and the tutorial's misprints folded into a <details> on
// the tutorial's numbers alone; the heads grid's tiles, named by their
// tokens, with the values on hover, focus and tap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';

const local = browserAndServer(path.resolve('dist'));
const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/preset_cases.json', import.meta.url), 'utf8'));
const NOTES = {
  tutorial: { en: /every attention weight is between 0\.\d+ and 0\.\d+, close to 1\/3/, zh: /每个注意力权重都在 0\.\d+ 到 0\.\d+ 之间，接近 1\/3/ },
  english: { en: /The tutorial’s numbers with English tokens/, zh: /教程的数字配上英文词元/ },
  animal: { en: /Look at row “it” of the attention weights: its largest weight, 0\.\d+, is on “animal”/, zh: /it 这一行：最大的权重 0\.\d+ 在 animal 上/ },
  previous: { en: /largest weight to the token before it/, zh: /最大的权重给它前面那个词元/ },
  same: { en: /every copy of its own word/, zh: /同一个词的每一次出现/ },
};

async function openPage(locale) {
  const context = await local.browser.newContext({ locale });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(local.at('index.html?example=tutorial'));
  await waitForSteps(page);
  await openEditor(page);
  return { context, page, problems };
}

async function showSoftmax(page, preset) {
  await page.click(`[data-preset="${preset}"]`);
  await openStep(page, 5);
  await page.waitForSelector('#step-5[data-step="softmax"] table[data-matrix="Weights"]');
}

// The weights on screen, from the full values in the cells' data-value.
function readWeights(page) {
  return page.$$eval('#step-5 table[data-matrix="Weights"] tbody tr', (rows) => rows.map(
    (tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value)),
  ));
}

test('each preset shows its pattern on the softmax step, its note, and the misprints only on the tutorial\'s numbers', async () => {
  const { context, page, problems } = await openPage('en-US');
  try {
    for (const [name, expected] of Object.entries(FIXTURE.presets)) {
      await showSoftmax(page, name);
      assert.equal(await page.getAttribute(`[data-preset="${name}"]`, 'aria-current'), 'true', name);
      assert.equal(await page.locator('[data-preset][aria-current]').count(), 1);
      const weights = await readWeights(page);
      assert.equal(weights.length, expected.tokens.length, name);
      assert.deepEqual(await page.$$eval('#step-5 table[data-matrix="Weights"] tbody th', (ths) => ths.map((th) => th.textContent)), expected.tokens);
      for (const [r, largest] of expected.rows) {
        const row = weights[r];
        const top = Math.max(...row);
        for (const c of largest) assert.ok(top - row[c] <= 1e-12, `${name} row ${r}: key ${c} has the largest weight`);
        const others = row.filter((_, c) => !largest.includes(c));
        assert.ok(Math.min(...largest.map((c) => row[c])) - Math.max(...others) >= FIXTURE.margin, `${name} row ${r}`);
      }
      assert.match(await page.textContent('#preset-note'), NOTES[name].en);
      assert.match(await page.textContent('#step-5 .preset-note'), NOTES[name].en);
      const tutorialNumbers = name === 'tutorial' || name === 'english';
      assert.equal(await page.locator('#step-5 .near-uniform').count(), tutorialNumbers ? 1 : 0, `${name}: hint`);
      assert.equal(await page.locator('#step-5 details.misprint').count(), tutorialNumbers ? 1 : 0, `${name}: misprint`);
      if (tutorialNumbers) {
        // one line, closed, the last thing of the step; opened, the printed and the true digits
        assert.equal(await page.$eval('#step-5', (li) => li.lastElementChild.matches('details.misprint:not([open])')), true);
        await page.click('#step-5 details.misprint summary');
        assert.equal(await page.isVisible('#step-5 .misprint del >> nth=0'), true);
        assert.equal(await page.textContent('#step-5 .misprint del >> nth=0'), '0.33614837');
      }
    }

    // "it" → "animal", read off the page
    await showSoftmax(page, 'animal');
    const tokens = FIXTURE.presets.animal.tokens;
    const row = (await readWeights(page))[tokens.indexOf('it')];
    const order = [...row.keys()].sort((a, b) => row[b] - row[a]);
    assert.equal(tokens[order[0]], 'animal');
    assert.ok(row[order[0]] - row[order[1]] >= 0.2);

    // the legend says which scale the colours use
    assert.match(await page.textContent('#step-5 .legend >> nth=1'), /Weights is the weight itself, from 0 to 1, on one scale for every row/);
    assert.equal(await page.locator('#overview').getAttribute('aria-pressed'), 'false');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the notes in Chinese; the misprints on steps 4 to 6 of the tutorial only', async () => {
  const { context, page, problems } = await openPage('zh-CN');
  try {
    for (const name of Object.keys(FIXTURE.presets)) {
      await showSoftmax(page, name);
      assert.match(await page.textContent('#preset-note'), NOTES[name].zh);
      assert.match(await page.textContent('#step-5 .preset-note'), NOTES[name].zh);
    }
    await page.click('#overview');
    await page.click('[data-preset="tutorial"]');
    assert.deepEqual(await page.$$eval('details.misprint', (all) => all.map((d) => d.closest('li.step').dataset.step)), ['scale', 'softmax', 'output']);
    assert.match(await page.textContent('#step-5 .misprint summary'), /教程这一步印出的八位小数有误/);
    assert.match(await page.textContent('#step-5 .near-uniform'), /分数彼此很接近.*调低温度/);
    for (const name of ['animal', 'previous', 'same']) {
      await page.click(`[data-preset="${name}"]`);
      assert.equal(await page.locator('details.misprint').count(), 0, name);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a lower temperature removes the near-uniform hint and the note follows it; an edited number removes the note', async () => {
  const { context, page, problems } = await openPage('en-US');
  try {
    await showSoftmax(page, 'tutorial');
    assert.match(await page.textContent('#step-5 .near-uniform'), /scores are close together.*lower temperature/);
    await page.fill('#temperature', '0.1');
    await page.waitForFunction(() => !document.querySelector('#step-5 .near-uniform'));
    assert.match(await page.textContent('#step-5 .preset-note'), /not all close to 1\/3/);
    assert.equal(await page.locator('details.misprint').count(), 0, 'the printed digits are for T = 1');
    await page.fill('#temperature', '1');
    await showSoftmax(page, 'animal');
    await page.fill('#editor-wk input[data-r="0"][data-c="0"]', '3');
    await page.waitForFunction(() => document.querySelector('#preset-note').textContent === '');
    assert.equal(await page.locator('#step-5 .preset-note').count(), 0);
    assert.equal(await page.locator('[data-preset][aria-current]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The cells' full values of a matrix of a step (data-value).
function readMatrix(page, step, name) {
  return page.$$eval(`#step-${step} table[data-matrix="${name}"] tbody tr`, (rows) => rows.map(
    (tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value)),
  ));
}

// Types a temperature and waits for its result on screen.
async function setTemperature(page, t) {
  const count = await page.evaluate(() => Number(document.documentElement.dataset.renderCount));
  await page.fill('#temperature', String(t));
  await page.waitForFunction((n) => Number(document.documentElement.dataset.renderCount) > n, count);
}

const fixed = (v) => v.toFixed(4); // the page's default decimals

test('the "What to look at" hint is computed from the weights on screen after a temperature change, not left stale', async () => {
  const { context, page, problems } = await openPage('en-US');
  try {
    const hint = () => page.textContent('#step-5 .preset-note');
    // the tutorial at T = 1: the range it names is the weights' own
    await showSoftmax(page, 'tutorial');
    let w = (await readWeights(page)).flat();
    assert.match(await hint(), new RegExp(`between ${fixed(Math.min(...w))} and ${fixed(Math.max(...w))}, close to 1/3`));
    // T = 0.1: a weight is 0.599; the hint no longer says every weight is close to 1/3
    await setTemperature(page, 0.1);
    w = (await readWeights(page)).flat();
    assert.ok(Math.max(...w) > 0.55);
    assert.doesNotMatch(await hint(), /every attention weight is/);
    assert.match(await hint(), new RegExp(`not all close to 1/3: they run from ${fixed(Math.min(...w))} to ${fixed(Math.max(...w))}, the largest 你 → 你`));
    assert.match(await page.textContent('#preset-note'), /not all close to 1\/3/, 'the editor\'s note says the same');

    // "it" at T = 20: animal 0.103 against 0.091 does not stand out
    await setTemperature(page, 1);
    await showSoftmax(page, 'animal');
    await setTemperature(page, 20);
    const tokens = FIXTURE.presets.animal.tokens;
    const row = (await readWeights(page))[tokens.indexOf('it')];
    const order = [...row.keys()].sort((a, b) => row[b] - row[a]);
    assert.ok(row[order[0]] < 1.5 * row[order[1]]);
    assert.doesNotMatch(await hint(), /its largest weight/);
    assert.match(await hint(), new RegExp(`no key stands out now — “${tokens[order[0]]}” has ${fixed(row[order[0]])}, “${tokens[order[1]]}” ${fixed(row[order[1]])}`));

    // the temperature's note on step 4: a row's largest weight on average, now and at T = 1
    await openStep(page, 4);
    await page.waitForSelector('#step-4 table[data-matrix="Scaled"]');
    const scaled = await readMatrix(page, 4, 'Scaled');
    await openStep(page, 5);
    const weights = await readWeights(page);
    const mean = (rows) => rows.reduce((a, r) => a + Math.max(...r), 0) / rows.length;
    const atOne = scaled.map((r) => {
      const e = r.map((v) => Math.exp(v * 20));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / sum);
    });
    await openStep(page, 4);
    assert.match(await page.textContent('#step-4'), new RegExp(`T = 20 > 1: .* largest weight is ${fixed(mean(weights))} on average, against ${fixed(mean(atOne))} at T = 1`));

    // a causal mask no longer hides the note of "the previous token": it still holds, with the numbers on screen
    await setTemperature(page, 1);
    await showSoftmax(page, 'previous');
    await page.check('#causal');
    await page.waitForFunction(() => /or more, against at most/.test(document.querySelector('#step-5 .preset-note')?.textContent || ''));
    // the tutorial under the causal mask: the range is that of the weights not masked (a masked one is 0 whatever the scores)
    await showSoftmax(page, 'tutorial');
    await page.check('#causal');
    await page.waitForSelector('#step-5 td.masked');
    const open = await page.$$eval('#step-5 table[data-matrix="Weights"] td[data-r]:not(.masked)', (tds) => tds.map((td) => Number(td.dataset.value)));
    assert.match(await hint(), new RegExp(`not all close to 1/3: they run from ${fixed(Math.min(...open))} to 1\\.0000`));
    assert.ok(Math.min(...open) > 0.3);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the footer names the example actually loaded, not always the 我爱你 sentence', async () => {
  for (const [locale, expected] of [
    ['en-US', { tutorial: /“我爱你”.*tutorial/, animal: 'The example is the preset “What “it” refers to”.', own: 'The example is your own: “the big dog”, 3 tokens.' }],
    ['zh-CN', { tutorial: /“我爱你”二维向量例子/, animal: '例子是示例“it 指的是谁”。', own: '例子是你自己的：“the big dog”，3 个词元。' }],
  ]) {
    const { context, page, problems } = await openPage(locale);
    try {
      const footer = () => page.textContent('#footer-example');
      assert.match(await footer(), expected.tutorial);
      await page.click('[data-preset="animal"]');
      await page.waitForFunction((text) => document.querySelector('#footer-example').textContent === text, expected.animal);
      await page.selectOption('#token-mode', 'space');
      await page.fill('#sentence', 'the big dog');
      await page.waitForFunction((text) => document.querySelector('#footer-example').textContent === text, expected.own);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('heads grid: tiles labelled with the tokens, a weight on hover, arrow keys and tap, a button that opens the head', async () => {
  const context = await local.browser.newContext({ locale: 'en-US', hasTouch: true });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  try {
    await page.goto(local.at('index.html?example=tutorial'));
    await waitForSteps(page);
    await openEditor(page);
    await page.click('[data-preset="animal"]');
    await page.fill('#heads', '2');
    await openStep(page, 7);
    const tile = '#steps [data-step="heads"] .head-tile[data-head="0"]';
    await page.waitForSelector(tile);
    await page.waitForFunction(() => !document.documentElement.hasAttribute('data-computing'));
    await page.locator(tile).scrollIntoViewIfNeeded();
    const { tokens, weights } = FIXTURE.presets.animal;
    assert.deepEqual(await page.$$eval(`${tile} .head-queries li`, (lis) => lis.map((li) => li.textContent)), tokens);
    assert.deepEqual(await page.$$eval(`${tile} .head-keys li`, (lis) => lis.map((li) => li.textContent)), tokens);
    const it = tokens.indexOf('it');
    const animal = tokens.indexOf('animal');
    const expected = `it → animal: ${weights[it][animal].toFixed(4)}`;

    // hover: the cell under the pointer
    const box = await page.locator(`${tile} .head-box`).boundingBox();
    const at = (r, c) => [box.x + ((c + 0.5) / tokens.length) * box.width, box.y + ((r + 0.5) / tokens.length) * box.height];
    await page.mouse.move(...at(it, animal));
    assert.equal(await page.textContent(`${tile} .head-readout`), expected);
    // a tap
    await page.touchscreen.tap(...at(animal, it));
    assert.equal(await page.textContent(`${tile} .head-readout`), `animal → it: ${weights[animal][it].toFixed(4)}`);
    // keyboard: the heatmap takes focus, the arrows walk its cells
    const second = '#steps [data-step="heads"] .head-tile[data-head="1"]';
    await page.focus(`${second} .head-box`);
    assert.match(await page.textContent(`${second} .head-readout`), /^The → The: 0\.\d{4}$/);
    for (let i = 0; i < it; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.textContent(`${second} .head-readout`), /^it → animal: 0\.\d{4}$/);

    // the button says what it does, and does it
    assert.equal(await page.textContent(`${second} .head-open`), 'Open head 2 in the steps');
    await page.click(`${second} .head-open`);
    assert.equal(await page.getAttribute('#steps > li', 'data-step'), 'softmax');
    assert.match(await page.textContent('#steps [data-step="softmax"] caption'), /head 2/);
  } finally {
    await context.close();
  }
});
