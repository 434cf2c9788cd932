// The element's events, counted per action (docs/authoring.md): `ready` once,
// when the first result is on screen; `change` (detail {state}) once after
// every edit, drag (when let go), undo, redo, import, preset and step change,
// its state the element's state then; `computed` once after each edit's
// result is on screen; `replace` (detail {state}) once before a whole state
// chosen in the element (a preset, a state file) replaces the one on screen,
// while the element still shows the old one, and never for an edit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserAndServer } from './local.mjs';
import { PRESETS, tutorialState } from '../../web/src/state/presets.js';
import { LEARNED } from '../../web/src/state/learned-data.js';
import { validateState } from '../../web/src/state/schema.js';
import { tokenize } from '../../web/src/io/tokenize.js';

const local = browserAndServer(path.resolve('dist'));
const TYPES = ['ready', 'change', 'computed', 'replace'];
const el = 'attention-visualizer';

// Before any script of the page: every event of TYPES that reaches the element, in order,
// with its detail's state and the element's own state at that moment.
function recordEvents(types) {
  window.seen = [];
  for (const type of types) {
    window.addEventListener(type, (event) => {
      if (event.target?.localName !== 'attention-visualizer') return;
      window.seen.push({ type, detail: event.detail ? JSON.stringify(event.detail.state) : null, now: JSON.stringify(event.target.state) });
    }, true);
  }
}

// `url` (under dist/) in a new English context, every event of TYPES recorded from before its
// scripts run, once the element has its first result: the page, its page errors, the element's
// state, and take(): the events since the last take, once the element is idle and two more
// frames have passed (a late duplicate would be seen).
async function openRecorded(url) {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.addInitScript(recordEvents, TYPES);
    await page.goto(local.at(url));
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
    const state = () => page.evaluate(() => document.querySelector('attention-visualizer').state);
    const take = async () => {
      await page.waitForFunction(() => !document.querySelector('attention-visualizer').computing);
      await page.evaluate(() => new Promise((resolve) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(resolve)), 150)));
      return page.evaluate(() => window.seen.splice(0).map((e) => ({ ...e, detail: JSON.parse(e.detail), now: JSON.parse(e.now) })));
    };
    return { context, page, problems, state, take };
  } catch (error) {
    await context.close();
    throw error;
  }
}

