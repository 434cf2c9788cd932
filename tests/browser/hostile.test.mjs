// Hostile inputs on every path (issue 13): arrays and objects nested 10 000
// deep in every field, 100 KB cells, megabyte tokens, a 5 MB message, bad
// base64 and UTF-8, a BOM, control characters, lone surrogates and bursts,
// through the URL hash, stored state, element attributes and `state`
// property, embed.html's postMessage, dropped files and pastes into a cell.
// Each case: nothing runs (a payload sets no global), the main thread never
// blocks for BLOCK_MS or more (long tasks; 28 s before these fixes), a
// message shows where the user looks, and the last good result and
// whatever the user made stay. Payloads come from tests/js/hostile-payloads.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { STATE_KEY, DAMAGED_KEY } from '../../web/src/state/persist.js';
import { browserAndServer } from './local.mjs';
import { watchedContext, assertInert, longestTask } from './watch.mjs';
import { openEditor } from './ui.mjs';
import {
  nestedStates, nestedArrayText, withFieldText, fullState, namedField, CONTROL, LONE_SURROGATES, INVALID_UTF8,
} from '../js/hostile-payloads.mjs';

const DIST = path.resolve('dist');
const local = browserAndServer(DIST);
const { at } = local;

// Generous for two loaded cores, far below the seconds these inputs took.
const BLOCK_MS = 2000;
const DEPTH = 10_000;
const RUN = 'window.__pwned=1';
const IMG = `<img src=x onerror="${RUN}">`;
const IMG_JSON = JSON.stringify(IMG);
const hashOf = (text) => `#av1.${Buffer.from(text).toString('base64url')}`;
const longTokens = (length) => ({ ...tutorialState('en'), tokens: ['a', 'b', 'c'].map((c) => `${c}${IMG}`.padEnd(length, 'é')) });

async function assertQuick(page, label) {
  const longest = await longestTask(page);
  assert.ok(longest < BLOCK_MS, `${label}: the main thread was blocked for ${longest} ms`);
}

// A full page at `hash`, its first result on screen.
async function fullPage(context, hash = '') {
  const page = await context.newPage();
  await page.goto(`${at('index.html?example=tutorial')}${hash}`);
  await page.waitForFunction(() => document.querySelector('#steps table.matrix'));
  await openEditor(page);
  return page;
}

const stepsText = (page) => page.$eval('#steps', (steps) => steps.textContent);
const statusError = (page) => page.$eval('#status', (s) => [...s.querySelectorAll('.status-error')].map((p) => p.textContent).join('\n'));

test('URL hash: states nested 10 000 deep in every field, megabyte tokens and bad encodings get a message; the page starts and keeps its result', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    // the first address already hostile: the page starts, says why, shows the tutorial
    const page = await fullPage(context, hashOf(withFieldText(fullState(), 'version', nestedArrayText(DEPTH, IMG_JSON))));
    assert.match(await statusError(page), /The state is not valid: version \[…\] is not supported/);
    await assertQuick(page, 'load');
    const shown = await stepsText(page);
    const hostile = [
      ...nestedStates(DEPTH, IMG_JSON).map(({ field, kind, text }) => ({
        label: `${field} nested as ${kind}s`, hash: hashOf(text), message: field === 'version' ? 'version ' : `“${namedField(field)}`,
      })),
      { label: 'three tokens of 150 000 characters', hash: `#${encodeHash(longTokens(150_000))}`, message: 'at most 100 characters: token 1 has 150000' },
      { label: 'base64 of a bad length', hash: '#av1.a', message: 'damaged' },
      { label: 'not base64', hash: '#av1.%%%', message: 'damaged' },
      { label: 'not UTF-8', hash: `#av1.${Buffer.from(INVALID_UTF8).toString('base64url')}`, message: 'damaged' },
      { label: 'a megabyte of base64 that is no state', hash: `#av1.${'A'.repeat(1_000_000)}`, message: 'damaged' },
    ];
    for (const { label, hash, message } of hostile) {
      await page.evaluate(() => { document.querySelector('#status').textContent = ''; });
      await page.evaluate((h) => { location.hash = h; }, hash);
      await page.waitForFunction(() => document.querySelector('#status .status-error'));
      const error = await statusError(page);
      assert.ok(error.includes(message), `${label}: ${error.slice(0, 200)}`);
      assert.equal(await stepsText(page), shown, `${label}: the last result stays`);
      await assertQuick(page, label);
    }
    // a BOM, control characters and lone surrogates make good tokens, shown as text
    const odd = { ...tutorialState('en'), tokens: [CONTROL, LONE_SURROGATES.join(''), IMG] };
    await page.evaluate((h) => { location.hash = h; }, hashOf(`\ufeff${JSON.stringify(odd)}`));
    await page.waitForFunction(() => document.querySelectorAll('#token-list input').length === 3 && !document.querySelector('#status .status-error'));
    const tokens = await page.$$eval('#token-list input', (inputs) => inputs.map((i) => i.value));
    // an input's value holds no line breaks (they become nothing); lone surrogates stay as they are
    assert.deepEqual(tokens, [CONTROL.replace(/[\n\r]/g, ''), LONE_SURROGATES.join(''), IMG]);
    await assertQuick(page, 'odd tokens');
    await assertInert(page, seen, 'URL hash');
  } finally {
    await context.close();
  }
});

