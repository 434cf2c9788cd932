// Browser tests of direct manipulation (scrub.js): the temperature slider and
// the numbers of the grids dragged sideways, on the page and in
// <attention-visualizer editable>, with the mouse and the keyboard. Every
// expected number comes from plain JS below (the tutorial's inputs, the
// slider's log scale written out), never from the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';
import { attention } from './reference.mjs';

const DIST = path.resolve('dist');
const PAGE = `${pathToFileURL(path.join(DIST, 'index.html')).href}?example=tutorial`;
const EXAMPLE = pathToFileURL(path.join(DIST, 'examples/tutorial.html')).href;
const local = browserAndServer(DIST);

const TUTORIAL = {
  x: [[1, 0], [0.5, 0.5], [0, 1]], wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]],
};

const withX00 = (value) => ({ ...TUTORIAL, x: [[value, 0], ...TUTORIAL.x.slice(1)] });

// The slider's scale: 241 positions, T = 0.05 · 400^(p / 240) to 3 significant digits.
const sliderT = (p) => Number((0.05 * 400 ** (p / 240)).toPrecision(3));

function assertClose(actual, expected, label) {
  assert.ok(actual, `${label} is shown`);
  assert.equal(actual.length, expected.length, `${label} rows`);
  expected.forEach((row, i) => row.forEach((value, j) => {
    assert.ok(Math.abs(actual[i][j] - value) <= 1e-12, `${label}[${i}][${j}] = ${actual[i][j]}, expected ${value}`);
  }));
}

// A matrix of the page's before/after comparison (Before, After, Difference), from its cells' data-value.
const compared = (page, name) => page.evaluate((wanted) => {
  const table = document.querySelector(`#steps .compare table[data-matrix="${wanted}"]`);
  return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value)));
}, name);

async function open(url, { viewport = { width: 1280, height: 900 }, colorScheme = 'light' } = {}) {
  const context = await local.browser.newContext({ viewport, colorScheme, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.goto(url);
  return { context, page, problems };
}

// The page with the tutorial, in English, at step `step` (1-based).
async function openPage(step, options) {
  const opened = await open(PAGE, options);
  const { page } = opened;
  await waitForSteps(page);
  if (await page.getAttribute('html', 'lang') !== 'en') await page.click('#lang-toggle');
  await openEditor(page);
  await openStep(page, step);
  return opened;
}

// A matrix of the steps (not of a comparison), from the full values in its cells' data-value.
// root: the element's id, or null for the page.
function shown(page, name, root = null) {
  return page.evaluate(([wanted, id]) => {
    const scope = id ? document.getElementById(id).shadowRoot : document.getElementById('steps');
    const table = [...scope.querySelectorAll(`table[data-matrix="${wanted}"]`)].find((t) => !t.closest('.compare'));
    return table ? [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value))) : null;
  }, [name, root]);
}

const hashOf = (page) => page.evaluate(() => location.hash);

// The middle of a locator, scrolled into view, once it stays put for two
// frames (a page still laying out a render could move it under the press).
async function middle(locator) {
  await locator.scrollIntoViewIfNeeded();
  const frames = () => locator.page().evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  let box = await locator.boundingBox();
  for (let tries = 0; tries < 20; tries++) {
    await frames();
    const now = await locator.boundingBox();
    if (now.x === box.x && now.y === box.y) break;
    box = now;
  }
  return { x: box.x + box.width / 2, y: box.y + box.height / 2, box };
}

