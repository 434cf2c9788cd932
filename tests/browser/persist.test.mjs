// Nothing lost (issue 6): the full page keeps what the user built in
// localStorage across a reload and a closed tab (a link's hash wins), undo and
// redo by buttons and keys, a damaged stored state set aside and offered for
// download, and a page that works on when storage is blocked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { browserAndServer } from './local.mjs';
import { openStep, ready, typeCell, newPage } from './ui.mjs';

const DIST = path.resolve('dist');
const STATE_KEY = 'attention-visualizer.state';
const DAMAGED_KEY = 'attention-visualizer.state.damaged';
const local = browserAndServer(DIST);
const { at } = local;

const x00 = '#editor-x input[data-r="0"][data-c="0"]';

test('an edit survives a reload and a closed tab; a link opens its own state over the stored one', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  const url = at('index.html?example=tutorial');
  try {
    const { page, problems } = await newPage(context, url);
    await typeCell(page, x00, '7');
    await page.waitForFunction((key) => localStorage.getItem(key)?.includes('[[7,'), STATE_KEY);
    await page.goto(url);
    await ready(page);
    assert.equal(await page.inputValue(x00), '7', 'after a reload without the hash');
    await page.close();

    const reopened = await newPage(context, url);
    assert.equal(await reopened.page.inputValue(x00), '7', 'in a new tab');
    const link = `${url}#${encodeHash({ ...tutorialState('en'), causal: true })}`;
    await reopened.page.goto(link);
    // the page has taken the link (shown, stored, the work it replaced set aside)
    // before the reload, so the reload finds one known state, not a race with it
    await reopened.page.waitForFunction((key) => document.getElementById('causal').checked
      && localStorage.getItem(key)?.includes('"causal":true') && localStorage.getItem(`${key}.previous`)?.includes('[[7,'), STATE_KEY);
    await reopened.page.reload();
    await ready(reopened.page);
    assert.equal(await reopened.page.inputValue(x00), '1', 'the link wins over storage');
    assert.equal(await reopened.page.isChecked('#causal'), true);
    // the work the link replaced is set aside, not lost, and storage itself reports no problem
    const notice = await reopened.page.textContent('#storage-notice');
    assert.match(notice, /^Your previous work \(“我爱你”, 3 tokens\) was replaced by a link, a file or a preset you opened; it has been set aside under “attention-visualizer\.state\.previous”/);
    assert.doesNotMatch(notice, /does not let the page store|could not be read|full/);
    assert.match(await reopened.page.evaluate((key) => localStorage.getItem(`${key}.previous`), STATE_KEY), /\[\[7,/);
    assert.deepEqual([...problems, ...reopened.problems], []);
  } finally {
    await context.close();
  }
});

// A large state (over persist.js DEFER_CHARS: 64 K characters of JSON) is written
// in a task of its own; one that differs from the stored one in its view alone
// (the step shown) waits for the next edit or for the page to be left.
test('a large state: a change of step alone is stored when the page is left; an edit stores it with the step shown', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  const url = at('index.html?example=tutorial');
  try {
    const { page, problems } = await newPage(context, url);
    const stored = () => page.evaluate((key) => {
      const value = localStorage.getItem(key) || '';
      const state = JSON.parse(value.slice(value.indexOf('\n') + 1));
      return { chars: value.length, step: state.view.step, causal: state.causal, tokens: state.tokens.length };
    }, STATE_KEY);
    const rev = () => page.evaluate(() => history.state?.rev ?? -1);
    await page.fill('#dim-dModel', '64');
    await page.fill('#sentence', Array.from({ length: 256 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(''));
    await page.fill('#seed', '3');
    await page.click('#fill-random');
    await page.waitForFunction((key) => (localStorage.getItem(key) || '').length > 65536, STATE_KEY);
    const filled = await stored();
    assert.equal(filled.tokens, 256);
    // another step: the page keeps the new state (its mark's revision goes up), storage waits
    const before = await rev();
    await page.click('#next');
    const step = await page.evaluate(() => document.querySelector('#steps > li').dataset.step);
    assert.notEqual(step, filled.step);
    await page.waitForFunction((r) => (history.state?.rev ?? -1) > r, before);
    assert.deepEqual(await stored(), filled, 'a change of step alone is not written yet');
    // leaving the page (pagehide) writes it
    await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide')));
    assert.deepEqual(await stored(), { ...filled, chars: (await stored()).chars, step }, 'written when the page is left');
    // another step, then an edit: written once, with the step shown then
    await page.click('#next');
    const last = await page.evaluate(() => document.querySelector('#steps > li').dataset.step);
    await page.check('#causal');
    await page.waitForFunction((key) => (localStorage.getItem(key) || '').includes('"causal":true'), STATE_KEY);
    assert.deepEqual({ ...(await stored()), chars: 0 }, { ...filled, chars: 0, step: last, causal: true });
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#steps > li') !== null && !document.documentElement.hasAttribute('data-computing'));
    assert.equal(await page.evaluate(() => document.querySelector('#steps > li').dataset.step), last, 'the reload opens on that step');
    assert.equal(await page.isChecked('#causal'), true);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// A state over persist.js PART_CHARS (256 K characters of JSON) is written in
// parts, one a task, then the value under STATE_KEY that names them.
test('a state in parts: one part a task, storage reads whole between any two tasks, the parts replaced are removed, a reload opens it', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  const url = at('index.html?example=tutorial');
  try {
    const { page, problems } = await newPage(context, url);
    // After every task: the value under STATE_KEY and the parts it names read as
    // a whole state. Every part written, with the task it was written in.
    await page.evaluate((key) => {
      const seen = { checks: 0, heads: new Set(), broken: [], partWrites: [] };
      window.seen = seen;
      let task = 0;
      let inTask = false;
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (k, v) {
        if (!inTask) {
          inTask = true;
          task += 1;
          queueMicrotask(() => { inTask = false; });
        }
        if (k.startsWith(`${key}.part.`)) seen.partWrites.push([k, task]);
        return setItem.call(this, k, v);
      };
      const check = () => {
        seen.checks += 1;
        const value = localStorage.getItem(key) || '';
        const mark = value.startsWith('av-mark ') ? JSON.parse(value.slice(8, value.indexOf('\n'))) : null;
        if (mark && mark.parts) {
          let text = '';
          for (let i = 0; i < mark.parts.count; i++) text += localStorage.getItem(`${key}.part.${mark.parts.id}.${i}`) ?? '';
          if (text.length !== mark.parts.chars) seen.broken.push(`${mark.parts.id}: ${text.length} of ${mark.parts.chars}`);
          else if (!seen.heads.has(value)) {
            seen.heads.add(value);
            if (!Array.isArray(JSON.parse(text).x)) seen.broken.push(`${mark.parts.id}: no X`);
          }
        }
        setTimeout(check, 0);
      };
      check();
    }, STATE_KEY);
    const storedParts = () => page.evaluate((key) => Object.keys(localStorage).filter((k) => k.startsWith(`${key}.part.`)).sort(), STATE_KEY);
    const head = () => page.evaluate((key) => {
      const value = localStorage.getItem(key) || '';
      return JSON.parse(value.slice(8, value.indexOf('\n'))).parts || null;
    }, STATE_KEY);
    await page.fill('#dim-dModel', '64');
    await page.fill('#sentence', Array.from({ length: 1024 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(''));
    await page.fill('#seed', '5');
    await page.click('#fill-random');
    await page.waitForFunction((key) => (localStorage.getItem(key) || '').includes('"parts"'), STATE_KEY);
    const filled = await head();
    assert.ok(filled.count >= 2, JSON.stringify(filled));
    assert.deepEqual(await storedParts(), Array.from({ length: filled.count }, (_, i) => `${STATE_KEY}.part.${filled.id}.${i}`).sort());
    const shown = () => page.evaluate(() => {
      const { x, tokens, causal } = document.querySelector('attention-visualizer').shownState;
      return { x0: x[0], n: tokens.length, causal };
    });
    const before = await shown();
    assert.equal(before.n, 1024);
    // an edit: new parts, then the value naming them; the filled state's parts removed
    await page.check('#causal');
    await page.waitForFunction((id) => {
      const value = localStorage.getItem('attention-visualizer.state') || '';
      return value.includes('"parts"') && !value.includes(id);
    }, filled.id);
    const edited = await head();
    assert.deepEqual(await storedParts(), Array.from({ length: edited.count }, (_, i) => `${STATE_KEY}.part.${edited.id}.${i}`).sort());
    const seen = await page.evaluate(() => ({ ...window.seen, heads: window.seen.heads.size }));
    assert.deepEqual(seen.broken, []);
    assert.ok(seen.heads >= 2 && seen.checks > 10, JSON.stringify({ heads: seen.heads, checks: seen.checks }));
    const tasks = seen.partWrites.map(([, task]) => task);
    assert.equal(new Set(tasks).size, tasks.length, `one part a task: ${JSON.stringify(seen.partWrites)}`);
    assert.ok(tasks.length >= filled.count + edited.count);
    // the reload opens the edited state
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#steps > li') !== null && !document.documentElement.hasAttribute('data-computing'));
    assert.deepEqual(await shown(), { ...before, causal: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('undo and redo: the buttons, Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y outside text fields, invalid input undone to the last valid', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const { page, problems } = await newPage(context, at('index.html?example=tutorial'));
    assert.equal(await page.isDisabled('#undo'), true);
    assert.equal(await page.isDisabled('#redo'), true);
    await typeCell(page, x00, '2');
    await typeCell(page, x00, '3');
    await page.check('#causal');
    assert.equal(await page.isDisabled('#undo'), false);

    await page.click('#undo');
    assert.equal(await page.isChecked('#causal'), false);
    assert.equal(await page.inputValue(x00), '3');
    await page.click('#undo');
    assert.equal(await page.inputValue(x00), '2');
    await page.click('#redo');
    assert.equal(await page.inputValue(x00), '3');

    // keys, with the focus on a button (not in a text field)
    await page.focus('#next');
    await page.keyboard.press('Control+z');
    assert.equal(await page.inputValue(x00), '2');
    await page.keyboard.press('Control+Shift+Z');
    assert.equal(await page.inputValue(x00), '3');
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+y');
    assert.equal(await page.inputValue(x00), '3');
    await page.keyboard.press('Meta+Shift+z');
    assert.equal(await page.isChecked('#causal'), true);

    // inside a grid cell Ctrl+Z is the browser's own undo of the typing: no page undo, which
    // would uncheck causal and leave the step it undid to redo
    assert.equal(await page.isDisabled('#redo'), true, 'at the end of the history');
    await page.focus(x00);
    await page.keyboard.press('Control+z');
    assert.equal(await page.isChecked('#causal'), true, 'the page did not undo from inside a text field');
    assert.equal(await page.isDisabled('#redo'), true, 'nothing to redo: the page did not undo');

    // an invalid value stays in its field until undo goes back to the last valid inputs
    await typeCell(page, x00, 'abc');
    assert.match(await page.textContent('#x-error'), /“abc” is not a number/);
    await page.click('#undo');
    assert.notEqual(await page.inputValue(x00), 'abc');
    assert.equal(await page.textContent('#x-error'), '');

    // the step shown is no edit: undo keeps it
    await openStep(page, 2);
    await page.click('#undo');
    assert.match(await page.textContent('#step-position'), /Step 2 of/);

    // a preset is an edit too: undone, the earlier inputs come back
    await typeCell(page, x00, '9');
    await page.click('[data-preset="english"]');
    await page.click('#undo');
    assert.equal(await page.inputValue(x00), '9');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a damaged stored state is reported in both languages, set aside and downloadable; the page opens the tutorial', async () => {
  const context = await local.browser.newContext({ locale: 'en-US', acceptDownloads: true });
  const url = at('index.html?example=tutorial');
  const damaged = '{"version":1,"tokens":["a"],"x":[[1, 2]';
  try {
    const { page } = await newPage(context, url);
    await page.evaluate(([key, text]) => localStorage.setItem(key, text), [STATE_KEY, damaged]);
    await page.goto(url); // without the hash the page wrote: storage decides
    await ready(page);
    const notice = page.locator('#storage-notice');
    assert.equal(await notice.isVisible(), true);
    assert.match(await notice.textContent(), /could not be read: The state is not valid: it is not valid JSON\. It has been/);
    assert.match(await notice.textContent(), new RegExp(`set aside under “${DAMAGED_KEY.replace(/\./g, '\\.')}”`));
    assert.equal(await page.evaluate((key) => localStorage.getItem(key), DAMAGED_KEY), damaged);
    assert.equal(await page.inputValue(x00), '1', 'the tutorial');
    const [download] = await Promise.all([page.waitForEvent('download'), notice.locator('button').click()]);
    assert.equal(readFileSync(await download.path(), 'utf8'), damaged);
    await page.click('#lang-toggle');
    assert.match(await notice.textContent(), /无法读取：状态无效：不是有效的 JSON。它已另存为/);
    // the next visit starts clean from what is on screen now
    await page.goto(url);
    await ready(page);
    assert.equal(await notice.isHidden(), true);
  } finally {
    await context.close();
  }
});

test('storage blocked: the page works and says so once, quietly', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
  });
  try {
    const { page, problems } = await newPage(context, at('index.html?example=tutorial'));
    const notes = page.locator('#storage-notice p');
    assert.equal(await notes.count(), 1);
    assert.match(await notes.textContent(), /does not let the page store data/);
    assert.equal(await page.locator('#status').textContent(), '', 'not in the live status line');
    await typeCell(page, x00, '5');
    await page.click('#undo');
    assert.equal(await page.inputValue(x00), '1');
    assert.equal(await notes.count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