test('stored state: nested 10 000 deep, megabyte tokens or no JSON is set aside whole with a message, and the page starts', async () => {
  const stored = [
    { label: 'version nested 10 000 deep', text: withFieldText(fullState(), 'version', nestedArrayText(DEPTH, IMG_JSON)), message: 'version [' },
    { label: 'a cell nested 10 000 deep', text: withFieldText(fullState(), 'x[0][0]', nestedArrayText(DEPTH, IMG_JSON)), message: '“x” has […]' },
    { label: 'three tokens of 150 000 characters', text: JSON.stringify(longTokens(150_000)), message: 'at most 100 characters' },
    { label: 'not JSON', text: `${CONTROL}${IMG}`, message: 'not valid JSON' },
  ];
  for (const { label, text, message } of stored) {
    const { context, seen } = await watchedContext(local);
    try {
      const seed = await context.newPage();
      await seed.goto(at('style.css')); // the page's origin, without the page
      await seed.evaluate(([key, value]) => localStorage.setItem(key, value), [STATE_KEY, text]);
      await seed.close();
      const page = await fullPage(context);
      await page.waitForFunction(() => document.querySelector('#storage-notice .status-error'));
      const notice = await page.textContent('#storage-notice');
      assert.ok(notice.includes(message), `${label}: ${notice.slice(0, 200)}`);
      assert.equal(await page.evaluate((key) => localStorage.getItem(key), DAMAGED_KEY), text, `${label}: kept whole`);
      assert.deepEqual(await page.$$eval('#token-list input', (inputs) => inputs.map((i) => i.value)), tutorialState().tokens);
      await assertQuick(page, label);
      await assertInert(page, seen, `stored state, ${label}`);
    } finally {
      await context.close();
    }
  }
});

// The tutorial example page with its elements ready.
async function elementPage(context) {
  const page = await context.newPage();
  await page.goto(at('examples/tutorial.html'));
  await page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result));
  return page;
}

// Adds an element with these attributes; returns its status errors once it has drawn.
const addElement = (page, attributes) => page.evaluate(async (list) => {
  const v = document.createElement('attention-visualizer');
  for (const [name, value] of list) v.setAttribute(name, value);
  document.body.append(v);
  // at the end of the tutorial, far below: drawn once the reader scrolls to it
  v.scrollIntoView();
  await v.ready.catch(() => {});
  await new Promise((resolve) => { requestAnimationFrame(resolve); });
  return {
    errors: [...v.shadowRoot.querySelectorAll('.status-error')].map((p) => p.textContent),
    tokens: v.state.tokens,
    step: v.state.view.step,
  };
}, Object.entries(attributes));