test('page: dragging the temperature slider updates the weights live and is one undo step', async () => {
  const { context, page, problems } = await openPage(5);
  const slider = page.locator('#temperature-slider');
  assert.equal(await slider.inputValue(), '120', 'T = 1 sits in the middle');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'temperature T = 1');
  const hash = await hashOf(page);
  const { x, y, box } = await middle(slider);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, y, { steps: 3 });
  // during the drag: T, its text and the weights follow, the URL waits
  const midPosition = Number(await slider.inputValue());
  const midT = sliderT(midPosition);
  assert.ok(midT < 1, `dragged left: T = ${midT}`);
  assert.equal(await page.inputValue('#temperature'), String(midT));
  assert.equal(await slider.getAttribute('aria-valuetext'), `temperature T = ${midT}`);
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: midT }).Weights, `weights at T = ${midT} during the drag`);
  assert.equal(await hashOf(page), hash, 'the link is written when the drag ends');
  await page.mouse.move(box.x + box.width * 0.1, y, { steps: 3 });
  await page.mouse.up();
  const endT = sliderT(Number(await slider.inputValue()));
  assert.ok(endT < midT);
  assert.equal(await page.inputValue('#temperature'), String(endT));
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: endT }).Weights, `weights at T = ${endT}`);
  assert.notEqual(await hashOf(page), hash, 'the link follows once let go');
  // one Ctrl+Z: back to T = 1, not to a position passed on the way
  await page.keyboard.press('Control+z');
  assert.equal(await page.inputValue('#temperature'), '1');
  assert.equal(await slider.inputValue(), '120');
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 1 }).Weights, 'weights after undo');
  assert.deepEqual(problems, []);
  await context.close();
});

// With one step shown, a drag writes on each move only the matrices and notes
// of it in view (steps.js near): the comparison below follows once let go.
test('page: a drag of T writes the Weights in view live, the comparison below the screen once let go', async () => {
  // 600 px tall: the comparison (~190 px under the Weights beside the 22rem edit panel) beyond the 25 % margin
  const { context, page, problems } = await openPage(5, { viewport: { width: 1280, height: 600 } });
  // the Weights' last row just above the bottom of the screen (a table writes only its rows in sight during a drag, view.js)
  await page.evaluate(() => {
    const weights = document.querySelector('#steps [data-step="softmax"] table[data-matrix="Weights"]');
    window.scrollBy(0, weights.getBoundingClientRect().bottom - innerHeight + 20);
  });
  const slider = page.locator('#temperature-slider');
  const { x, y, box } = await middle(slider);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, y, { steps: 3 });
  await page.mouse.move(box.x + box.width * 0.1, y, { steps: 3 });
  const midT = sliderT(Number(await slider.inputValue()));
  const place = (selector) => page.evaluate((s) => {
    const { top, bottom } = document.querySelector(s).getBoundingClientRect();
    return { top, bottom, height: innerHeight };
  }, selector);
  const weights = await place('#steps [data-step="softmax"] table[data-matrix="Weights"]');
  assert.ok(weights.bottom < weights.height, `the Weights are in view (${JSON.stringify(weights)})`);
  const comparison = await place('#steps .compare');
  assert.ok(comparison.top > comparison.height * 1.25, `the comparison is below the screen and its margin (steps.js near) (${JSON.stringify(comparison)})`);
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: midT }).Weights, `weights at T = ${midT} during the drag`);
  const stale = await compared(page, 'After');
  const live = attention(TUTORIAL, { temperature: midT }).Weights;
  assert.ok(stale.some((row, i) => row.some((v, j) => Math.abs(v - live[i][j]) > 1e-6)), 'the comparison out of view waits');
  assert.ok(await page.$('#steps [data-step="softmax"][data-pending]'), 'its step says an update waits');
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  assertClose(await compared(page, 'After'), live, `the comparison's After at T = ${midT} once let go`);
  assertClose(await compared(page, 'Before'), attention(TUTORIAL, { temperature: 1 }).Weights, 'its Before at T = 1');
  assert.deepEqual(problems, []);
  await context.close();
});

// T is not in a step's layout (steps.js layoutKey): its formula is written on each update.
test('page: the scale step\'s formula names T while the slider is away from 1', async () => {
  const { context, page, problems } = await openPage(4);
  const formula = () => page.textContent('#steps [data-step="scale"] .formula');
  assert.equal(await formula(), 'Scaled = Scores / √d_k');
  const slider = page.locator('#temperature-slider');
  const { x, y, box } = await middle(slider);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, y, { steps: 3 });
  assert.equal(await formula(), 'Scaled = Scores / √d_k / T');
  await page.mouse.move(x, y, { steps: 3 });
  assert.equal(await page.inputValue('#temperature'), '1');
  assert.equal(await formula(), 'Scaled = Scores / √d_k');
  await page.mouse.up();
  assert.deepEqual(problems, []);
  await context.close();
});

