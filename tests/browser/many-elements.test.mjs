// Many elements on a page (issue 32 item 14): an element far from the viewport is neither drawn
// nor computed until it comes near, a script asks for it, or the page is printed; every element
// shares the one engine. (The speed of a page of 50 is `node scripts/bench.mjs --elements`.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { browserAndServer } from './local.mjs';
import { pageFolder, TUTORIAL } from './host-pages.mjs';
import { manyElementsPage } from './many-page.mjs';
import { TUTORIAL_EXPECTED } from '../js/fixtures.mjs';

const dir = pageFolder('many-elements', ['attention-visualizer.js']);
writeFileSync(path.join(dir, 'many.html'), manyElementsPage(50, 'attention-visualizer.js'));
const local = browserAndServer(dir);

// Each element's computed events (by id), and the WebAssembly modules the page compiled.
function recorder() {
  window.computedCount = {};
  document.addEventListener('computed', (event) => {
    window.computedCount[event.target.id] = (window.computedCount[event.target.id] || 0) + 1;
  }, true);
  window.wasmModules = 0;
  for (const name of ['compile', 'instantiate']) {
    const original = WebAssembly[name];
    WebAssembly[name] = function counted(source, ...rest) {
      if (!(source instanceof WebAssembly.Module)) window.wasmModules += 1;
      return original.call(this, source, ...rest);
    };
  }
}

let shared = null;
// The page of 50 elements at 1280 × 900, opened once, its first elements computed.
async function manyPage() {
  if (!shared) {
    const page = await local.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.addInitScript(recorder);
    await page.goto(local.at('many.html'));
    await page.waitForFunction(() => window.computedCount.av0 && window.computedCount.av1);
    shared = { page, problems };
  }
  return shared;
}

const computed = (page, id) => page.evaluate((i) => window.computedCount[i] || 0, id);
const drawn = (page, id) => page.evaluate((i) => Boolean(document.getElementById(i).shadowRoot.querySelector('.steps table')), id);
// two frames: whatever the intersection observer had to start has been started
const frames = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));

test('an element far below the viewport is not computed until it is scrolled near; the page compiles one engine for all', async () => {
  const { page, problems } = await manyPage();
  await frames(page);
  assert.equal(await computed(page, 'av30'), 0, 'far below: not computed');
  assert.equal(await drawn(page, 'av30'), false, 'nor drawn');
  // far elements keep a frame of about an element's height: the page does not collapse into view
  assert.ok(await page.evaluate(() => document.getElementById('av30').getBoundingClientRect().height > 300));
  await page.evaluate(() => document.getElementById('av29').scrollIntoView());
  await page.waitForFunction(() => window.computedCount.av30 === 1);
  assert.equal(await drawn(page, 'av30'), true);
  await frames(page);
  assert.equal(await computed(page, 'av49'), 0, 'the last element is still far');
  assert.equal(await page.evaluate(() => window.wasmModules), 1, 'one engine for every element');
  assert.deepEqual(problems, []);
});

test('every documented API works on an element not yet drawn: ready, state, load(), result, computing, error, events', async () => {
  const { page, problems } = await manyPage();
  await page.evaluate(() => window.scrollTo(0, 0));
  await frames(page);
  const out = await page.evaluate(async ({ tutorial }) => {
    const far = (i) => document.getElementById(`av${i}`);
    const notYet = [40, 41, 42, 43, 44, 45, 46].every((i) => !window.computedCount[`av${i}`]);
    const got = {};
    // el.ready resolves with the element, its result on screen
    got.ready = (await far(40).ready) === far(40) && far(40).result.heads[0].weights.length === 3;
    // the ready event, heard by a listener added before asking
    const heard = new Promise((resolve) => far(41).addEventListener('ready', (e) => resolve(e.detail.state.tokens), { once: true }));
    far(41).ready;
    got.readyEvent = await heard;
    // state set by property: computed (its computed event sent) with the worked example's numbers
    const done = new Promise((resolve) => far(42).addEventListener('computed', resolve, { once: true }));
    far(42).state = { tokens: ['我', '爱', '你'], x: tutorial.x, heads: [{ wq: tutorial.wq, wk: tutorial.wk, wv: tutorial.wv }] };
    await done;
    got.output = far(42).result.output;
    // load(): a whole state, computed
    const whole = { ...far(42).state, view: { ...far(42).state.view, step: 'softmax' } };
    const loaded = new Promise((resolve) => far(43).addEventListener('computed', resolve, { once: true }));
    far(43).load(whole);
    await loaded;
    got.loaded = far(43).result.heads[0].weights;
    got.loadedStep = far(43).shadowRoot.querySelector('.steps > .step').dataset.step;
    // with the engine loaded, a small state asked for is computed at once: computing is false
    // and result there on first reading, as for an element in view
    got.computing = far(44).computing;
    got.result = far(45).result?.heads[0].weights.length;
    // a state the engine refuses, computed at once (the engine is loaded): throws, the state stays
    const before = JSON.stringify(far(46).state);
    try {
      far(46).state = { temperature: 1e-320 };
      got.refused = 'not thrown';
    } catch (error) {
      got.refused = `${error.name}: ${error.descriptor.key}`;
    }
    got.kept = JSON.stringify(far(46).state) === before;
    got.error = far(46).error;
    // an element made by a script and asked for before it is connected, then connected far below
    const made = document.createElement('attention-visualizer');
    made.setAttribute('sentence', 'made by a script');
    const ready = made.ready;
    document.body.append(made);
    got.made = (await ready) === made && made.result.heads[0].weights.length === 4;
    return { notYet, ...got };
  }, { tutorial: TUTORIAL });
  assert.equal(out.notYet, true, 'the elements asked for were not computed before');
  assert.equal(out.ready, true);
  assert.equal(out.readyEvent.length, 6);
  for (const [i, row] of TUTORIAL_EXPECTED.output.entries()) {
    for (const [j, value] of row.entries()) assert.ok(Math.abs(out.output[i][j] - value) < 1e-12, `output[${i}][${j}]`);
  }
  for (const [i, row] of TUTORIAL_EXPECTED.weights.entries()) {
    for (const [j, value] of row.entries()) assert.ok(Math.abs(out.loaded[i][j] - value) < 1e-12, `weights[${i}][${j}]`);
  }
  assert.equal(out.loadedStep, 'softmax');
  assert.equal(out.computing, false);
  assert.equal(out.result, 10); // 'a b c d e f g h i j'
  assert.equal(out.refused, 'TypeError: errOverflow');
  assert.equal(out.kept, true);
  assert.equal(out.error, null);
  assert.equal(out.made, true);
  assert.deepEqual(problems, []);
});

test('printing draws and computes every element', async () => {
  const { page, problems } = await manyPage();
  assert.ok(await page.evaluate(() => [...document.querySelectorAll('attention-visualizer')].some((v) => !window.computedCount[v.id])));
  await page.pdf(); // Chromium's printing sends beforeprint
  const missing = await page.evaluate(() => [...document.querySelectorAll('attention-visualizer')]
    .filter((v) => !v.shadowRoot.querySelector('.steps table')).map((v) => v.id));
  assert.deepEqual(missing, []);
  assert.deepEqual(problems, []);
});
