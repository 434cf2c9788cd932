// The state modules as a user meets them: the text the page stores (json.js jsonInSlices, read
// back by JSON.parse as the same state), made in slices with a task between them and dropped
// when cancelled; the store, the link and the state file's messages. Mutation-run survivors of
// scripts/mutate.mjs killed by what they change on screen or in storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonInSlices } from '../../web/src/state/json.js';
import { tutorialState } from '../../web/src/state/presets.js';

// performance.now() made a clock that moves `step` ms at each reading, for the length of fn.
async function withClock(step, fn) {
  const own = Object.getOwnPropertyDescriptor(performance, 'now');
  let now = 0;
  Object.defineProperty(performance, 'now', { value: () => (now += step), configurable: true, writable: true });
  try {
    return await fn();
  } finally {
    if (own) Object.defineProperty(performance, 'now', own);
    else delete performance.now;
  }
}

// JSON.stringify's text with every UTF-16 unit beyond U+00FF as \uXXXX (what the page stores)
const stored = (value) => JSON.stringify(value).replace(/[\u0100-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

test('the stored text of a state is JSON.stringify\'s, read back as the same state: undefined members left out, an undefined array item null, empty ones kept', async () => {
  const odd = { z: 1, a: [1, [2, { b: undefined, c: 'x"\n' }], undefined, null], e: {}, f: [[]], g: undefined, 1: true, h: [{}, []], i: [undefined] };
  for (const value of [tutorialState('zh'), odd, [], {}, [[]], [{}], 'text', 3.5, null, true, { tokens: ['注意', '😀', 'é', 'ÿ', 'Ā'] }]) {
    const text = await withClock(0, () => jsonInSlices(value, () => false));
    assert.equal(text, stored(value), JSON.stringify(value));
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
  }
  // one byte a character: U+00FF stays itself, U+0100 and beyond are escapes
  assert.equal(await jsonInSlices(['ÿĀ'], () => false), '["ÿ\\u0100"]');
});

test('the stored text is made in slices of 8 ms, a task between them; cancelled between slices, nothing is stored', async () => {
  // {"a":[1,[2]],"b":"x"} is nine parts: '{"a":' '[' '1' ',' '[2]' ']' ',"b":' '"x"' '}'
  const value = { a: [1, [2]], b: 'x' };
  const run = (step, cancelAt = Infinity) => withClock(step, async () => {
    let tasks = 0;
    const text = await jsonInSlices(value, () => (tasks += 1) >= cancelAt);
    return { text, tasks };
  });
  // a clock that stands still: one slice, no task
  assert.deepEqual(await run(0), { text: stored(value), tasks: 0 });
  // 8 ms at each reading: every part takes a slice of its own, a task after each
  assert.deepEqual(await run(8), { text: stored(value), tasks: 9 });
  // 4 ms: a slice ends every second part (8 ms reached, not passed)
  assert.deepEqual(await run(4), { text: stored(value), tasks: 4 });
  // 7.9 ms: under 8 after one part, a slice of two
  assert.equal((await run(7.9)).tasks, 4);
  // cancelled at the third task: null, not a part of the text
  assert.deepEqual(await run(8, 3), { text: null, tasks: 3 });
  // a plain array (a row of X) is one part: one slice, one task, however slow the clock
  assert.deepEqual(await withClock(8, async () => {
    let tasks = 0;
    return { text: await jsonInSlices([1, 2, 3], () => { tasks += 1; return false; }), tasks };
  }), { text: '[1,2,3]', tasks: 1 });
});
