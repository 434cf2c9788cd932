import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateStore, ACTION_TYPES } from '../../web/src/state/store.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { sameInputs } from '../../web/src/state/history.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

// The tutorial with its first cell of X set to `value` (a new object; the store's states are never changed in place).
const withX00 = (state, value) => ({ ...state, x: state.x.map((row, r) => (r === 0 ? [value, ...row.slice(1)] : row)) });

const twoHeads = () => {
  const s = tutorialState('en');
  const second = { wq: [[1, 0], [0, 1], [1, 1]], wk: [[0, 1], [1, 0], [1, 1]], wv: [[2, 0], [0, 2], [1, 1]] };
  return { ...s, heads: [s.heads[0], second], wo: [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] };
};

test('the action types are named', () => {
  assert.deepEqual(ACTION_TYPES, ['load', 'edit', 'view', 'learn']);
  const store = new StateStore(tutorialState('en'));
  assert.throws(() => store.dispatch('nonsense', {}), /Unknown action: nonsense/);
  assert.throws(() => new StateStore().dispatch('view', { step: 'scores' }), /No state for view yet/);
});

test('subscribers hear once per burst, with every action type of it', async () => {
  const store = new StateStore(tutorialState('en'));
  const heard = [];
  store.subscribe((state, types) => heard.push([state.x[0][0], state.view.step, [...types].sort()]));
  store.dispatch('edit', withX00(store.state, 5));
  store.dispatch('view', { step: 'scores' });
  store.dispatch('edit', withX00(store.state, 7));
  assert.deepEqual(heard, []); // not before the burst ends
  await tick();
  assert.deepEqual(heard, [[7, 'scores', ['edit', 'view']]]);
  // flush() tells at once; nothing is heard twice
  store.dispatch('view', { decimals: 2 });
  store.flush();
  assert.equal(heard.length, 2);
  assert.equal(heard[1][1], 'scores');
  await tick();
  assert.equal(heard.length, 2);
});

test('a state is replaced, never changed in place', () => {
  const first = tutorialState('en');
  const store = new StateStore(first);
  store.dispatch('view', { step: 'softmax' });
  assert.equal(first.view.step, 'input');
  assert.equal(store.state.view.step, 'softmax');
  assert.equal(store.state.x, first.x); // unchanged parts are shared
  // an action that changes nothing is not heard
  assert.equal(store.dispatch('load', store.state), false);
});

test('edit keeps the view, its head within the new number of heads, and the goal that still fits', () => {
  const store = new StateStore({ ...twoHeads(), learn: { goal: 'previous' } });
  store.dispatch('view', { head: 1, lang: 'zh', decimals: 3 });
  const one = tutorialState('en');
  store.dispatch('edit', one);
  assert.deepEqual(store.state.view, { step: 'input', head: 0, lang: 'zh', decimals: 3 });
  assert.deepEqual(store.state.learn, { goal: 'previous' });
  // a custom target of 3 × 3 no longer fits 2 tokens: the goal stays without it
  store.dispatch('learn', { goal: 'custom', target: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] });
  assert.equal(store.state.learn.target.length, 3);
  store.dispatch('edit', { ...one, tokens: ['a', 'b'], x: one.x.slice(0, 2), keyPadding: [false, false] });
  assert.deepEqual(store.state.learn, { goal: 'custom' });
  store.dispatch('learn', null);
  assert.equal('learn' in store.state, false);
});

test('view clamps the head to the heads there are', () => {
  const store = new StateStore(twoHeads());
  store.dispatch('view', { head: 5 });
  assert.equal(store.state.view.head, 1);
});

test('undo and redo walk the inputs, keeping the view; a change of view alone is no entry', async () => {
  const store = new StateStore();
  store.dispatch('load', tutorialState('en'));
  await tick();
  store.dispatch('edit', withX00(store.state, 10));
  await tick();
  store.dispatch('edit', withX00(store.state, 20));
  store.dispatch('edit', withX00(store.state, 30)); // the same burst: one entry
  await tick();
  store.dispatch('view', { step: 'weights', lang: 'zh' });
  await tick();
  assert.equal(store.canUndo(), true);
  assert.equal(store.canRedo(), false);
  const heard = [];
  store.subscribe((state, types) => heard.push([state.x[0][0], [...types]]));

  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 10);
  assert.deepEqual(store.state.view, { step: 'weights', head: 0, lang: 'zh', decimals: 4 });
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], tutorialState().x[0][0]);
  assert.equal(store.canUndo(), false);
  assert.equal(store.undo(), false);
  assert.equal(store.redo(), true);
  assert.equal(store.redo(), true);
  assert.equal(store.state.x[0][0], 30);
  assert.equal(store.redo(), false);
  await tick();
  // each undo or redo first tells of the one before it
  const x00 = tutorialState().x[0][0];
  assert.deepEqual(heard, [[10, ['undo']], [x00, ['undo']], [10, ['redo']], [30, ['redo']]]);

  // a new edit after an undo drops what could be redone
  store.undo();
  await tick();
  store.dispatch('edit', withX00(store.state, 40));
  await tick();
  assert.equal(store.canRedo(), false);
  store.undo();
  assert.equal(store.state.x[0][0], 10);
});