test('element attributes: nesting, megabyte tokens, 100 KB cells, a decimal comma and a bad step get a message in the element; it shows the tutorial', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await elementPage(context);
    const deepState = withFieldText(fullState(), 'version', nestedArrayText(DEPTH, IMG_JSON));
    const deep = nestedArrayText(DEPTH, IMG_JSON);
    const long = JSON.stringify(longTokens(150_000).tokens);
    const cases = [
      [{ state: deepState }, 'Attribute state is not valid: The state is not valid: version […] is not supported'],
      [{ state: hashOf(deepState).slice(1) }, 'Attribute state is not valid: The state is not valid: version […] is not supported'],
      [{ state: withFieldText(fullState(), 'x[0][0]', nestedArrayText(DEPTH)) }, '“x” has […] at row 1, column 1'],
      [{ tokens: deep }, 'Attribute tokens is not valid: The state is not valid: “tokens” must hold non-empty strings'],
      [{ heads: deep }, 'Attribute heads is not valid: The state is not valid: “heads” must be an array'],
      [{ x: deep }, 'Attribute x is not valid: “x” has […] at row 1, column 1: a finite number is expected.'],
      [{ context: '1 0; 0 1', 'context-tokens': deep }, '“context.tokens” must hold non-empty strings'],
      [{ tokens: long }, '“tokens” must hold tokens of at most 100 characters: token 1 has 150000.'],
      [{ sentence: `I love ${'y'.repeat(150_000)}`, tokenize: 'space' }, '“tokens” must hold tokens of at most 100 characters: token 3 has 150000.'],
      [{ x: `1 0; 0.5 ${'5'.repeat(100_000)}; 0 1` }, 'Attribute x is not valid: Row 2, column 2 holds 100000 characters: too long for a number (at most 100).'],
      [{ x: `1 0; 0.5 ${'1'.repeat(100_000)}a; 0 1` }, 'Row 2, column 2 holds 100001 characters'],
      [{ 'key-padding': `${'t'.repeat(100_000)},false,true` }, `Attribute key-padding is not valid: entry 1, “${'t'.repeat(40)}…”, must be true, false, 1 or 0.`],
      [{ temperature: '0,5' }, 'Attribute temperature is not valid: “temperature” must be written with a decimal point: 0.5, not 0,5.'],
      [{ temperature: `${'2'.repeat(100_000)}` }, 'Attribute temperature is not valid: “temperature” must be a finite number above 0.'],
      [{ step: 'bogus' }, 'Attribute step is not valid: “step” must be all, a step number from 1 to 7, or one of input, project, scores, scale, softmax, output, learn.'],
      [{ step: IMG }, 'Attribute step is not valid'],
    ];
    for (const [attributes, message] of cases) {
      const label = Object.keys(attributes).join(', ');
      const { errors, tokens } = await addElement(page, { lang: 'en', ...attributes });
      assert.equal(errors.length, 1, `${label}: ${errors}`);
      assert.ok(errors[0].includes(message), `${label}: ${errors[0].slice(0, 300)}`);
      assert.deepEqual(tokens, tutorialState().tokens, `${label}: the tutorial shows`);
      await assertQuick(page, label);
    }
    // step="Softmax" (issue 13.13): read as softmax, so the link and embed code copied later open
    const softmax = await addElement(page, { lang: 'en', step: ' Softmax ' });
    assert.deepEqual([softmax.errors, softmax.step], [[], 'softmax']);
    // an element that worked keeps its state when an attribute turns hostile
    const kept = await page.evaluate(async ([deepText]) => {
      const v = [...document.querySelectorAll('attention-visualizer')].at(-1);
      const before = JSON.stringify(v.state);
      v.setAttribute('tokens', deepText);
      await new Promise((resolve) => { requestAnimationFrame(resolve); });
      return { same: JSON.stringify(v.state) === before, error: v.shadowRoot.querySelector('.status-error').textContent };
    }, [deep]);
    assert.deepEqual(kept, { same: true, error: 'Attribute tokens is not valid: The state is not valid: “tokens” must hold non-empty strings: token 1 is not one.' });
    await assertQuick(page, 'attribute change');
    await assertInert(page, seen, 'element attributes');
  } finally {
    await context.close();
  }
});

