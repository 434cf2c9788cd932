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

// amend: a state naming a model (model="…") replaced by the model's matrices once the model is
// here (element/models.js resolve). Here the "matrices read from the model" are X with a new first
// cell, which the tests can tell from the state before it.
test('a model read into the work is the same undo entry: undo goes past it, redo brings back its matrices, listeners hear one amend', async () => {
  const store = await loaded(tutorialState('en'));
  store.dispatch('edit', withX00(store.state, 9)); // the work names a model: an entry
  await tick();
  const heard = [];
  store.subscribe((state, types) => heard.push([state.x[0][0], [...types]]));
  store.amend(withX00(store.state, 5)); // the model's matrices
  assert.equal(store.state.x[0][0], 5, 'the model is on screen at once');
  await tick();
  assert.deepEqual(heard, [[5, ['amend']]], 'heard once, as an amend');
  assert.equal(store.canRedo(), false);
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 1, 'undo goes to the work before, never to the state without the model');
  assert.equal(store.canUndo(), false, 'the amend made no entry of its own');
  assert.equal(store.redo(), true);
  assert.equal(store.state.x[0][0], 5, "redo brings back the model's matrices");
});

test('a model that arrives after an undo shows its matrices and keeps the redo and the entry undone to', async () => {
  const store = await loaded(tutorialState('en'));
  store.dispatch('edit', withX00(store.state, 9));
  await tick();
  assert.equal(store.undo(), true);
  await tick();
  store.amend(withX00(store.state, 5)); // the model of the state undone to, loaded only now
  await tick();
  assert.equal(store.state.x[0][0], 5);
  assert.equal(store.canRedo(), true, 'the redo is still there');
  assert.equal(store.redo(), true);
  assert.equal(store.state.x[0][0], 9);
  assert.equal(store.undo(), true);
  assert.equal(store.state.x[0][0], 1, 'the entry undone to is as it was recorded');
});