test('events: once per edit, drag, undo, redo, import, preset and step change, with the documented detail', async () => {
  const { context, page, problems, state, take } = await openRecorded('embed.html?editable=&lang=en');
  try {
    const count = (events) => Object.fromEntries(TYPES.map((type) => [type, events.filter((e) => e.type === type).length]));
    const load = await take();
    assert.equal(count(load).ready, 1, 'ready once at load');
    assert.ok(load.findIndex((e) => e.type === 'ready') >= 0);

    // each change's detail is the element's state as it is then, and as it stays
    const checkChange = async (events, label) => {
      const changes = events.filter((e) => e.type === 'change');
      const now = await state();
      for (const c of changes) assert.deepEqual(c.detail, c.now, `${label}: change's detail.state is the element's state`);
      assert.deepEqual(changes[changes.length - 1].detail, now, `${label}: the last change's state is the state on screen`);
    };
    const expectOnce = async (label, action, { computed = 1, replace = 0 } = {}) => {
      await action();
      const events = await take();
      const counted = count(events);
      assert.deepEqual(counted, { ready: 0, change: 1, computed, replace }, `${label}: events ${JSON.stringify(events.map((e) => e.type))}`);
      await checkChange(events, label);
      return events;
    };

    const cell = (field, r, c) => page.locator(`${el} section[data-field="${field}"] input[data-r="${r}"][data-c="${c}"]`);
    const x00 = (await state()).x[0][0];
    // an edit: one change, one computed
    await expectOnce('edit X[0][0]', () => cell('x', 0, 0).fill('0.9'));
    assert.equal((await state()).x[0][0], 0.9);
    // undo (the button) and redo (the keys)
    await expectOnce('undo (button)', () => page.locator(`${el} #undo`).click());
    assert.equal((await state()).x[0][0], x00);
    await page.locator(`${el} #fill-random`).focus();
    await expectOnce('redo (Ctrl+Shift+Z)', () => page.keyboard.press('Control+Shift+Z'));
    assert.equal((await state()).x[0][0], 0.9);
    await expectOnce('undo (Ctrl+Z)', () => page.keyboard.press('Control+z'));
    assert.equal((await state()).x[0][0], x00);
    await expectOnce('redo (Ctrl+Y)', () => page.keyboard.press('Control+y'));

    // a drag of a number: one change when let go, whatever it computed on the way
    await cell('x', 0, 1).scrollIntoViewIfNeeded();
    await take(); // (the scroll settled)
    const box = await cell('x', 0, 1).boundingBox();
    const before = (await state()).x[0][1];
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 30, box.y + box.height / 2, { steps: 3 });
    const during = await take();
    assert.equal(count(during).change, 0, 'no change during the drag');
    await page.mouse.up();
    const dragged = [...during, ...(await take())];
    assert.equal(count(dragged).change, 1, `drag: one change: ${JSON.stringify(dragged.map((e) => e.type))}`);
    assert.ok(count(dragged).computed >= 1 && count(dragged).replace === 0 && count(dragged).ready === 0, 'drag: computed, no replace');
    await checkChange(dragged, 'drag');
    assert.notEqual((await state()).x[0][1], before, 'the drag moved the number');

    // a preset: replace (before, while the old state is on screen), then one change and one computed
    const old = await state();
    const preset = await expectOnce('preset', () => page.locator(`${el} [data-preset="english"]`).click(), { replace: 1 });
    const replace = preset.find((e) => e.type === 'replace');
    assert.ok(preset.indexOf(replace) < preset.findIndex((e) => e.type === 'change'), 'replace comes before change');
    assert.deepEqual(replace.detail.tokens, ['I', 'love', 'you'], 'replace: detail.state is the preset chosen');
    assert.deepEqual(replace.now.tokens, old.tokens, 'replace: the old state is still on screen');
    assert.deepEqual((await state()).tokens, ['I', 'love', 'you']);
    await expectOnce('undo the preset', () => page.locator(`${el} #undo`).click());
    assert.deepEqual((await state()).tokens, old.tokens);

    // imports: a state file replaces the whole state; a matrix file is an edit
    await page.evaluate(() => { document.querySelector('attention-visualizer').shadowRoot.querySelector('details.av-tools').open = true; });
    const file = page.locator(`${el} input[type="file"][data-focus-id="import-file"]`);
    const imported = { ...old, tokens: ['a', 'b', 'c'], view: { ...old.view, step: 'output' } };
    const events = await expectOnce('import a state file', () => file.setInputFiles({ name: 'state.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(imported)) }), { replace: 1 });
    assert.deepEqual(events.find((e) => e.type === 'replace').detail.tokens, ['a', 'b', 'c']);
    await expectOnce('import wq.npy-less: wq.csv', () => file.setInputFiles({ name: 'wq.csv', mimeType: 'text/csv', buffer: Buffer.from('1,0.5\n-0.25,2\n') }));
    assert.deepEqual((await state()).heads[0].wq, [[1, 0.5], [-0.25, 2]]);

    // a step change: one change, nothing recomputed, nothing replaced
    const step = (await state()).view.step;
    await page.locator(`${el} [data-focus-id="prev"]`).click();
    const viewed = await take();
    assert.deepEqual([count(viewed).change, count(viewed).replace, count(viewed).ready], [1, 0, 0], `step change: ${JSON.stringify(viewed.map((e) => e.type))}`);
    assert.notEqual((await state()).view.step, step);
    await checkChange(viewed, 'step change');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// Issue 34: ready, computed and replace did not bubble (change did, as documented), so a listener
// on the host page's document heard one event of four from an element inside a shadow root.
test('every event of the element (ready, change, computed, replace) bubbles out of a shadow root to the document', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(local.at('embed.html?lang=en'));
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
    await page.evaluate((types) => {
      const host = document.body.appendChild(document.createElement('div'));
      const element = document.createElement('attention-visualizer');
      element.setAttribute('editable', '');
      element.setAttribute('lang', 'en');
      window.heard = [];
      // bubble phase, on the document: only events that bubble and cross the shadow root arrive
      for (const type of types) document.addEventListener(type, (event) => { if (event.composedPath()[0] === element) window.heard.push(type); });
      host.attachShadow({ mode: 'open' }).append(element);
      window.inner = element;
    }, TYPES);
    await page.waitForFunction(() => window.inner.result && window.heard.includes('ready'));
    await page.evaluate(() => window.inner.shadowRoot.querySelector('[data-preset="english"]').click());
    await page.waitForFunction(() => window.inner.state.tokens[0] === 'I' && !window.inner.computing && window.heard.includes('change'));
    await page.waitForFunction(() => window.heard.filter((type) => type === 'computed').length >= 2);
    const heard = await page.evaluate(() => window.heard);
    for (const type of TYPES) assert.ok(heard.includes(type), `${type} reaches the document (${heard})`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The documented detail (docs/authoring.md): `ready`, `computed` and `change` carry the state
// shown (the element's `state` then and after); `replace` carries the whole state chosen: a
// preset's numbers (presets.js), a learned example's trained weights (learned-data.js), a state
// file as the schema reads it (validateState: the defaults filled in), each once per action.
test('events carry the documented state: ready and computed the state shown; a preset, a learned example and a state file replace once with the state chosen', async () => {
  const { context, page, problems, state, take } = await openRecorded('embed.html?editable=&lang=en');
  try {
    const types = (events) => events.map((e) => e.type);
    // ready once, then computed, at load: each with the state shown then (embed.html sets the
    // reader's language from its own script, which may run before or after the first result)
    const load = await take();
    assert.deepEqual(types(load).filter((type) => type !== 'change'), ['ready', 'computed'], `load: ${types(load)}`);
    for (const e of load) assert.deepEqual(e.detail, e.now, `load: ${e.type}'s detail.state is the state shown`);
    assert.deepEqual(load[load.length - 1].detail, await state(), 'load: the last event has the state on screen');
    assert.deepEqual((await state()).tokens, tutorialState('en').tokens);

    // One whole state chosen: replace first (the state chosen, the old one still on screen),
    // then change and computed (the state chosen, now on screen), once each.
    const chosen = async (label, action) => {
      const before = await state();
      await action();
      const events = await take();
      // (change and computed in either order: a small state is computed before change is sent)
      assert.deepEqual([types(events)[0], ...types(events).slice(1).sort()], ['replace', 'change', 'computed'], `${label}: ${types(events)}`);
      const [replace, change, computed] = ['replace', 'change', 'computed'].map((type) => events.find((e) => e.type === type));
      const after = await state();
      assert.deepEqual(replace.now, before, `${label}: replace comes while the old state is on screen`);
      assert.deepEqual(replace.detail, after, `${label}: replace's detail.state is the state then shown`);
      assert.deepEqual(change.detail, after, `${label}: change's detail.state`);
      assert.deepEqual(computed.detail, after, `${label}: computed's detail.state`);
      assert.deepEqual(computed.now, after, `${label}: computed comes with the state on screen`);
      return replace.detail;
    };
    const english = await chosen('the preset "I love you"', () => page.locator(`${el} [data-preset="english"]`).click());
    assert.deepEqual(english.tokens, tokenize(PRESETS.english.sentence, PRESETS.english.mode));
    assert.deepEqual([english.x, english.heads[0].wq, english.heads[0].wk, english.heads[0].wv], [PRESETS.english.x, PRESETS.english.wq, PRESETS.english.wk, PRESETS.english.wv]);

    // a learned example, chosen in the learn step
    await page.evaluate(() => { document.querySelector('attention-visualizer').state = { view: { step: 'learn' } }; });
    await page.locator(`${el} [data-learned="animal"]`).waitFor();
    await take();
    const learned = await chosen('the learned example "animal"', () => page.locator(`${el} [data-learned="animal"]`).click());
    assert.deepEqual([learned.x, learned.heads[0].wq, learned.heads[0].wk], [LEARNED.animal.x, LEARNED.animal.wq, LEARNED.animal.wk]);

    // a state file: the state as the schema reads it, the options it leaves out at their defaults
    await page.evaluate(() => { document.querySelector('attention-visualizer').shadowRoot.querySelector('details.av-tools').open = true; });
    const written = { version: 1, tokens: ['a', 'b', 'c'], x: [[1, 2], [3, 4], [5, 6]], heads: [{ wq: [[1, 0], [0, 1]], wk: [[0.5, 0], [0, 0.5]], wv: [[2, 0], [0, 2]] }], causal: true, view: { step: 'output', head: 0, lang: 'en', decimals: 3 } };
    const read = validateState(written);
    assert.equal(read.ok, true);
    const file = await chosen('a state file', () => page.locator(`${el} input[type="file"][data-focus-id="import-file"]`).setInputFiles({ name: 'state.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(written)) }));
    assert.deepEqual(file, read.state);
    assert.deepEqual([file.temperature, file.positionalEncoding, file.keyPadding], [1, false, [false, false, false]], 'the defaults filled in');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
