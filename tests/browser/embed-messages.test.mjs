// embed.html's postMessage interface (issue 13): only the parent window is
// listened to, and a `set` the engine refuses is answered with `error`, the
// state unchanged. The host page holds embed.html and a second, hostile frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserAndServer } from './local.mjs';
import { REFERENCE } from '../js/fixtures.mjs'; // tests/REFERENCE.md's true values
import { attention } from './reference.mjs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';

const local = browserAndServer(path.resolve('dist'));
const { at } = local;

// host.html: embed.html in #f and other.html (same origin) in #g; every
// message either window receives is recorded in its `received`.
async function host() {
  const context = await local.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  const record = '<script>window.received = []; window.addEventListener("message", (e) => window.received.push(e.data));</script>';
  await page.route(at('host.html'), (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><body><iframe id="f" src="embed.html"></iframe><iframe id="g" src="other.html"></iframe>${record}</body></html>`,
  }));
  await page.route(at('other.html'), (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body>${record}</body></html>` }));
  await page.goto(at('host.html'));
  await page.waitForFunction(() => window.received.some((m) => m.type === 'attention-visualizer:ready'));
  const frame = page.frames().find((f) => f.url().endsWith('embed.html') || f.url().includes('embed.html#'));
  const other = page.frames().find((f) => f.url().endsWith('other.html'));
  return { context, page, frame, other, problems };
}

// The reply to a message from the host page (the embed's parent).
const fromHost = (page, message) => page.evaluate((m) => new Promise((resolve) => {
  const start = window.received.length;
  document.getElementById('f').contentWindow.postMessage(m, '*');
  const poll = () => {
    const reply = window.received.slice(start).find((r) => r.id === m.id && /:(state|error)$/.test(r.type));
    if (reply) resolve(reply);
    else setTimeout(poll, 10);
  };
  poll();
}), message);

const shownState = (frame) => frame.evaluate(() => document.querySelector('attention-visualizer').state);