test('element `state` property: nesting and megabyte tokens throw the documented TypeError and change nothing; a new token count without keyPadding is taken', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await elementPage(context);
    const results = await page.evaluate(([depth, run]) => {
      let deep = run;
      for (let i = 0; i < depth; i++) deep = [deep];
      const v = document.getElementById('playground');
      const before = JSON.stringify(v.state);
      const attempt = (value) => {
        try {
          v.state = value;
          return 'accepted';
        } catch (error) {
          return `${error.constructor.name}: ${error.message}`;
        }
      };
      const refused = [
        attempt({ version: deep }),
        attempt({ x: [[deep, 0], [0, 1], [1, 1]] }),
        attempt({ heads: [{ wq: deep, wk: deep, wv: deep }] }),
        attempt({ view: { step: deep } }),
        attempt({ tokens: ['a', 'b', 'c'].map((c) => c.padEnd(150_000, c)) }),
        attempt({ tokens: ['a', 'b', 'c'], [run.repeat(50_000)]: deep }),
      ];
      const unchanged = JSON.stringify(v.state) === before;
      // issue 13.13: the old padding of 3 keys does not block a state of 4
      const padded = [attempt({ keyPadding: [false, true, false] }), v.state.keyPadding];
      const sameCount = [attempt({ tokens: ['p', 'q', 'r'] }), v.state.keyPadding];
      const four = [attempt({ tokens: ['a', 'b', 'c', 'd'], x: [[1, 0], [0, 1], [1, 1], [0.5, 0]] }), v.state.keyPadding];
      return { refused, unchanged, padded, sameCount, four };
    }, [DEPTH, IMG]);
    for (const message of results.refused) assert.match(message, /^TypeError: The state is not valid: /);
    assert.match(results.refused[0], /version \[…\] is not supported/);
    assert.match(results.refused[4], /at most 100 characters: token 1 has 150000/);
    assert.ok(results.refused.every((m) => m.length < 300));
    assert.equal(results.unchanged, true);
    assert.deepEqual(results.padded, ['accepted', [false, true, false]]);
    assert.deepEqual(results.sameCount, ['accepted', [false, true, false]], 'the same number of keys keeps its padding');
    assert.deepEqual(results.four, ['accepted', [false, false, false, false]]);
    await assertQuick(page, 'state property');
    await assertInert(page, seen, 'state property');
  } finally {
    await context.close();
  }
});