test('"Guess first" is no input: its change is no entry, and undo and redo keep it as they keep the view', async () => {
  const store = new StateStore();
  store.dispatch('load', tutorialState('en')); // the first entry, guess off
  await tick();
  store.dispatch('load', { ...store.state, guess: true });
  await tick();
  assert.equal(sameInputs(tutorialState('en'), store.state), true);
  assert.equal(store.canUndo(), false, 'no entry for guess alone');
  store.dispatch('edit', withX00(store.state, 5));
  await tick();
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 1);
  assert.equal(store.state.guess, true, 'undo keeps guess on');
  assert.equal(store.redo(), true);
  assert.equal(store.state.guess, true);
});

test('an edit not heard yet is recorded before undo goes back from it', () => {
  const store = new StateStore(tutorialState('en'));
  store.flush();
  store.dispatch('edit', withX00(store.state, 10));
  store.flush();
  store.dispatch('edit', withX00(store.state, 20)); // not flushed
  store.undo();
  assert.equal(store.state.x[0][0], 10);
  store.redo();
  assert.equal(store.state.x[0][0], 20);
});

test('a drag is one entry, recorded when let go', async () => {
  const store = new StateStore(tutorialState('en'));
  store.dispatch('load', { ...store.state, temperature: 1 });
  await tick();
  const heard = [];
  store.subscribe((state) => heard.push(state.temperature));
  store.hold(true);
  for (const t of [0.5, 0.25, 0.125]) {
    store.dispatch('edit', { ...store.state, temperature: t });
    await tick(); // every frame of the drag is heard
  }
  assert.deepEqual(heard, [0.5, 0.25, 0.125]);
  assert.equal(store.canUndo(), false); // nothing recorded while held
  store.hold(false);
  assert.equal(store.canUndo(), true);
  store.undo();
  assert.equal(store.state.temperature, 1);
  store.redo();
  assert.equal(store.state.temperature, 0.125);
});

test('sameInputs: the same inputs whatever the view; any number, token or option that differs is another', () => {
  const state = (x, extra = {}) => ({ ...tutorialState(), x, ...extra });
  const big = (last) => Array.from({ length: 512 }, (_, r) => Array.from({ length: 64 }, (_, c) => (r === 511 && c === 63 ? last : (r * 64 + c) / 100)));
  const a = state(big(1));
  assert.equal(sameInputs(a, state(big(1), { view: { ...a.view, step: 'output', lang: 'zh' } })), true, 'equal numbers in other arrays, another view');
  assert.equal(sameInputs(a, state(big(2))), false, 'the last number differs');
  assert.equal(sameInputs(a, state(big(1), { tokens: ['我', '爱', '他'] })), false, 'a token differs');
  assert.equal(sameInputs(a, state(big(1), { causal: true })), false, 'an option differs');
  assert.equal(sameInputs(a, state(big(1).map((row) => Float64Array.from(row)))), true, 'typed rows of the same numbers');
  assert.equal(sameInputs(state([[0, 1]]), state([[-0, 1]])), true, '−0 is 0');
  assert.equal(sameInputs(state([[1, 2], [3, 4]]), state([[1, 2], [3]])), false, 'a shorter row');
  assert.equal(sameInputs(state([[1, 2], [3, 4]]), state([[1, 2], Float64Array.of(3, 5)])), false, 'a typed row that differs');
  assert.equal(sameInputs(state([[NaN, 1]]), state([[NaN, 1]])), false, 'NaN is no number a state holds: never the same');
  assert.equal(sameInputs(a, null), false);
  // the last answer is kept for the same two states only (either way round)
  const b = state(big(1));
  const c = state(big(3));
  assert.equal(sameInputs(a, b), true);
  assert.equal(sameInputs(b, a), true);
  assert.equal(sameInputs(a, c), false);
  assert.equal(sameInputs(a, b), true);
});