test('page: the slider from the keyboard, and the text box and slider in step', async () => {
  const { context, page, problems } = await openPage(5);
  const slider = page.locator('#temperature-slider');
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.inputValue('#temperature'), String(sliderT(121)));
  assert.equal(sliderT(121), 1.03);
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 1.03 }).Weights, 'weights at T = 1.03');
  await page.keyboard.press('End');
  assert.equal(await page.inputValue('#temperature'), '20');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'temperature T = 20');
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 20 }).Weights, 'weights at T = 20');
  await page.keyboard.press('Home');
  assert.equal(await page.inputValue('#temperature'), '0.05');
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 0.05 }).Weights, 'weights at T = 0.05');
  // typed: the slider moves to the nearest position; the exact T stays and is what it says
  await page.fill('#temperature', '0.7');
  assert.equal(await slider.inputValue(), String(Math.round((240 * Math.log(0.7 / 0.05)) / Math.log(400))));
  assert.equal(await slider.getAttribute('aria-valuetext'), 'temperature T = 0.7');
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 0.7 }).Weights, 'weights at T = 0.7');
  await page.fill('#temperature', '100');
  assert.equal(await slider.inputValue(), '240', 'beyond the scale: at its end');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'temperature T = 100');
  assertClose(await shown(page, 'Weights'), attention(TUTORIAL, { temperature: 100 }).Weights, 'weights at T = 100');
  await page.fill('#temperature', '-1');
  assert.equal(await slider.inputValue(), '240', 'an invalid T leaves the slider');
  assert.match(await page.textContent('#temperature-error'), /finite number above 0/);
  await page.fill('#temperature', '100');
  await page.click('#lang-toggle');
  assert.equal(await slider.getAttribute('aria-valuetext'), '温度 T = 100');
  assert.equal(await page.textContent('label[for="temperature-slider"]'), '温度 T 滑块（对数刻度，0.05 到 20）');
  assert.deepEqual(problems, []);
  await context.close();
});

test('page: dragging a number of X changes it and every step live; one drag, one undo step', async () => {
  const { context, page, problems } = await openPage(6);
  const cell = page.locator('#editor-x input[data-r="0"][data-c="0"]');
  const hash = await hashOf(page);
  const { x, y } = await middle(cell);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 10, y, { steps: 2 });
  // 0.01 a pixel, live, the URL waits; the cell is not put in text editing
  assert.equal(await cell.inputValue(), '1.1');
  assert.equal(await cell.evaluate((input) => input.classList.contains('scrubbing')), true);
  assertClose(await shown(page, 'Output'), attention(withX00(1.1)).Output, 'output during the drag');
  assert.equal(await hashOf(page), hash);
  assert.equal(await cell.evaluate((input) => document.activeElement === input), false);
  await page.mouse.move(x + 30, y, { steps: 2 });
  assert.equal(await cell.inputValue(), '1.3');
  // Shift: 0.001 a pixel, from where the value is
  await page.keyboard.down('Shift');
  await page.mouse.move(x + 50, y, { steps: 2 });
  await page.keyboard.up('Shift');
  await page.mouse.up();
  assert.equal(await cell.inputValue(), '1.32');
  assert.equal(await cell.evaluate((input) => input.classList.contains('scrubbing')), false);
  assertClose(await shown(page, 'Output'), attention(withX00(1.32)).Output, 'output after the drag');
  assert.notEqual(await hashOf(page), hash);
  await page.keyboard.press('Control+z');
  assert.equal(await cell.inputValue(), '1', 'one undo step restores the value before the drag');
  assertClose(await shown(page, 'Output'), attention(TUTORIAL).Output, 'output after undo');
  // leftwards, past zero
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x - 150, y, { steps: 5 });
  await page.mouse.up();
  assert.equal(await cell.inputValue(), '-0.5');
  assertClose(await shown(page, 'Output'), attention(withX00(-0.5)).Output, 'output at −0.5');
  assert.deepEqual(problems, []);
  await context.close();
});