test('embed.html accepted set/get messages from any window, not only its parent', async () => {
  const { context, page, frame, other, problems } = await host();
  try {
    // A sibling frame, and the embed's own window, post to it: no answer, no change.
    const before = await shownState(frame);
    await other.evaluate(() => {
      const target = window.parent.document.getElementById('f').contentWindow;
      target.postMessage({ type: 'attention-visualizer:set', id: 'sibling', state: { causal: true } }, '*');
      target.postMessage({ type: 'attention-visualizer:get', id: 'sibling-get' }, '*');
    });
    await frame.evaluate(() => {
      window.replies = [];
      window.addEventListener('message', (e) => { if (/:(state|error)$/.test(e.data.type)) window.replies.push(e.data); });
      window.postMessage({ type: 'attention-visualizer:set', id: 'self', state: { temperature: 2 } }, '*');
    });
    // The host's own message after them is answered: the others were handled (ignored) by then.
    const reply = await fromHost(page, { type: 'attention-visualizer:get', id: 'host' });
    assert.equal(reply.type, 'attention-visualizer:state');
    assert.deepEqual(reply.state, before);
    assert.equal(reply.state.causal, false);
    assert.equal(reply.state.temperature, 1);
    assert.deepEqual(await other.evaluate(() => window.received), [], 'the sibling got no answer');
    assert.deepEqual(await frame.evaluate(() => window.replies), [], 'nor did the frame itself');
    assert.deepEqual(await page.evaluate(() => window.received.filter((m) => m.id !== undefined && m.id !== 'host')), []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a set the engine refuses answered with a normal state reply: it is an error, and the state stays', async () => {
  const { context, page, frame, problems } = await host();
  try {
    const before = await shownState(frame);
    const reply = await fromHost(page, { type: 'attention-visualizer:set', id: 2, state: { temperature: 1e-320 } });
    assert.equal(reply.type, 'attention-visualizer:error', JSON.stringify(reply));
    assert.match(reply.message.en, /^The numbers are too large: .* overflowed the range of floating-point numbers\. Use smaller values\.$/);
    assert.match(reply.message.zh, /^数值太大：.*超出了浮点数的范围。请换用小一些的数。$/);
    assert.deepEqual(await shownState(frame), before, 'the state stays as it was');
    assert.equal(await frame.evaluate(() => location.hash.includes('1e-320')), false);
    // the result shown and sent is still the tutorial's (REFERENCE.md)
    const got = await fromHost(page, { type: 'attention-visualizer:get', id: 3 });
    assert.deepEqual(got.state, before);
    got.result.heads[0].weights.forEach((row, r) => row.forEach((v, c) => assert.ok(Math.abs(v - REFERENCE.Weights[r][c]) <= 1e-12, `${r},${c}`)));
    assert.equal(await page.evaluate(() => window.received.some((m) => m.type === 'attention-visualizer:change' && m.state.temperature !== 1)), false,
      'no change was announced');
    // a set the engine takes after it works as before
    const ok = await fromHost(page, { type: 'attention-visualizer:set', id: 4, state: { temperature: 2 } });
    assert.equal(ok.type, 'attention-visualizer:state');
    assert.equal(ok.state.temperature, 2);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// issue 32.8: two quick sets were merged, and the reply to the first carried the second's state
test('two quick sets each get their own reply, with their own state and its result (small, and large enough to compute after a paint)', async () => {
  const { context, page, problems } = await host();
  try {
    const n = 200; // 200 × 200 attention cells: computed after the next paint, a burst of edits once
    const big = {
      tokens: Array.from({ length: n }, (_, i) => `t${i}`),
      x: Array.from({ length: n }, (_, i) => [Math.sin(i), Math.cos(i * 0.7)]),
      keyPadding: Array(n).fill(false),
    };
    for (const [first, second] of [[{ temperature: 2 }, { temperature: 0.5 }], [{ ...big, temperature: 2 }, { temperature: 0.5 }]]) {
      const replies = await page.evaluate(([a, b]) => new Promise((resolve) => {
        const start = window.received.length;
        const target = document.getElementById('f').contentWindow;
        target.postMessage({ type: 'attention-visualizer:set', id: 'one', state: a }, '*');
        target.postMessage({ type: 'attention-visualizer:set', id: 'two', state: b }, '*');
        const poll = () => {
          const got = window.received.slice(start).filter((r) => r.type === 'attention-visualizer:state');
          if (got.length === 2) resolve(got);
          else setTimeout(poll, 10);
        };
        poll();
      }), [first, second]);
      assert.deepEqual(replies.map((r) => [r.id, r.state.temperature]), [['one', 2], ['two', 0.5]]);
      for (const reply of replies) {
        const { x, heads: [{ wq, wk, wv }] } = reply.state;
        const expected = attention({ x, wq, wk, wv }, { temperature: reply.state.temperature }).Weights;
        const weights = reply.result.heads[0].weights;
        assert.equal(weights.length, x.length, reply.id);
        weights.forEach((row, r) => row.forEach((v, c) => assert.ok(Math.abs(v - expected[r][c]) <= 1e-12, `${reply.id} ${r},${c}`)));
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// A result read from the element is a copy of every matrix (hundreds of MB at 4096 tokens, in one
// task): the frame read one on a new link in its hash only to ask whether there was a result.
test('a new link in the frame\'s hash: one change message with its state and result, the result copied only to be sent', async () => {
  const { context, page, frame, problems } = await host();
  try {
    await frame.evaluate(() => {
      const element = document.querySelector('attention-visualizer');
      const { get } = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), 'result');
      window.resultReads = 0;
      Object.defineProperty(element, 'result', { get() { window.resultReads++; return get.call(this); } });
    });
    await page.evaluate(() => { window.received = []; });
    const state = { ...tutorialState('en'), temperature: 2 };
    await frame.evaluate((hash) => { location.hash = hash; }, encodeHash(state));
    // the reply to a get comes after every message sent before it
    const got = await fromHost(page, { type: 'attention-visualizer:get', id: 'after' });
    const changes = await page.evaluate(() => window.received.filter((m) => m.type === 'attention-visualizer:change'));
    assert.deepEqual(changes.map((m) => m.state), [got.state]);
    assert.equal(got.state.temperature, 2);
    const expected = attention(state.heads[0] && { x: state.x, ...state.heads[0] }, { temperature: 2 }).Weights;
    changes[0].result.heads[0].weights.forEach((row, r) => row.forEach((v, c) => assert.ok(Math.abs(v - expected[r][c]) <= 1e-12, `${r},${c}`)));
    assert.equal(await frame.evaluate(() => window.resultReads), 2, 'one copy for the change, one for the reply to get');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