test('embed.html: a link nested 10 000 deep still starts the postMessage interface; nested, 5 MB and a burst of messages are answered without blocking', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await context.newPage();
    await page.goto(`${at('embed.html')}${hashOf(withFieldText(fullState(), 'version', nestedArrayText(DEPTH, IMG_JSON)))}`);
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
    const shadowError = () => page.evaluate(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.status-error')?.textContent);
    // in the reader's language (the browser's, as the link gave none), about the link
    assert.match(await shadowError(), /^This link cannot be opened: version \[…\] is not supported/);
    await assertQuick(page, 'load');
    // the host's side: send, and wait for the replies to these ids
    await page.evaluate(() => {
      window.__replies = new Map();
      window.addEventListener('message', (e) => { if (e.data && /:(state|error)$/.test(e.data.type)) window.__replies.set(e.data.id, e.data); });
    });
    const replies = (ids) => page.evaluate(async (list) => {
      while (!list.every((id) => window.__replies.has(id))) await new Promise((resolve) => { setTimeout(resolve, 20); });
      return list.map((id) => window.__replies.get(id));
    }, ids);
    const ask = async (messages) => {
      await page.evaluate((list) => { for (const m of list) window.postMessage(m, '*'); }, messages);
      return replies(messages.map((m) => m.id));
    };
    const [start] = await ask([{ type: 'attention-visualizer:get', id: 'start' }]);
    assert.equal(start.type, 'attention-visualizer:state');
    assert.deepEqual(start.state.tokens, tutorialState().tokens);

    // As deep as a host can send: Chromium's postMessage refuses to serialise 10 000 levels itself.
    const sent = await page.evaluate(async ([depth, payload]) => {
      const nested = (n) => {
        let v = payload;
        for (let i = 0; i < n; i++) v = [v];
        return v;
      };
      let n = depth;
      for (;;) {
        try {
          structuredClone(nested(n));
          break;
        } catch {
          n = Math.floor(n * 0.8);
        }
      }
      const deep = nested(n);
      for (const [id, state] of [['version', { version: deep }], ['cell', { x: [[deep, 0], [0, 1], [1, 1]] }], ['tokens', { tokens: deep }],
        ['view', { view: { step: deep, lang: deep } }]]) {
        window.postMessage({ type: 'attention-visualizer:set', state, id }, '*');
      }
      window.postMessage({ type: 'attention-visualizer:set', state: { tokens: ['x'.repeat(5_000_000), 'b', 'c'] }, id: '5 MB' }, '*');
      return n;
    }, [DEPTH, IMG]);
    assert.ok(sent >= 1000, `nested ${sent} deep`);
    const refused = await replies(['version', 'cell', 'tokens', 'view', '5 MB']);
    for (const reply of refused) {
      assert.equal(reply.type, 'attention-visualizer:error', reply.id);
      assert.ok(reply.message.en.length < 300 && reply.message.zh.length < 300, reply.id);
    }
    assert.match(refused[0].message.en, /version \[…\] is not supported/);
    assert.match(refused[1].message.en, /“x” has \[…\] at row 1, column 1/);
    assert.match(refused[4].message.en, /at most 100 characters: token 1 has 5000000/);
    assert.match(refused[4].message.zh, /最多 100 个字符：第 1 个有 5000000 个/);
    await assertQuick(page, 'nested and 5 MB messages');

    // a burst: 100 sets posted in one task, each answered, the last one wins
    const burst = Array.from({ length: 100 }, (_, i) => ({ type: 'attention-visualizer:set', state: { temperature: 0.5 + i / 100 }, id: `burst ${i}` }));
    const answers = await ask(burst);
    assert.ok(answers.every((r) => r.type === 'attention-visualizer:state'));
    assert.equal(answers.at(-1).state.temperature, 0.5 + 99 / 100);
    await assertQuick(page, 'a burst of 100 messages');

    // control characters and lone surrogates are tokens like any other, shown as text
    const odd = [CONTROL, LONE_SURROGATES.join(''), IMG];
    const [reply] = await ask([{ type: 'attention-visualizer:set', state: { tokens: odd }, id: 'odd' }]);
    assert.deepEqual(reply.state.tokens, odd);
    const [end] = await ask([{ type: 'attention-visualizer:get', id: 'end' }]);
    assert.deepEqual(end.state.tokens, odd);
    assert.equal(end.state.temperature, 0.5 + 99 / 100, 'nothing refused changed the state');
    await assertInert(page, seen, 'embed.html');
  } finally {
    await context.close();
  }
});

// Files dropped on the page (texts, or bytes as arrays of numbers).
const drop = (page, files) => page.evaluate((list) => {
  const transfer = new DataTransfer();
  for (const [name, data] of list) transfer.items.add(new File([typeof data === 'string' ? data : new Uint8Array(data)], name));
  document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
}, files);