// With the comparison open each recompute makes two results, After and Before,
// each copied into arrays of its own (updates.js ResultArrays): move after
// move, neither is written over the other or over the one on screen.
test('page: with the comparison open, a drag of X recomputes its Before and After on every move', async () => {
  const { context, page, problems } = await openPage(5, { viewport: { width: 1280, height: 2000 } });
  await page.check('#causal');
  await page.waitForSelector('#steps .compare');
  const cell = page.locator('#editor-x input[data-r="0"][data-c="0"]');
  const { x, y } = await middle(cell);
  const check = async (value, when) => {
    await page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
    const inputs = withX00(value);
    const causal = attention(inputs, { causal: true }).Weights;
    assertClose(await shown(page, 'Weights'), causal, `Weights at ${value} ${when}`);
    assertClose(await compared(page, 'After'), causal, `After at ${value} ${when}`);
    assertClose(await compared(page, 'Before'), attention(inputs).Weights, `Before (no mask) at ${value} ${when}`);
  };
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (const [dx, value] of [[10, 1.1], [30, 1.3], [60, 1.6], [20, 1.2]]) {
    await page.mouse.move(x + dx, y, { steps: 2 });
    assert.equal(await cell.inputValue(), String(value));
    await check(value, 'during the drag');
  }
  await page.mouse.up();
  await check(1.2, 'once let go');
  await page.keyboard.press('Control+z');
  await check(1, 'after undo');
  assert.deepEqual(problems, []);
  await context.close();
});

// With all steps shown, a drag writes only the steps in view on each move
// (steps.js near): one out of view gets the numbers when scrolled to, or soon after let go.
test('page: all steps shown: a drag updates the steps in view live, one scrolled to on the way, and every step when let go', async () => {
  const { context, page, problems } = await openPage(1, { viewport: { width: 1280, height: 500 } });
  await page.click('#overview');
  // X's table just above the bottom of the screen (a table writes only its rows in sight during a drag, view.js)
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    window.scrollBy(0, document.querySelector('#steps table[data-matrix="X"]').getBoundingClientRect().bottom - innerHeight + 20);
  });
  const topOf = (step) => page.evaluate((id) => document.querySelector(`#steps [data-step="${id}"]`).getBoundingClientRect().top, step);
  assert.ok(await topOf('input') < 500, 'the input step is in view');
  assert.ok(await topOf('output') > 1000, 'the output step is two screens down');
  const cell = page.locator('#editor-x input[data-r="0"][data-c="0"]');
  const { x, y } = await middle(cell);
  // once let go, the steps out of view are written one a task (steps.js settleSteps)
  const settled = () => page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  // a first drag leaves the tutorial's numbers (the steps are built again without its misprints)
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 10, y, { steps: 2 });
  await page.mouse.up();
  assert.equal(await cell.inputValue(), '1.1', 'the first drag');
  await settled();
  assertClose(await shown(page, 'Output'), attention(withX00(1.1)).Output, 'the output after a first drag');
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 20, y, { steps: 2 });
  assertClose(await shown(page, 'X'), withX00(1.3).x, 'X in view during the drag');
  assertClose(await shown(page, 'Output'), attention(withX00(1.1)).Output, 'the output out of view, not written yet');
  assert.ok(await page.$('#steps [data-step="output"][data-pending]'), 'the output step says its update waits');
  // scrolled to while the button is still down: written, and live from then on
  await page.evaluate(() => document.querySelector('#steps [data-step="output"] table[data-matrix="Output"]').scrollIntoView({ block: 'center' }));
  const expected = attention(withX00(1.3)).Output[0][0];
  await page.waitForFunction((value) => Number(document.querySelector('#steps [data-step="output"] table[data-matrix="Output"] td[data-r="0"][data-c="0"]').dataset.value) === value, expected);
  assertClose(await shown(page, 'Output'), attention(withX00(1.3)).Output, 'the output once in view');
  await page.mouse.move(x + 40, y, { steps: 2 });
  assertClose(await shown(page, 'Output'), attention(withX00(1.5)).Output, 'the output in view during the drag');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.move(x + 60, y, { steps: 2 });
  await page.mouse.up();
  assert.equal(await cell.inputValue(), '1.7');
  await settled();
  assertClose(await shown(page, 'Output'), attention(withX00(1.7)).Output, 'the output out of view once let go');
  assert.deepEqual(problems, []);
  await context.close();
});

