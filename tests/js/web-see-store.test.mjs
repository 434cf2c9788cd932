// The store as a user meets it through the page and the element: the head they look at stays
// after an edit, a state without a goal gets none, a burst of an edit and a step change is one
// undo, a listener taken off hears nothing more, and a state the engine refused leaves the work
// and its undo history exactly as they were (snapshot, revert), after which edits are heard again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateStore } from '../../web/src/state/store.js';
import { tutorialState } from '../../web/src/state/presets.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const withX00 = (state, value) => ({ ...state, x: state.x.map((row, r) => (r === 0 ? [value, ...row.slice(1)] : row)) });
// a store as the page makes it: the first state loaded (and so an undo entry)
async function loaded(state) {
  const store = new StateStore();
  store.dispatch('load', state);
  await tick();
  return store;
}
const twoHeads = () => {
  const s = tutorialState('en');
  return { ...s, heads: [s.heads[0], { ...s.heads[0], wq: [[2, 0], [0, 2]] }], wo: [[1, 0], [0, 1], [1, 0], [0, 1]] };
};

test('an edit keeps the head on screen when it is still there, and a state without a goal has none after it', () => {
  const store = new StateStore(twoHeads());
  assert.equal(store.dispatch('view', { head: 0, step: 'softmax' }), true, 'a change is told as one');
  store.dispatch('edit', withX00(store.state, 3));
  assert.deepEqual(store.state.view, { step: 'softmax', head: 0, lang: 'en', decimals: 4 });
  store.dispatch('view', { head: 1 });
  store.dispatch('edit', withX00(store.state, 4));
  assert.equal(store.state.view.head, 1);
  // no `learn` key at all (not learn: undefined): the state, its link and el.state are the tutorial's fields only
  const { view, ...inputs } = withX00(store.state, 5);
  assert.equal(store.dispatch('edit', inputs), true);
  assert.equal('learn' in store.state, false);
  assert.deepEqual(Object.keys(store.state).sort(), Object.keys({ ...inputs, view }).sort());
});

test('an edit and a step change in one burst are one undo: undo takes the edit back, the step stays', async () => {
  const store = await loaded(tutorialState('en'));
  store.dispatch('edit', withX00(store.state, 9));
  store.dispatch('view', { step: 'scores' });
  await tick();
  assert.equal(store.canUndo(), true, 'the burst is an entry');
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 1);
  assert.equal(store.state.view.step, 'scores');
});

test('a listener taken off hears no more', async () => {
  const store = new StateStore(tutorialState('en'));
  const heard = [];
  const off = store.subscribe((state) => heard.push(state.view.step));
  store.dispatch('view', { step: 'scores' });
  await tick();
  off();
  store.dispatch('view', { step: 'softmax' });
  await tick();
  assert.deepEqual(heard, ['scores']);
});

test('a refused state leaves the work and its undo history as they were; edits are heard again after', async () => {
  const store = await loaded(tutorialState('en'));
  store.dispatch('edit', withX00(store.state, 2));
  await tick();
  const heard = [];
  store.subscribe((state) => heard.push(state.x[0][0]));
  // an edit not heard yet is part of the snapshot (flushed first, and recorded)
  store.dispatch('edit', withX00(store.state, 3));
  const kept = store.snapshot();
  assert.deepEqual(heard, [3]);
  // the refused state: applied, then put back, unheard
  store.dispatch('load', withX00(store.state, 1e300));
  store.revert(kept);
  assert.equal(store.state.x[0][0], 3);
  await tick();
  assert.deepEqual(heard, [3], 'the refused state is never heard');
  // the undo history is the one before: back to 2, then the tutorial, and forward again
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 2);
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 1);
  assert.equal(store.canUndo(), false);
  assert.equal(store.redo(), true);
  assert.equal(store.redo(), true);
  assert.equal(store.state.x[0][0], 3);
  assert.equal(store.canRedo(), false);
  await tick();
  // and the next edit is heard, and is an entry
  heard.length = 0;
  store.dispatch('edit', withX00(store.state, 4));
  await tick();
  assert.deepEqual(heard, [4]);
  store.undo();
  assert.equal(store.state.x[0][0], 3);
});