test('dropped files: nested, long, badly encoded and decimal-comma files get a message naming the file; the result stays', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await fullPage(context);
    const shown = await stepsText(page);
    const files = [
      ['deep.json', withFieldText(fullState(), 'version', nestedArrayText(DEPTH, IMG_JSON)), 'deep.json: The state is not valid: version […] is not supported'],
      ['cell.json', withFieldText(fullState(), 'heads[0].wq[0][0]', nestedArrayText(DEPTH, IMG_JSON)), 'cell.json: The state is not valid: “heads[0].wq” has […]'],
      ['matrix.json', nestedArrayText(DEPTH, IMG_JSON), 'matrix.json: row 1, column 1 is not a number (“[…]”).'],
      ['long.json', JSON.stringify(longTokens(150_000)), 'long.json: The state is not valid: “tokens” must hold tokens of at most 100 characters: token 1 has 150000.'],
      ['x.csv', `1,${'5'.repeat(100_000)}\n1,0\n0,1\n`, 'x.csv: Row 1, column 2 holds 100000 characters: too long for a number (at most 100).'],
      ['sheet.csv', '1,5\t2,5\n3,5\t4,5\n0\t1\n', 'sheet.csv: Row 1, column 1: “1,5” has a decimal comma.'],
      ['controls.csv', `1 2\n3 ${CONTROL}\n0 1\n`, 'controls.csv: row 2, column 2 is not a number'],
      ['bytes.csv', [0x31, 0x2c, ...INVALID_UTF8, 0x0a], 'bytes.csv: row 1, column 2 is not a number (“\ufffd(\ufffd\ufffd\ufffd\ufffd\ufffd”).'],
    ];
    for (const [name, data, message] of files) {
      await drop(page, [[name, data]]);
      await page.waitForFunction((n) => document.querySelector('#share-tools .av-message')?.textContent.startsWith(n), name);
      assert.equal(await page.$eval('#share-tools .av-message', (p) => p.className), 'av-message error', name);
      const text = await page.textContent('#share-tools .av-message');
      assert.ok(text.startsWith(message), `${name}: ${text.slice(0, 200)}`);
      assert.equal(await stepsText(page), shown, `${name}: the result stays`);
      await assertQuick(page, name);
    }
    // a state written with a BOM reads as the state
    const odd = { ...tutorialState('en'), tokens: [CONTROL.replace(/\s/g, ''), LONE_SURROGATES.join(''), IMG] };
    await drop(page, [['bom.json', `\ufeff${JSON.stringify(odd)}`]]);
    await page.waitForFunction(() => document.querySelector('#share-tools .av-message')?.textContent.includes('bom.json'));
    assert.equal(await page.textContent('#share-tools .av-message'), 'Imported the state bom.json.');
    assert.deepEqual(await page.$$eval('#token-list input', (inputs) => inputs.map((i) => i.value)), odd.tokens);
    await assertQuick(page, 'bom.json');
    await assertInert(page, seen, 'dropped files');
  } finally {
    await context.close();
  }
});

// A paste as the browser does it: the page's handler first; unless it took
// the text, the text goes into the field (which fires input).
const paste = (page, selector, text) => page.locator(selector).evaluate((input, data) => {
  input.focus();
  input.select();
  const transfer = new DataTransfer();
  transfer.setData('text/plain', data);
  const event = new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true });
  if (input.dispatchEvent(event)) document.execCommand('insertText', false, data);
}, text);

const cellValues = (page, editor) => page.$$eval(`${editor} input[data-r]`, (inputs) => inputs.map((i) => i.value));

test('pasting and typing into the page: a 100 KB cell, a 100 KB block, decimal commas and a 150 000-character word get a message by the field; nothing typed is lost', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await fullPage(context);
    const shown = await stepsText(page);
    const cells = await cellValues(page, '#editor-x');
    const first = '#editor-x input[data-r="0"][data-c="0"]';
    const xError = () => page.textContent('#x-error');
    const stale = () => page.$eval('#steps', (steps) => steps.classList.contains('stale'));

    // one cell's own text: kept in the cell, with the message under the grid
    for (const [text, message] of [['5'.repeat(100_000), 'Row 1 (我), column 1 holds 100000 characters: too long for a number (at most 100).'],
      ['0,5', 'Row 1 (我), column 1: “0,5” has a decimal comma. Write decimals with a point (0.5, not 0,5)']]) {
      await paste(page, first, text);
      await page.waitForFunction(() => document.querySelector('#x-error').textContent !== '');
      assert.ok((await xError()).startsWith(message), await xError());
      assert.equal(await page.inputValue(first), text, 'the cell keeps what was pasted');
      assert.equal(await stale(), true);
      assert.equal(await stepsText(page), shown, 'the last result stays');
      await assertQuick(page, `a pasted cell of ${text.length} characters`);
      await page.fill(first, '1');
      await page.waitForFunction(() => document.querySelector('#x-error').textContent === '');
    }
    // blocks that do not read: refused whole, the grid as it was
    for (const [text, message] of [[`${Array(50_000).fill('1').join(' ')} ${IMG}`, 'Row 1 (我), column 50001: “<img'],
      ['1,5\t2,5\n3,5\t4,5\n0\t1', 'Row 1 (我), column 1: “1,5” has a decimal comma.']]) {
      await paste(page, first, text);
      await page.waitForFunction(() => document.querySelector('#x-error').textContent !== '');
      assert.ok((await xError()).startsWith(message), await xError());
      assert.deepEqual(await cellValues(page, '#editor-x'), cells);
      await assertQuick(page, `a pasted block of ${text.length} characters`);
      await page.fill(first, '1');
      await page.waitForFunction(() => document.querySelector('#x-error').textContent === '');
    }
    // the temperature is a single number
    await page.fill('#temperature', '0,5');
    await page.waitForFunction(() => document.querySelector('#temperature-error').textContent !== '');
    assert.equal(await page.textContent('#temperature-error'), 'Write the temperature with a decimal point: 0.5, not 0,5.');
    await page.fill('#temperature', '1');
    // a 150 000-character word: refused with its length; its chip and row label show it cut short
    await page.selectOption('#token-mode', 'space');
    await page.fill('#sentence', 'I love you');
    await page.waitForFunction(() => document.querySelector('#editor-x tbody th').textContent === 'I');
    const sentenceShown = await stepsText(page);
    const word = `<img/src=x/onerror=${RUN}>${'y'.repeat(150_000)}`; // one word: no spaces
    await page.fill('#sentence', `I love ${word}`);
    await page.waitForFunction(() => document.querySelector('#tokens-error').textContent !== '');
    assert.equal(await page.textContent('#tokens-error'), `Token 3 has ${word.length} characters; at most 100 are allowed.`);
    assert.equal(await page.inputValue('#sentence'), `I love ${word}`);
    const label = await page.$eval('#editor-x tbody tr:nth-child(3) th', (th) => [th.textContent, th.title, th.getAttribute('aria-label')]);
    assert.deepEqual(label, [`${word.slice(0, 24)}…`, word, word]);
    assert.equal(await stepsText(page), sentenceShown);
    await assertQuick(page, 'a 150 000-character word');
    await assertInert(page, seen, 'pasting and typing');
  } finally {
    await context.close();
  }
});