// During a drag a table writes only its cells in sight (view.js inSightFill): at
// 16 tokens the Scaled table's rows below the screen and its columns scrolled
// away wait; a column scrolled to on the way is written; every cell once let go.
test('page: a drag writes a table\'s cells in sight live, its rows below the screen and columns scrolled away once in sight or let go', async () => {
  const { context, page, problems } = await openPage(4, { viewport: { width: 1280, height: 700 } });
  const tokens = Array.from({ length: 16 }, (_, i) => String.fromCodePoint(0x4e00 + i));
  const x = tokens.map((_, i) => [Math.round(100 * Math.sin(i + 1)) / 50, Math.round(100 * Math.cos(3 * i)) / 50]);
  await page.evaluate((state) => new Promise((resolve) => {
    const v = document.querySelector('attention-visualizer');
    v.addEventListener('computed', resolve, { once: true });
    v.state = state;
  }), { tokens, x, view: { step: 'scale' } });
  const before = attention({ ...TUTORIAL, x }).Scaled;
  // the table's top under the sticky toolbar's bottom: its last rows are below the screen
  await page.evaluate(() => {
    const table = document.querySelector('#steps [data-step="scale"] table[data-matrix="Scaled"]');
    window.scrollBy(0, table.getBoundingClientRect().top - document.getElementById('steps-toolbar').getBoundingClientRect().bottom);
  });
  // each cell of Scaled: its full value, and whether it is in sight (within 40 px of the screen and of its box)
  const cells = () => page.evaluate(() => {
    const table = document.querySelector('#steps [data-step="scale"] table[data-matrix="Scaled"]');
    const box = table.closest('.matrix-view').getBoundingClientRect();
    return [...table.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => {
      const rect = td.getBoundingClientRect();
      const inSight = rect.bottom > -40 && rect.top < innerHeight + 40 && rect.right > box.left - 40 && rect.left < box.right + 40;
      return { value: Number(td.dataset.value), inSight };
    }));
  });
  const cell = page.locator('#editor-wq input[data-r="0"][data-c="0"]');
  const { x: px, y: py } = await middle(cell);
  await page.mouse.move(px, py);
  await page.mouse.down();
  // pressed: the tables in view watch their cells from now (steps.js holdSteps); their first reports come after a frame
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
  await page.mouse.move(px + 30, py, { steps: 3 });
  const wq00 = Number(await cell.inputValue());
  assert.notEqual(wq00, TUTORIAL.wq[0][0], 'the drag changed W_Q[0][0]');
  const live = attention({ ...TUTORIAL, x, wq: [[wq00, TUTORIAL.wq[0][1]], TUTORIAL.wq[1]] }).Scaled;
  const during = await cells();
  const seen = during.flat().filter((c) => c.inSight).length;
  assert.ok(seen > 16 && seen < 200, `some cells in sight, some not (${seen} of 256)`);
  assert.ok(during.at(-1).every((c) => !c.inSight), 'the last row is below the screen');
  assert.ok(during.every((row) => !row.at(-1).inSight), 'the last column is scrolled away');
  during.forEach((row, i) => row.forEach((c, j) => {
    const [wanted, what] = c.inSight ? [live[i][j], 'in sight: live'] : [before[i][j], 'out of sight: as before the drag'];
    assert.ok(Math.abs(c.value - wanted) <= 1e-12, `Scaled[${i}][${j}] ${what}: ${c.value}, expected ${wanted}`);
  }));
  assert.ok(await page.$('#steps [data-step="scale"][data-pending]'), 'its step says an update waits');
  // scrolled sideways while the button is still down: the columns that come in sight are written
  await page.evaluate(() => {
    const box = document.querySelector('#steps [data-step="scale"] table[data-matrix="Scaled"]').closest('.matrix-view');
    box.scrollLeft = box.scrollWidth;
  });
  await page.waitForFunction((value) => Number(document.querySelector('#steps [data-step="scale"] table[data-matrix="Scaled"] td[data-r="0"][data-c="15"]').dataset.value) === value, live[0][15]);
  const scrolled = await cells();
  assert.ok(scrolled[0].at(-1).inSight && !scrolled[0][0].inSight, 'the last columns in sight, the first scrolled away');
  scrolled.forEach((row, i) => row.forEach((c, j) => {
    if (c.inSight) assert.ok(Math.abs(c.value - live[i][j]) <= 1e-12, `Scaled[${i}][${j}] in sight after the scroll: ${c.value}, expected ${live[i][j]}`);
  }));
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  assertClose((await cells()).map((row) => row.map((c) => c.value)), live, 'Scaled once let go');
  assert.deepEqual(problems, []);
  await context.close();
});

