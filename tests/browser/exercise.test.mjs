// Exercises (issue 38). el.check(cell, value) names the mistake numpy computed for each wrong value
// (tests/fixtures/check_cases.json, made by tests/make_check_fixtures.py), for a cell or a whole
// row, and sends an `answer` event (bubbles, composed) with its detail; on the page a learner reaches
// "Check my answer" from a cell with the keyboard, types a value and reads the verdict, the likely
// mistake and its value beside the right one, in zh and en, axe finding nothing serious.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { browserAndServer } from './local.mjs';
import { waitForSteps } from './ui.mjs';
import { TUTORIAL_EXPECTED } from '../js/fixtures.mjs';
import { cellColor, rgbCss } from '../../web/src/ui/color.js';

const DIST = path.resolve('dist');
const local = browserAndServer(DIST);
const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/check_cases.json', import.meta.url), 'utf8'));
// "Guess first"'s answers, numpy's (tests/make_guess_fixtures.py)
const GUESS = JSON.parse(readFileSync(new URL('../fixtures/guess_cases.json', import.meta.url), 'utf8'));

// The element's attributes for an engine input of the fixtures.
function attributesOf(input) {
  const a = { lang: 'en', tokens: JSON.stringify(input.x.map((_, i) => `t${i + 1}`)), x: JSON.stringify(input.x) };
  if (input.heads) a.heads = JSON.stringify(input.heads);
  else Object.assign(a, { wq: JSON.stringify(input.wq), wk: JSON.stringify(input.wk), wv: JSON.stringify(input.wv) });
  if (input.wo) a.wo = JSON.stringify(input.wo);
  if (input.causal) a.causal = '';
  if (input.temperature !== undefined) a.temperature = String(input.temperature);
  return a;
}

// Each fixture's wrong values told apart from the others (as tests/js/web-check.test.mjs skips them).
function distinctMistakes(c) {
  const all = Object.entries(c.mistakes).flatMap(([code, values]) => values.map((value) => ({ code, value })));
  return all.filter(({ code, value }, index) => {
    const typed = Number(value.toFixed(6));
    const near = (v) => Math.abs(v - typed) <= 5e-7 + 1e-15;
    return !near(c.expected) && !all.some((other, k) => k !== index && other.code !== code && near(other.value));
  }).map(({ code, value }) => ({ code, value, typed: value.toFixed(6) }));
}

async function openEmbed(locale = 'en-US') {
  const context = await local.browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(local.at('embed.html?lang=en'));
  await page.waitForFunction(() => document.querySelector('attention-visualizer')?.result);
  return { context, page, problems };
}