test('editing an element: a decimal-comma block, a long word and a decimal-comma temperature get a message under their field; its state stays', async () => {
  const { context, seen } = await watchedContext(local);
  try {
    const page = await elementPage(context);
    const playground = page.locator('#playground');
    const before = await playground.evaluate((v) => JSON.stringify(v.state));
    const message = (id) => playground.evaluate((v, field) => v.shadowRoot.getElementById(field).textContent, id);
    const stale = () => playground.evaluate((v) => v.shadowRoot.querySelector('.status-stale')?.textContent ?? '');
    await paste(page, '#playground >> input[aria-label="X[我, d1]"]', '1,5\t2,5\n3,5\t4,5\n0\t1');
    assert.equal(await message('x-error'), '第 1 行（我）第 1 列：“1,5”用了逗号作小数点。请用小数点（写 0.5，不写 0,5），也不要用千位分隔符；几个数之间用空格或制表符隔开。');
    await paste(page, '#playground >> input[aria-label="X[爱, d2]"]', '0,5');
    assert.match(await message('x-error'), /^第 2 行（爱）第 2 列：“0,5”用了逗号作小数点。/);
    assert.match(await stale(), /./, 'the steps keep the last good result, marked');
    await playground.locator('input[aria-label="X[爱, d2]"]').fill('0.5');
    assert.equal(await message('x-error'), '');
    assert.equal(await stale(), '');
    await playground.locator('#temperature').fill('0,5');
    assert.equal(await message('temperature-error'), '温度请用小数点书写：写 0.5，不写 0,5。');
    assert.equal(await playground.locator('#temperature').inputValue(), '0,5');
    await playground.locator('#temperature').fill('1');
    const sentence = playground.locator('#sentence');
    // one token a character (as 我爱你 is tokenized): too many; one a word: too long
    await sentence.fill(`I love ${'y'.repeat(150_000)}`);
    assert.equal(await message('tokens-error'), '有 150005 个词元，最多 4096 个。');
    await playground.locator('#token-mode').selectOption('space');
    await sentence.press('Tab'); // the text stays though the focus left
    assert.equal(await message('tokens-error'), '第 3 个词元有 150000 个字符，最多 100 个。');
    assert.equal(await sentence.inputValue(), `I love ${'y'.repeat(150_000)}`);
    assert.equal(await playground.evaluate((v) => JSON.stringify(v.state)), before);
    await assertQuick(page, 'editing an element');
    await assertInert(page, seen, 'editing an element');
  } finally {
    await context.close();
  }
});