test('page: a click types in a cell; Alt+↑/↓ step its number; a cell that is not a number is not dragged', async () => {
  const { context, page, problems } = await openPage(6);
  const cell = page.locator('#editor-x input[data-r="0"][data-c="0"]');
  await cell.click();
  assert.deepEqual(await cell.evaluate((input) => [document.activeElement === input, input.selectionStart, input.selectionEnd]), [true, 0, 1]);
  await page.keyboard.press('Alt+ArrowUp');
  assert.equal(await cell.inputValue(), '1.1');
  await page.keyboard.press('Alt+Shift+ArrowDown');
  assert.equal(await cell.inputValue(), '1.09');
  assertClose(await shown(page, 'Output'), attention(withX00(1.09)).Output, 'output at 1.09');
  await page.keyboard.press('ArrowDown'); // without Alt: the next row, as before
  assert.equal(await page.evaluate(() => document.activeElement.dataset.r), '1');
  await cell.click();
  await page.keyboard.type('0.25');
  assert.equal(await cell.inputValue(), '0.25', 'the click selected the text, typing replaces it');
  assertClose(await shown(page, 'Output'), attention(withX00(0.25)).Output, 'output at 0.25');
  // a focused cell keeps the mouse for its text: no drag
  const { x, y } = await middle(cell);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 40, y, { steps: 4 });
  await page.mouse.up();
  assert.equal(await cell.inputValue(), '0.25');
  await page.fill('#editor-x input[data-r="0"][data-c="1"]', 'abc');
  await page.evaluate(() => document.activeElement.blur());
  const bad = await middle(page.locator('#editor-x input[data-r="0"][data-c="1"]'));
  await page.mouse.move(bad.x, bad.y);
  await page.mouse.down();
  await page.mouse.move(bad.x + 40, bad.y, { steps: 4 });
  await page.mouse.up();
  assert.equal(await page.inputValue('#editor-x input[data-r="0"][data-c="1"]'), 'abc');
  assert.deepEqual(problems, []);
  await context.close();
});