test('el.check names the mistake numpy computed for each wrong value, for each case of the fixtures', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    const groups = new Map(); // the cases of one input, checked on one element
    for (const c of cases) {
      const key = JSON.stringify(c.input);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push({ cell: c.cell, expected: c.expected, mistakes: distinctMistakes(c) });
    }
    let checked = 0;
    const codes = new Set();
    for (const [key, group] of groups) {
      const results = await page.evaluate(async ({ attributes, group }) => {
        const el = document.createElement('attention-visualizer');
        for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
        document.body.append(el);
        await el.ready;
        const out = group.map(({ cell, expected, mistakes }) => ({
          right: el.check(cell, expected.toFixed(6)),
          wrong: mistakes.map(({ typed }) => el.check(cell, typed)),
        }));
        el.remove();
        return out;
      }, { attributes: attributesOf(JSON.parse(key)), group });
      group.forEach(({ cell, expected, mistakes }, g) => {
        const where = `${JSON.stringify(cell)}`;
        assert.equal(results[g].right.correct, true, `${where} right`);
        assert.equal(results[g].right.mistake, null);
        mistakes.forEach(({ code, value, typed }, k) => {
          const r = results[g].wrong[k];
          assert.equal(r.correct, false, `${where} ${code} ${typed}`);
          assert.equal(r.mistake, code, `${where} ${code} ${typed}: ${r.explanation.en}`);
          assert.ok(Math.abs(r.wrong - value) <= 1e-12, `${where} ${code}: its value ${r.wrong}, numpy ${value}`);
          assert.ok(Math.abs(r.expected - expected) <= 1e-12, `${where}: the true value ${r.expected}, numpy ${expected}`);
          assert.ok(r.explanation.zh && r.explanation.en);
          codes.add(code);
          checked += 1;
        });
      });
    }
    assert.ok(checked > 100, `${checked} wrong values checked`);
    for (const code of ['misprint', 'transposed', 'no-scaling', 'scaled-by-dk', 'column-softmax', 'wrong-cell', 'term-slip', 'rounded-early']) {
      assert.ok(codes.has(code), `${code} checked through the element`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('el.check of a whole row, the answer event (bubbling, composed, the same detail) and bad arguments', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    const misprint = cases.find((c) => c.case === 'tutorial' && c.cell.matrix === 'weights' && c.cell.row === 0 && c.cell.column === 0);
    const trueRow = TUTORIAL_EXPECTED.weights[0];
    const out = await page.evaluate(async ({ trueRow, printed }) => {
      // inside a shadow root: the event still reaches the document (composed)
      const host = document.createElement('div');
      document.body.append(host);
      const el = document.createElement('attention-visualizer');
      el.setAttribute('lang', 'en');
      host.attachShadow({ mode: 'open' }).append(el);
      await el.ready;
      const heard = [];
      document.addEventListener('answer', (event) => heard.push({ target: event.target === host, bubbles: event.bubbles, composed: event.composed, detail: event.detail }));
      const row = el.check({ matrix: 'weights', row: 0 }, trueRow.map((v) => v.toFixed(4)).join(', '));
      const wrongRow = el.check({ matrix: 'weights', row: 0 }, [printed.toFixed(8), trueRow[1].toFixed(8), trueRow[2].toFixed(8)]);
      const errors = [];
      for (const args of [[{ matrix: 'weights', row: 0 }, '0.3 0.3'], [{ matrix: 'weights', row: 0, column: 0 }, 'abc'], [{ matrix: 'nope', row: 0, column: 0 }, '1'], [{ matrix: 'weights', row: 9, column: 0 }, '1']]) {
        try {
          el.check(...args);
          errors.push(null);
        } catch (error) {
          errors.push(error.code);
        }
      }
      return { row, wrongRow, heard, errors };
    }, { trueRow, printed: misprint.mistakes.misprint[0] });
    assert.equal(out.row.correct, true, out.row.explanation.en);
    assert.equal(out.row.explanation.en, 'All 3 numbers of the row are right.');
    out.row.expected.forEach((v, j) => assert.ok(Math.abs(v - trueRow[j]) <= 1e-12));
    assert.equal(out.wrongRow.correct, false);
    assert.equal(out.wrongRow.mistake, 'misprint');
    assert.deepEqual(out.wrongRow.cells.map((c) => c.correct), [false, true, true]);
    assert.match(out.wrongRow.explanation.en, /^1 of the row’s 3 numbers is not right\. The first: Not quite: Weights\[我, 我\]/);
    assert.match(out.wrongRow.explanation.zh, /^这一行 3 个数里有 1 个不对。/);
    assert.equal(out.heard.length, 2, 'one answer event per check, none for a refused one');
    for (const [i, e] of out.heard.entries()) {
      assert.deepEqual([e.target, e.bubbles, e.composed], [true, true, true]);
      assert.deepEqual(e.detail, i === 0 ? out.row : out.wrongRow);
    }
    assert.deepEqual(out.errors, ['row_length', 'not_number', 'unknown_matrix', 'range']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// Runs axe on `include` (injected from the file): its critical and serious violations.
async function serious(page, include) {
  if (!await page.evaluate(() => 'axe' in globalThis)) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (scope) => {
    const report = await globalThis.axe.run({ include: scope }, { resultTypes: ['violations'] });
    return report.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious').map((v) => `${v.id}: ${JSON.stringify(v.nodes[0].target)}`);
  }, include);
}

// The page's "Guess first" (views/guess.js) from its button, by keyboard, on the weights' step.
async function guessOnThePage(page, lang, theme) {
  // "Guess first", turned on by keyboard: the weights hidden, the question reached with Tab, answered with the arrows
  await page.focus('#guess');
  await page.keyboard.press('Enter');
  await page.locator('li[data-step="softmax"] .guess').waitFor();
  assert.equal(await page.getAttribute('#guess', 'aria-pressed'), 'true');
  assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.guess), true, 'in the state (the link, the embed code)');
  assert.match(await page.evaluate(() => document.querySelector('attention-visualizer').embedCode('element')), /\n {2}guess\n/);
  assert.equal(await page.locator('table.matrix[data-matrix="Weights"] td[data-r="0"][data-c="1"]').innerText(), '?');
  for (let tabs = 0; tabs < 60 && !(await page.evaluate(() => document.activeElement.matches('.guess input'))); tabs++) await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  const verdict = page.locator('li[data-step="softmax"] .guess-verdict');
  await verdict.waitFor();
  const w = GUESS.cases[0].answers.softmax.values;
  assert.equal(await verdict.innerText(), lang === 'en'
    ? `Not this time: you chose “你”. The row’s largest weight is 我’s, ${w[0].toFixed(4)}.`
    : `这次没猜中：你选的是“你”。这一行最大的权重是 我 的 ${w[0].toFixed(4)}。`);
  assert.deepEqual(await serious(page, ['li[data-step="softmax"] .guess', '#guess']), [], `${lang} ${theme} 375: axe of the guess`);
  // the next step asks its own question
  await page.click('#next');
  await page.locator('li[data-step="output"] .guess legend').waitFor();
}

test('the page: from a cell, Tab to "Check my answer", type, Enter: the verdict, the mistake and the right value, in zh and en', async () => {
  for (const [lang, locale] of [['en', 'en-US'], ['zh', 'zh-CN']]) {
    for (const theme of ['light', 'dark']) {
      const context = await local.browser.newContext({ locale, colorScheme: theme, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      try {
        await page.goto(local.at('index.html?example=tutorial'));
        await waitForSteps(page);
        await page.evaluate(() => {
          window.answers = [];
          document.addEventListener('answer', (event) => window.answers.push(event.detail));
        });
        const form = page.locator('li[data-step="softmax"] .check-answer');
        assert.equal(await form.isHidden(), true, 'no form before a cell is explained');
        await page.locator('li[data-step="softmax"] table.matrix[data-matrix="Weights"] td[data-r="0"][data-c="0"]').focus();
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => ({ cls: document.activeElement.className, label: document.activeElement.labels[0]?.textContent }));
        assert.equal(focused.cls, 'check-input', 'Tab from the cell reaches the answer box');
        assert.match(focused.label, lang === 'en' ? /^Your value for Weights\[我, 我\]/ : /^你算出的 Weights\[我, 我\]/);
        // the tutorial's printed value: named as its misprint, with the true one beside it
        const printed = cases.find((c) => c.case === 'tutorial' && c.cell.matrix === 'weights' && c.cell.row === 0 && c.cell.column === 0);
        await page.keyboard.type(printed.mistakes.misprint[0].toFixed(8));
        await page.keyboard.press('Enter');
        const result = form.locator('.check-result');
        await result.locator('.check-verdict').waitFor();
        const text = await result.innerText();
        assert.match(text, lang === 'en' ? /Not quite: Weights\[我, 我\] is 0\.33569311 to 8 decimals; you wrote 0\.33614837\./ : /不对：Weights\[我, 我\] 保留 8 位小数是 0\.33569311，你写的是 0\.33614837。/);
        assert.match(await result.locator('.check-likely').innerText(), lang === 'en' ? /tutorial’s misprint\s+0\.33614837/ : /教程印错的数\s+0\.33614837/);
        assert.match(await result.locator('.check-expected').innerText(), new RegExp(printed.expected.toFixed(8).replace('.', '\\.')));
        assert.equal(await result.getAttribute('role'), 'status');
        assert.deepEqual(await serious(page, ['li[data-step="softmax"] .check-answer']), [], `${lang} ${theme}: axe`);
        await page.screenshot({ path: `/tmp/shots-exercise/check-${lang}-${theme}-1280.png` });
        // to the decimals written: 0.34 is right; the whole row typed is checked as a row
        await page.keyboard.press('Control+A');
        await page.keyboard.type('0.34');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => window.answers.length === 2);
        assert.match(await result.innerText(), lang === 'en' ? /^Right: Weights\[我, 我\] is 0\.34 to the 2 decimals you wrote\./ : /^对了：/);
        await page.keyboard.press('Control+A');
        await page.keyboard.type(TUTORIAL_EXPECTED.weights[0].map((v) => v.toFixed(3)).join(' '));
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => window.answers.length === 3);
        assert.match(await result.innerText(), lang === 'en' ? /All 3 numbers of the row are right/ : /整行 3 个数都对了/);
        const answers = await page.evaluate(() => window.answers);
        assert.deepEqual(answers.map((a) => [a.correct, a.mistake]), [[false, 'misprint'], [true, null], [true, null]]);
        // not a number: said where the learner is looking, nothing thrown
        await page.keyboard.press('Control+A');
        await page.keyboard.type('zero point three');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => document.querySelector('li[data-step="softmax"] .check-refused'));
        assert.match(await result.innerText(), lang === 'en' ? /is not a number/ : /不是一个数/);
        await page.setViewportSize({ width: 375, height: 800 });
        await page.locator('li[data-step="softmax"] .check-input').scrollIntoViewIfNeeded();
        await page.keyboard.press('Control+A');
        await page.keyboard.type('0.3361');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => window.answers.length === 4);
        await page.screenshot({ path: `/tmp/shots-exercise/check-${lang}-${theme}-375.png` });
        assert.deepEqual(await serious(page, ['li[data-step="softmax"] .check-answer']), [], `${lang} ${theme} 375: axe`);
        // "Guess first" in en light and zh dark: both languages and themes, half the time (screenshots of all four apart)
        if ((lang === 'en') === (theme === 'light')) await guessOnThePage(page, lang, theme);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  }
});

// "Guess first" of the element (guess attribute): each step's result "?" until the reader picks an
// answer (arrow keys in the radio group, Tab, Enter) and reveals it; the verdict numpy's numbers.
test('guess: each step asks first, its result hidden; the verdict says right or wrong with the real numbers, in en and zh', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    const f = (v) => v.toFixed(4);
    const tokens = GUESS.tokens;
    const [tutorial, cooler, unscaled] = GUESS.cases.map((c) => c.answers);
    const SCALE = ['shrinks', 'grows', 'same', 'other'];
    const steps = [
      { step: 'project', hides: ['Q', 'K', 'V'], choose: tutorial.project.best, verdict: `Right: you chose “${tokens[tutorial.project.best]}”. The longest query is ${tokens[tutorial.project.best]}’s: ‖q‖ = ${f(tutorial.project.values[tutorial.project.best])}.` },
      { step: 'scores', hides: ['Scores'], choose: 1, verdict: `Not this time: you chose “爱”. The row’s largest score is ${tokens[tutorial.scores.best]}’s, ${f(tutorial.scores.values[tutorial.scores.best])}.` },
      { step: 'scale', hides: ['Scaled'], choose: SCALE.indexOf(tutorial.scale.truth), verdict: `Right: you chose “The same key stays the largest; the row’s spread (largest − smallest) shrinks”. In Scores the row’s largest is 我’s, ${f(tutorial.scale.top0)}, its spread ${f(tutorial.scale.spread0)}; in Scaled the largest is 我’s, ${f(tutorial.scale.top1)}, its spread ${f(tutorial.scale.spread1)}.` },
      { step: 'softmax', hides: ['Weights'], choose: 1, verdict: `Not this time: you chose “爱”. The row’s largest weight is ${tokens[tutorial.softmax.best]}’s, ${f(tutorial.softmax.values[tutorial.softmax.best])}.`, values: tutorial.softmax.values },
      { step: 'output', hides: ['Output'], choose: tutorial.output.best, verdict: `Right: you chose “${tokens[tutorial.output.best]}”. The farthest is ${tokens[tutorial.output.best]}’s: ‖Output − v‖ = ${f(tutorial.output.values[tutorial.output.best])}.`, values: tutorial.output.values },
    ];
    const av = page.locator('attention-visualizer');
    const answer = async (choose) => {
      await av.locator('.guess input').first().focus();
      await page.keyboard.press('Space'); // the first chosen, then the arrows move the choice
      for (let i = 0; i < choose; i++) await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Tab');
      assert.equal((await focusOf(page)).cls, 'guess-reveal');
      await page.keyboard.press('Enter');
      await av.locator('.guess-verdict').waitFor();
      return av.locator('.guess-result').innerText();
    };
    await exerciseElement(page, { lang: 'en', guess: '', step: 'project' });
    for (const { step, hides, choose, verdict, values } of steps) {
      await page.evaluate((step) => document.querySelector('attention-visualizer').setAttribute('step', step), step);
      const li = av.locator(`li[data-step="${step}"]`);
      await li.locator('.guess').waitFor();
      for (const name of hides) {
        const cells = await li.locator(`table.matrix[data-matrix="${name}"] td[data-r]`).allInnerTexts();
        assert.ok(cells.length > 0 && cells.every((text) => text === '?'), `${step}: ${name} hidden (${cells})`);
      }
      if (values) {
        const text = await li.innerText();
        for (const v of values) assert.ok(!text.includes(f(v)), `${step}: ${f(v)} not on screen before the guess`);
      }
      const tools = av.locator('details.av-tools');
      const exportOf = async (name, button = 'Download') => {
        if (!(await tools.evaluate((node) => node.open))) await tools.locator('summary').click();
        if (button === 'Download') await tools.locator('select[aria-label]').first().selectOption(name);
        await tools.getByRole('button', { name: button, exact: true }).click();
      };
      if (step === 'scale') { // its choices are sentences: one under another, their radios in one column
        const lefts = await li.locator('.guess-option').evaluateAll((labels) => labels.map((label) => Math.round(label.getBoundingClientRect().left)));
        assert.equal(new Set(lefts).size, 1, `the scale step's choices in one column (${lefts})`);
      }
      if (step === 'softmax') {
        assert.deepEqual(await serious(page, ['attention-visualizer']), [], 'axe, before the guess');
        // the export panel: no file of the step's weights (nor of their lines view) before the guess, said why
        await exportOf('Weights');
        await av.locator('.av-message.error', { hasText: 'Weights waits for your guess in step 5 (Softmax: attention weights): choose an answer' }).waitFor();
        await exportOf('Weights', 'Lines view SVG');
        await av.locator('.av-message.error', { hasText: 'Weights waits for your guess in step 5' }).waitFor();
      }
      const said = await answer(choose);
      assert.ok(said.startsWith(verdict), `${step}: ${said}`);
      if (values) assert.match(said, new RegExp(values.map((v, i) => `${tokens[i]} ${f(v)}`).join(' · ')));
      const shown = await li.locator(`table.matrix[data-matrix="${hides[0]}"] td[data-r="0"][data-c="0"]`).innerText();
      assert.notEqual(shown, '?', `${step}: revealed`);
      assert.equal((await focusOf(page)).cls, 'guess-result', 'the focus on the verdict');
      if (step === 'softmax') { // revealed: exported; the output, a step ahead, still waits
        const download = page.waitForEvent('download');
        await exportOf('Weights');
        assert.equal((await download).suggestedFilename(), 'Weights.csv');
        await exportOf('Output');
        await av.locator('.av-message.error', { hasText: 'Output waits for your guess in step 6 (' }).waitFor();
      }
    }
    assert.deepEqual(await serious(page, ['attention-visualizer']), [], 'axe, after the guess');
    // the scale step's other answers, from numpy: T = 0.5 spreads the row, no ÷√d_k leaves it
    for (const [attributes, scale, choice] of [[{ temperature: '0.5' }, cooler.scale, 'grows'], [{ 'scale-by-sqrt-dk': 'false' }, unscaled.scale, 'same']]) {
      assert.equal(scale.truth, choice);
      await exerciseElement(page, { lang: 'en', guess: '', step: 'scale', ...attributes });
      const said = await answer(SCALE.indexOf(choice));
      assert.match(said, new RegExp(`^Right: .* in Scaled the largest is 我’s, ${f(scale.top1)}, its spread ${f(scale.spread1)}\\.`));
    }
    // in Chinese, at 375 px
    await page.setViewportSize({ width: 375, height: 800 });
    await exerciseElement(page, { lang: 'zh', guess: '', step: 'softmax' });
    assert.equal(await av.locator('.guess legend').innerText(), '“我”这一行最关注哪个键（权重最大）？');
    await av.locator('details.av-tools summary').click();
    await av.locator('details.av-tools').getByRole('button', { name: '下载', exact: true }).click();
    await av.locator('.av-message.error', { hasText: 'Weights 要等你在第 5 步（softmax：注意力权重）先猜一猜' }).waitFor();
    await av.locator('details.av-tools summary').click(); // closed again: the guess's panel in sight below
    await av.locator('.guess').scrollIntoViewIfNeeded();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375, 'no sideways scroll');
    const said = await answer(tutorial.softmax.best);
    assert.ok(said.startsWith(`猜对了：你选的是“我”。这一行最大的权重是 我 的 ${f(tutorial.softmax.values[0])}。`), said);
    assert.deepEqual(await serious(page, ['attention-visualizer']), [], 'axe, zh 375');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The element's own (shadow) focus: the class and label of what has it.
const focusOf = (page) => page.evaluate(() => {
  const active = document.querySelector('attention-visualizer').shadowRoot.activeElement;
  return active ? { cls: active.className, label: active.labels?.[0]?.textContent ?? active.textContent } : null;
});

async function exerciseElement(page, attributes) {
  await page.evaluate(async (attributes) => {
    document.body.replaceChildren();
    const el = document.createElement('attention-visualizer');
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    document.body.append(el);
    await el.ready;
    window.answers = [];
    el.addEventListener('answer', (event) => window.answers.push(event.detail));
  }, attributes);
}

// Every text and attribute in the element's shadow root that holds one of `needles`: [where, what].
const leaks = (page, needles) => page.evaluate((needles) => {
  const found = [];
  const walk = (root) => {
    for (const node of root.querySelectorAll('*')) {
      const own = [...node.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join('');
      const where = `${node.closest('[data-step]')?.dataset.step || '-'} ${node.tagName.toLowerCase()}.${node.getAttribute('class') || ''}`;
      for (const needle of needles) {
        if (own.includes(needle)) found.push([where, own.slice(0, 120)]);
        for (const a of node.attributes) if (a.value.includes(needle)) found.push([`${where}[${a.name}]`, a.value.slice(0, 120)]);
      }
      if (node.shadowRoot) walk(node.shadowRoot);
    }
  };
  walk(document.querySelector('attention-visualizer').shadowRoot);
  return found;
}, needles);

test('exercise="weights[1]": the asked weights appear in no step, view, panel or export until filled in; a wrong value does not give the right one', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    const row = TUTORIAL_EXPECTED.weights[1]; // numpy's
    const needles = row.flatMap((v) => [v.toFixed(4), v.toFixed(8), v.toPrecision(8)]);
    // every step at once: the output's, How it learns (its weights, lines and gradients), the export panel
    await exerciseElement(page, { lang: 'en', exercise: 'weights[1]', step: 'all' });
    const av = page.locator('attention-visualizer');
    await av.locator('li[data-step="learn"] .exercise-wait').waitFor();
    await page.waitForFunction(() => !document.querySelector('attention-visualizer').shadowRoot.querySelector('[data-pending]'));
    assert.deepEqual(await leaks(page, needles), []);
    assert.match(await av.locator('li[data-step="learn"]').textContent(), /Finish the “Fill in” of the steps above first/);
    // Scores asked: Scaled (Scores ÷ √d_k, which gives them back at once) waits too, and says why
    await exerciseElement(page, { lang: 'en', exercise: 'scores[0]', step: 'all' });
    await page.waitForFunction(() => !document.querySelector('attention-visualizer').shadowRoot.querySelector('[data-pending]'));
    const scaled = TUTORIAL_EXPECTED.scaled[0].slice(0, 2).flatMap((v) => [v.toFixed(4), v.toFixed(8), v.toPrecision(8)]);
    assert.deepEqual(await leaks(page, scaled), []);
    const waiting = av.locator('li[data-step="scale"] table.matrix[data-matrix="Scaled"] td[data-r="0"][data-c="1"]');
    assert.equal(await waiting.innerText(), '?');
    await waiting.focus();
    assert.match(await av.locator('li[data-step="scale"] .work').innerText(), /^Scaled\[我, 爱\] is made from Scores\[我, 爱\] at once/);
    // the colours: a signed matrix is coloured to its largest |value| left out of the blanks, so the
    // other cells' shades do not tell the blank's size (each blank here is its matrix's largest, numpy's)
    await exerciseElement(page, { lang: 'en', exercise: 'q[2][1],scores[2][2],output[0][0]', step: 'all' });
    await page.waitForFunction(() => !document.querySelector('attention-visualizer').shadowRoot.querySelector('[data-pending]'));
    const painted = await page.evaluate(() => [...document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('li.step table.matrix')]
      .filter((table) => ['Q', 'Scores', 'Scaled', 'Output'].includes(table.dataset.matrix))
      .map((table) => ({
        name: `${table.closest('li').dataset.step} ${table.dataset.matrix}`,
        cells: [...table.querySelectorAll('td[data-r]')].map((td) => ({ blank: td.classList.contains('blank'), value: td.dataset.value, background: td.style.backgroundColor })),
      })));
    assert.deepEqual(painted.map(({ name }) => name), ['project Q', 'scores Q', 'scores Scores', 'scale Scores', 'scale Scaled', 'softmax Scaled', 'output Output']);
    for (const { name, cells } of painted) {
      const open = cells.filter((cell) => !cell.blank);
      assert.equal(open.length, cells.length - 1, `${name}: one blank`);
      const magnitude = Math.max(...open.map((cell) => Math.abs(Number(cell.value))));
      assert.deepEqual(open.map((cell) => cell.background), open.map((cell) => rgbCss(cellColor('signed', Number(cell.value), magnitude))), `${name}: coloured without its blank`);
    }
    await exerciseElement(page, { lang: 'en', exercise: 'weights[1]', step: 'all' });
    await av.locator('li[data-step="learn"] .exercise-wait').waitFor();
    // the export panel: no file of the weights (nor of the lines view), said why; V is still exported
    await av.locator('details.av-tools summary').click();
    await av.locator('details.av-tools').getByRole('button', { name: 'Download', exact: true }).click();
    await av.locator('.av-message.error', { hasText: 'Weights still has 3 cells for you to compute' }).waitFor();
    await av.locator('details.av-tools').getByRole('button', { name: 'Lines view SVG' }).click();
    await av.locator('.av-message.error', { hasText: 'Weights still has 3 cells' }).waitFor();
    const download = page.waitForEvent('download');
    await av.locator('details.av-tools select[aria-label]').first().selectOption('V');
    await av.locator('details.av-tools').getByRole('button', { name: 'Download', exact: true }).click();
    assert.equal((await download).suggestedFilename(), 'V.csv');
    assert.deepEqual(await leaks(page, needles), []);
    // a wrong value under "Fill in": its mistake named, the right value not said
    const wrong = cases.find((c) => c.case === 'tutorial' && c.cell.matrix === 'weights' && c.cell.row === 1 && c.cell.column === 2);
    const box = av.locator('.exercise-cell').nth(2);
    await box.locator('input').fill(wrong.mistakes['no-scaling'][0].toFixed(4));
    await box.locator('input').press('Enter');
    await box.locator('.check-likely').waitFor();
    assert.match(await box.locator('.exercise-result').innerText(), /^Not yet: Weights\[爱, 你\] is not 0\.\d{4} to 4 decimals\. Without the division by √d_k/);
    assert.equal(await box.locator('.check-expected').count(), 0);
    assert.deepEqual(await leaks(page, needles), []);
    // filled in (the answers shown): the weights are everywhere again
    for (let c = 0; c < 3; c++) {
      for (let i = 0; i < 3; i++) await av.locator('.exercise-cell').nth(c).locator('.exercise-hint-button').click();
    }
    await av.locator('li[data-step="learn"] .exercise-wait').waitFor({ state: 'detached' });
    assert.ok((await leaks(page, [row[0].toFixed(4)])).length > 3);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('exercise="weights[1]": the blanks hide their numbers; a reader fills them in by keyboard alone, hints in order', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    await exerciseElement(page, { lang: 'en', exercise: 'weights[1]', step: 'softmax' });
    const av = page.locator('attention-visualizer');
    const weights = av.locator('table.matrix[data-matrix="Weights"]');
    const cellText = (r, c) => weights.locator(`td[data-r="${r}"][data-c="${c}"]`).innerText();
    const row = TUTORIAL_EXPECTED.weights[1];
    for (let c = 0; c < 3; c++) {
      assert.equal(await cellText(1, c), '?');
      assert.equal(await weights.locator(`td[data-r="1"][data-c="${c}"]`).getAttribute('data-value'), '');
      assert.equal(await cellText(0, c), TUTORIAL_EXPECTED.weights[0][c].toFixed(4));
    }
    const stepText = await av.locator('li[data-step="softmax"]').innerText();
    for (const v of row) assert.ok(!stepText.includes(v.toFixed(4)), `${v.toFixed(4)} is nowhere in the step`);
    assert.equal(await av.locator('li[data-step="softmax"] .lines-view').count(), 0, 'the lines view waits for the blanks');
    // the work of a blank asks for it; the output's work writes "?" for the blank weights it uses
    await weights.locator('td[data-r="1"][data-c="0"]').focus();
    assert.match(await av.locator('li[data-step="softmax"] .work').innerText(), /Weights\[爱, 我\] is yours to compute/);
    assert.equal(await av.locator('li[data-step="softmax"] .check-answer').isHidden(), true);

    // keyboard only: Tab from the cell to the first blank's box
    let focus = null;
    for (let i = 0; i < 30 && focus?.cls !== 'exercise-input'; i++) {
      await page.keyboard.press('Tab');
      focus = await focusOf(page);
    }
    assert.equal(focus.label, 'Weights[爱, 我]');
    await page.keyboard.type(row[0].toFixed(4));
    await page.keyboard.press('Enter');
    await av.locator('.exercise-count', { hasText: '1 of 3 done' }).waitFor();
    assert.equal(await cellText(1, 0), row[0].toFixed(4), 'a right value fills its cell in');
    assert.equal((await focusOf(page)).cls, 'exercise-input', 'the focus stays in the box');
    // the next blank: Check, then the next box (the done cell's hint is disabled)
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.deepEqual(await focusOf(page), { cls: 'exercise-input', label: 'Weights[爱, 爱]' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.match((await focusOf(page)).label, /^Hint 1 of 3$/);
    const result = av.locator('.exercise-cell').nth(1).locator('.exercise-result');
    await page.keyboard.press('Enter');
    assert.match(await result.innerText(), /^The formula:\n+Weights\[爱, 爱\] = exp\(s − max\) \/ Σ exp\(s − max\)$/);
    assert.match((await focusOf(page)).label, /^Hint 2 of 3$/);
    await page.keyboard.press('Enter');
    const hinted = await result.innerText();
    assert.match(hinted, /The work of another cell, Weights\[我, 爱\]:/, 'hint 2: the nearest cell not asked');
    assert.ok(hinted.includes(`= ${TUTORIAL_EXPECTED.weights[0][1].toFixed(4)}`), hinted);
    assert.ok(!hinted.includes(row[1].toFixed(4)), 'the hints before the answer do not give it');
    assert.match((await focusOf(page)).label, /^Show the answer$/);
    await page.keyboard.press('Enter');
    await av.locator('.exercise-count', { hasText: '2 of 3 done' }).waitFor();
    assert.match(await result.innerText(), new RegExp(`The answer: Weights\\[爱, 爱\\] = ${row[1].toFixed(4)} \\(${row[1].toPrecision(8)}\\)`));
    assert.equal(await cellText(1, 1), row[1].toFixed(4));
    assert.equal((await focusOf(page)).cls, 'exercise-input', 'the disabled hint hands its focus to the box');
    // the last: the value without ÷√d_k (numpy's) is named as that mistake, then the right one
    const wrong = cases.find((c) => c.case === 'tutorial' && c.cell.matrix === 'weights' && c.cell.row === 1 && c.cell.column === 2);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.deepEqual(await focusOf(page), { cls: 'exercise-input', label: 'Weights[爱, 你]' });
    await page.keyboard.type(wrong.mistakes['no-scaling'][0].toFixed(4));
    await page.keyboard.press('Enter');
    const last = av.locator('.exercise-cell').nth(2).locator('.exercise-result');
    await last.locator('.check-likely').waitFor();
    assert.match(await last.innerText(), /Without the division by √d_k/);
    assert.equal(await cellText(1, 2), '?');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(row[2].toFixed(6));
    await page.keyboard.press('Enter');
    await av.locator('.exercise-count', { hasText: '3 of 3 done' }).waitFor();
    assert.equal(await cellText(1, 2), row[2].toFixed(4));
    await av.locator('li[data-step="softmax"] .lines-view').waitFor(); // every blank filled: the views are back
    const answers = await page.evaluate(() => window.answers.map((a) => [a.cell.row, a.cell.column, a.correct, a.mistake]));
    assert.deepEqual(answers, [[1, 0, true, null], [1, 2, false, 'no-scaling'], [1, 2, true, null]]);
    assert.deepEqual(await serious(page, ['attention-visualizer']), []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the exercise attribute: read as canonical text, in the state, the share link, the embed code and the iframe; a bad one is said', async () => {
  const { context, page, problems } = await openEmbed();
  try {
    await exerciseElement(page, { lang: 'en', exercise: 'Weights[0][0], output[2][1]', step: 'output' });
    const av = page.locator('attention-visualizer');
    const out = await page.evaluate(() => {
      const el = document.querySelector('attention-visualizer');
      return { state: el.state.exercise, element: el.embedCode('element'), iframe: el.embedCode('iframe') };
    });
    assert.equal(out.state, 'weights[0][0],output[2][1]');
    assert.match(out.element, /exercise='weights\[0\]\[0\],output\[2\]\[1\]'/);
    assert.equal(await av.locator('table.matrix[data-matrix="Output"] td[data-r="2"][data-c="1"]').innerText(), '?');
    // the output's work uses Weights[我, 我], a blank: "?" there and in what is made from it
    await av.locator('table.matrix[data-matrix="Output"] td[data-r="0"][data-c="0"]').focus();
    const work = await av.locator('li[data-step="output"] .work').innerText();
    assert.match(work, /\?/);
    assert.ok(!work.includes(TUTORIAL_EXPECTED.weights[0][0].toFixed(4)), work);
    // the iframe's src: embed.html with the state in its hash
    const src = /src="([^"]+)"/.exec(out.iframe)[1].replace(/&amp;/g, '&');
    const frame = await context.newPage();
    assert.match(src, /embed\.html.*#av1\./);
    await frame.goto(new URL(src, local.at('embed.html')).href);
    await frame.waitForFunction(() => document.querySelector('attention-visualizer')?.result);
    assert.equal(await frame.evaluate(() => document.querySelector('attention-visualizer').state.exercise), 'weights[0][0],output[2][1]');
    assert.equal(await frame.locator('attention-visualizer table.matrix[data-matrix="Output"] td[data-r="2"][data-c="1"]').innerText(), '?');
    // the page, from a share link with the exercise
    const { encodeHash } = await import('../../web/src/state/link.js');
    const { tutorialState } = await import('../../web/src/state/presets.js');
    const state = { ...tutorialState('zh'), exercise: 'weights[1]', view: { ...tutorialState('zh').view, step: 'softmax' } };
    await frame.goto(`${local.at('index.html')}#${encodeHash(state)}`);
    await waitForSteps(frame);
    assert.equal(await frame.locator('li[data-step="softmax"] table.matrix[data-matrix="Weights"] td[data-r="1"][data-c="1"]').innerText(), '?');
    assert.match(await frame.locator('li[data-step="softmax"] .exercise').innerText(), /^动手填一填/);
    await frame.screenshot({ path: '/tmp/shots-exercise/exercise-page-zh-1280.png' });
    // a value that does not read: said in the element, no blanks
    await exerciseElement(page, { lang: 'en', exercise: 'weights[x]', step: 'softmax' });
    assert.match(await av.locator('.status').innerText(), /“exercise” has “weights\[x\]”, which is none of/);
    assert.equal(await av.locator('td.blank').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
