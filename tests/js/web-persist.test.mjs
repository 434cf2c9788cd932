// Nothing lost (issue 6): the stored state (persist.js) and undo/redo (history.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, STATE_KEY, DAMAGED_KEY } from '../../web/src/persist.js';
import { History, undoKey } from '../../web/src/history.js';
import { tutorialState } from '../../web/src/share.js';

class MemoryStorage {
  constructor(items = {}, quota = Infinity) {
    this.items = { ...items };
    this.quota = quota;
  }
  getItem(key) { return key in this.items ? this.items[key] : null; }
  setItem(key, value) {
    if (String(value).length > this.quota) throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
    this.items[key] = String(value);
  }
  removeItem(key) { delete this.items[key]; }
}

test('a saved state loads back exactly', () => {
  const storage = new MemoryStorage();
  const state = { ...tutorialState('en'), causal: true };
  assert.equal(new Store(() => storage).save(JSON.stringify(state)), true);
  assert.deepEqual(new Store(() => storage).load(), state);
});

test('a damaged stored state is set aside under its own key and reported, not dropped', () => {
  for (const text of ['{"version":1,"tokens":', '{"version":2,"tokens":["a"]}', '<img src=x onerror=alert(1)>', '{"version":1,"tokens":["a"],"x":[[1e400]]}']) {
    const storage = new MemoryStorage({ [STATE_KEY]: text });
    const store = new Store(() => storage);
    assert.equal(store.load(), null);
    assert.equal(store.problem, 'damaged');
    assert.equal(store.damaged.text, text);
    assert.ok(store.damaged.message.key, text);
    assert.equal(storage.getItem(DAMAGED_KEY), text);
    assert.equal(storage.getItem(STATE_KEY), null);
  }
});

test('blocked storage: nothing throws, the problem is known once', () => {
  const store = new Store(() => { throw new DOMException('denied', 'SecurityError'); });
  assert.equal(store.load(), null);
  assert.equal(store.problem, 'unavailable');
  assert.equal(store.save('{}'), false);
});

test('a state too large for the quota is reported as full; a smaller one is kept again', () => {
  const storage = new MemoryStorage({}, 100);
  const store = new Store(() => storage);
  assert.equal(store.save('x'.repeat(101)), false);
  assert.equal(store.problem, 'full');
  assert.equal(store.save('{"small":1}'), true);
  assert.equal(store.problem, null);
});

test('undo and redo walk the edits; a view change is no edit; a new edit drops the redo branch', () => {
  const history = new History();
  const a = tutorialState('en');
  const b = { ...a, causal: true };
  const c = { ...a, temperature: 2 };
  history.record(a);
  history.record({ ...a, view: { ...a.view, step: 'softmax' } });
  assert.equal(history.canUndo(), false);
  history.record(b);
  history.record(c);
  assert.deepEqual(history.undo(), b);
  assert.deepEqual(history.undo().causal, false);
  assert.equal(history.undo(), null);
  assert.equal(history.redo().causal, true);
  history.record({ ...a, scaleBySqrtDk: false });
  assert.equal(history.canRedo(), false);
  assert.equal(history.undo().causal, true);
  assert.deepEqual(history.undo(0).causal, true, 'undo(0) gives the current entry again');
});

test('undo keys: Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z and Ctrl+Y, not inside a text field', () => {
  const key = (k, mods = {}, target = null) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target, ...mods });
  assert.equal(undoKey(key('z', { ctrlKey: true })), 'undo');
  assert.equal(undoKey(key('z', { metaKey: true })), 'undo');
  assert.equal(undoKey(key('Z', { ctrlKey: true, shiftKey: true })), 'redo');
  assert.equal(undoKey(key('z', { metaKey: true, shiftKey: true })), 'redo');
  assert.equal(undoKey(key('y', { ctrlKey: true })), 'redo');
  assert.equal(undoKey(key('z')), null);
  assert.equal(undoKey(key('z', { ctrlKey: true, altKey: true })), null);
});