test('element with editable: the slider and a dragged number update live, one change event a drag', async () => {
  const { context, page, problems } = await open(EXAMPLE);
  // far down the tutorial, the playground is drawn once the reader scrolls near it
  await page.locator('#playground').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('playground').shadowRoot.querySelector('table.matrix[data-matrix="Weights"]'));
  await page.evaluate(() => {
    globalThis.changes = 0;
    document.getElementById('playground').addEventListener('change', () => { globalThis.changes += 1; });
  });
  const changes = () => page.evaluate(() => globalThis.changes);
  const slider = page.locator('#playground .temperature-slider');
  assert.equal(await slider.getAttribute('aria-valuetext'), '温度 T = 1');
  const { x, y, box } = await middle(slider);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.85, y, { steps: 3 });
  const midT = sliderT(Number(await slider.inputValue()));
  assert.ok(midT > 1);
  assertClose(await shown(page, 'Weights', 'playground'), attention(TUTORIAL, { temperature: midT }).Weights, `weights at T = ${midT} during the drag`);
  assert.equal(await changes(), 0, 'no change event during the drag');
  await page.mouse.up();
  assert.equal(await changes(), 1);
  const endT = sliderT(Number(await slider.inputValue()));
  assert.equal(await page.evaluate(() => document.getElementById('playground').state.temperature), endT);
  assertClose(await shown(page, 'Weights', 'playground'), attention(TUTORIAL, { temperature: endT }).Weights, `weights at T = ${endT}`);
  await slider.focus();
  await page.keyboard.press('Home');
  assert.equal(await page.evaluate(() => document.getElementById('playground').state.temperature), 0.05);
  assert.equal(await changes(), 2, 'a key is one change');
  await page.keyboard.press('End');
  assertClose(await shown(page, 'Weights', 'playground'), attention(TUTORIAL, { temperature: 20 }).Weights, 'weights at T = 20');

  const cell = page.locator('#playground section[data-field="x"] input[data-r="0"][data-c="0"]');
  const before = await changes();
  const at = await middle(cell);
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  await page.mouse.move(at.x + 20, at.y, { steps: 2 });
  assert.equal(await cell.inputValue(), '1.2');
  assertClose(await shown(page, 'Weights', 'playground'), attention(withX00(1.2), { temperature: 20 }).Weights, 'weights during the drag');
  await page.locator('#playground').screenshot({ path: '/tmp/manipulate-element-scrub.png' });
  await page.mouse.move(at.x + 120, at.y, { steps: 4 }); // beyond the cell: it keeps the pointer
  await page.mouse.up();
  assert.equal(await changes(), before + 1, 'one change event for the drag');
  assert.equal(await page.evaluate(() => document.getElementById('playground').state.x[0][0]), 2.2);
  assertClose(await shown(page, 'Weights', 'playground'), attention(withX00(2.2), { temperature: 20 }).Weights, 'weights after the drag');
  await cell.click();
  await page.keyboard.press('Alt+Shift+ArrowDown');
  assert.equal(await page.evaluate(() => document.getElementById('playground').state.x[0][0]), 2.19);
  assert.deepEqual(problems, []);
  await context.close();
});

test('screenshots of the slider and of a drag at 1280 and 375 px, zh and en, light and dark', async () => {
  for (const width of [1280, 375]) {
    for (const colorScheme of ['light', 'dark']) {
      const { context, page, problems } = await openPage(5, { viewport: { width, height: 900 }, colorScheme });
      for (const lang of ['en', 'zh']) {
        if (await page.getAttribute('html', 'lang') !== (lang === 'zh' ? 'zh-CN' : 'en')) await page.click('#lang-toggle');
        const name = `${width}-${lang}-${colorScheme}`;
        // the slider mid-drag, with its text box beside it and both on screen
        const slider = page.locator('#temperature-slider');
        const s = await middle(slider);
        const text = await page.locator('#temperature').boundingBox();
        assert.ok(text.x + text.width <= width && s.box.x >= 0, `${name}: the slider and its value fit`);
        await page.mouse.move(s.x, s.y);
        await page.mouse.down();
        await page.mouse.move(s.box.x + s.box.width * 0.25, s.y, { steps: 2 });
        await page.locator('.variant-controls').screenshot({ path: `/tmp/manipulate-slider-${name}.png` });
        await page.mouse.up();
        // a number of X mid-drag, with its hint
        const cell = page.locator('#editor-x input[data-r="1"][data-c="0"]');
        const c = await middle(cell);
        await page.mouse.move(c.x, c.y);
        await page.mouse.down();
        await page.mouse.move(c.x + 24, c.y, { steps: 2 });
        assert.equal(await cell.inputValue(), '0.74', `${name}: dragged`);
        await page.screenshot({ path: `/tmp/manipulate-scrub-${name}.png` });
        await page.mouse.up();
        await page.keyboard.press('Control+z');
        await page.keyboard.press('Control+z');
        assert.equal(await cell.inputValue(), '0.5', `${name}: both drags undone`);
        assert.equal(await page.inputValue('#temperature'), '1');
      }
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
});
