// Nothing lost (issue 6): the stored state (persist.js) and undo/redo (history.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Store, STATE_KEY, DAMAGED_KEY, PREVIOUS_KEY, SHELF_SIZE, MARK_PREFIX, DEFER_CHARS, PART_CHARS, PART_PREFIX, STALE_PART_MS,
} from '../../web/src/state/persist.js';
import { renderStorageNotice } from '../../web/src/page/storage-notice.js';
import { History, undoKey } from '../../web/src/state/history.js';
import { tutorialState } from '../../web/src/state/presets.js';

// quota: the longest value; total: the most characters of all values together.
class MemoryStorage {
  constructor(items = {}, quota = Infinity, total = Infinity) {
    this.items = { ...items };
    this.quota = quota;
    this.total = total;
  }
  get length() { return Object.keys(this.items).length; }
  key(i) { return Object.keys(this.items)[i] ?? null; }
  getItem(key) { return key in this.items ? this.items[key] : null; }
  setItem(key, value) {
    const used = Object.entries(this.items).reduce((sum, [k, v]) => sum + (k === key ? 0 : v.length), 0);
    if (String(value).length > this.quota || used + String(value).length > this.total) throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
    this.items[key] = String(value);
  }
  removeItem(key) { delete this.items[key]; }
}

test('a saved state loads back exactly', () => {
  const storage = new MemoryStorage();
  const state = { ...tutorialState('en'), causal: true };
  assert.equal(new Store(() => storage).save(JSON.stringify(state), true), true);
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
  assert.equal(store.save('x'.repeat(101), true), false);
  assert.equal(store.problem, 'full');
  assert.equal(store.save('{"small":1}', true), true);
  assert.equal(store.problem, null);
});

// A page's window for Store's deferred writes (node has none): its events, and its timers run by hand.
function withPage(run) {
  const page = new EventTarget();
  const timers = [];
  const saved = { addEventListener: globalThis.addEventListener, removeEventListener: globalThis.removeEventListener, setTimeout: globalThis.setTimeout };
  Object.assign(globalThis, {
    addEventListener: page.addEventListener.bind(page),
    removeEventListener: page.removeEventListener.bind(page),
    setTimeout: (fn) => timers.push(fn),
  });
  try {
    return run({ fire: (type) => page.dispatchEvent(new Event(type)), runTimers: () => timers.splice(0).forEach((fn) => fn()) });
  } finally {
    Object.assign(globalThis, saved);
  }
}

test('a large state is written in a task of its own, the latest of a burst once; at once when the page is left', () => {
  withPage(({ fire, runTimers }) => {
    const big = (digit) => `{"x":"${digit.repeat(DEFER_CHARS)}"}`;
    const storage = new MemoryStorage();
    let writes = 0;
    const setItem = storage.setItem.bind(storage);
    storage.setItem = (key, value) => {
      writes += 1;
      setItem(key, value);
    };
    const store = new Store(() => storage, 'w');
    assert.equal(store.save(big('1'), true), true);
    assert.equal(store.save(big('2'), true), true);
    assert.equal(storage.getItem(STATE_KEY), null, 'not yet written');
    runTimers();
    assert.equal(writes, 1);
    assert.ok(storage.getItem(STATE_KEY).endsWith(big('2')));
    assert.match(storage.getItem(STATE_KEY), /"rev":2/);
    store.save(big('3'), true);
    fire('pagehide'); // a reload: written before the page goes
    assert.ok(storage.getItem(STATE_KEY).endsWith(big('3')));
    runTimers();
    assert.equal(writes, 2, 'nothing left to write');
    store.save(big('4'), true);
    store.save('{"small":1}', true); // a small state is written at once, the large one waiting is older
    runTimers();
    assert.ok(storage.getItem(STATE_KEY).endsWith('{"small":1}'));
    store.save(big('5'), true);
    assert.equal(store.previousWork().length, 0); // reading storage writes what waits first
    assert.ok(storage.getItem(STATE_KEY).endsWith(big('5')));
  });
});

test('a large state too large for the quota: the problem is reported when its write fails', () => {
  withPage(({ runTimers }) => {
    const storage = new MemoryStorage({}, DEFER_CHARS);
    let told = 0;
    const store = new Store(() => storage, 'w', () => { told += 1; });
    store.save(`"${'x'.repeat(DEFER_CHARS)}"`, true);
    assert.equal(store.problem, null);
    runTimers();
    assert.equal(store.problem, 'full');
    assert.equal(told, 1);
    store.save('{"small":1}', true);
    assert.equal(store.problem, null);
  });
});

// A state's JSON of at least `chars` characters: d_model = 16, X's numbers of 18 characters.
const largeState = (chars, digit = '1') => {
  const number = Number(`0.${digit.repeat(16)}`);
  const n = Math.ceil(chars / (16 * 19));
  const square = Array.from({ length: 16 }, () => Array(16).fill(0.5));
  return JSON.stringify({
    ...tutorialState('en'),
    tokens: Array.from({ length: n }, (_, i) => `t${i}`),
    x: Array.from({ length: n }, () => Array(16).fill(number)),
    heads: [{ wq: square, wk: square, wv: square }],
    keyPadding: Array(n).fill(false),
  });
};
const partKeys = (storage) => Object.keys(storage.items).filter((key) => key.startsWith(PART_PREFIX)).sort();

test('a state over PART_CHARS is kept in parts named by the value under STATE_KEY, and loads back exactly; the parts it replaced are removed', () => {
  const storage = new MemoryStorage();
  const store = new Store(() => storage, 'w');
  const first = largeState(2.5 * PART_CHARS, '1');
  assert.equal(store.save(first, true), true);
  const head = storage.getItem(STATE_KEY);
  assert.ok(head.startsWith(MARK_PREFIX) && head.endsWith('}\n'), head);
  const { parts } = JSON.parse(head.slice(MARK_PREFIX.length));
  assert.equal(parts.count, 3);
  assert.equal(parts.chars, first.length);
  assert.deepEqual(partKeys(storage), [0, 1, 2].map((i) => `${PART_PREFIX}${parts.id}.${i}`));
  assert.deepEqual(partKeys(storage).map((key) => storage.getItem(key)).join(''), first);
  assert.ok(partKeys(storage).every((key) => storage.getItem(key).length <= PART_CHARS));
  const reader = new Store(() => storage, 'r');
  assert.deepEqual(reader.load(), JSON.parse(first));
  assert.equal(reader.storedMade(), true);
  assert.equal(reader.hashOrigin({ writer: 'w', rev: 1 }), 'stored-newer');

  const second = largeState(1.2 * PART_CHARS, '2');
  store.save(second, true);
  assert.equal(partKeys(storage).length, 2, 'the first state\'s parts are removed');
  assert.deepEqual(new Store(() => storage).load(), JSON.parse(second));
  store.save(stateText(true), true);
  assert.deepEqual(partKeys(storage), [], 'a small state is kept whole');
  assert.ok(storage.getItem(STATE_KEY).endsWith(stateText(true)));
  // a page that read a state in parts removes them once it keeps its own
  store.save(first, true);
  const later = new Store(() => storage, 'later');
  later.load();
  later.save(stateText(false), true);
  assert.deepEqual(partKeys(storage), []);
});

test('a state in parts is written one part a task; the value under STATE_KEY always names whole parts; a newer state or leaving the page takes over', () => {
  withPage(({ fire, runTimers }) => {
    const storage = new MemoryStorage();
    const store = new Store(() => storage, 'w');
    const loadsWhole = (state) => assert.deepEqual(new Store(() => storage).load(), JSON.parse(state));
    const first = largeState(3.5 * PART_CHARS, '1');
    store.save(first, true);
    const tasks = [];
    while (store.timer) {
      runTimers();
      tasks.push(partKeys(storage).length);
      if (store.timer) assert.equal(storage.getItem(STATE_KEY), null, 'nothing names the parts before all are written');
    }
    assert.deepEqual(tasks, [1, 2, 3, 4]);
    loadsWhole(first);

    const second = largeState(3.5 * PART_CHARS, '2');
    store.save(second, true);
    runTimers();
    runTimers();
    assert.equal(partKeys(storage).length, 6, 'the first state\'s 4 parts and 2 of the second\'s');
    loadsWhole(first);
    const third = largeState(2.5 * PART_CHARS, '3');
    store.save(third, true); // the second is dropped: its parts are removed
    runTimers();
    assert.equal(partKeys(storage).length, 5, 'the first state\'s 4 parts and 1 of the third\'s');
    loadsWhole(first);
    fire('pagehide'); // the rest at once
    assert.equal(partKeys(storage).length, 3);
    loadsWhole(third);
    runTimers();
    assert.equal(partKeys(storage).length, 3, 'nothing left to write');

    // a view-only change waits; written in parts when the page is hidden
    store.save(largeState(2.5 * PART_CHARS, '4'), true, true);
    runTimers();
    loadsWhole(third);
    fire('visibilitychange');
    loadsWhole(largeState(2.5 * PART_CHARS, '4'));
    assert.equal(partKeys(storage).length, 3);
  });
});

test('a state in parts with a part missing is damaged: set aside whole, its parts removed; parts no value names are removed once stale', () => {
  const storage = new MemoryStorage();
  const state = largeState(2.5 * PART_CHARS);
  new Store(() => storage, 'w').save(state, true);
  const [, second] = partKeys(storage);
  storage.removeItem(second);
  const stale = `${PART_PREFIX}${(Date.now() - STALE_PART_MS - 1000).toString(36)}-closed-1.0`;
  const fresh = `${PART_PREFIX}${Date.now().toString(36)}-writing-1.0`;
  storage.setItem(stale, 'x');
  storage.setItem(fresh, 'y');
  const store = new Store(() => storage);
  assert.equal(store.load(), null);
  assert.equal(store.problem, 'damaged');
  assert.deepEqual(store.damaged.message, { key: 'errStateParts', params: { count: 3, got: state.length - PART_CHARS, chars: state.length } });
  assert.equal(storage.getItem(DAMAGED_KEY), store.damaged.text);
  assert.ok(store.damaged.text.endsWith(state.slice(2 * PART_CHARS)), 'what was found is set aside');
  assert.equal(storage.getItem(STATE_KEY), null);
  assert.deepEqual(partKeys(storage), [fresh], 'the damaged state\'s parts and the stale part are removed; a page may be writing the fresh one');
});

test('parts that do not fit: those written are removed, the stored state stays as it was, and the problem is told', () => {
  withPage(({ runTimers }) => {
    const small = stateText(true);
    const state = largeState(1.5 * PART_CHARS);
    // the stored state is small: the parts fit
    const storage = new MemoryStorage({}, Infinity, 1.5 * state.length);
    const store = new Store(() => storage, 'w', () => {});
    store.save(small, true);
    store.save(state, true);
    while (store.timer) runTimers();
    assert.equal(store.problem, null);
    assert.deepEqual(new Store(() => storage).load(), JSON.parse(state));
    // a second large state: its parts do not fit beside the first one's, nor whole
    let told = 0;
    const full = new Store(() => storage, 'w2', () => { told += 1; });
    full.load();
    full.save(largeState(1.5 * PART_CHARS, '2'), true);
    while (full.timer) runTimers();
    assert.equal(full.problem, 'full');
    assert.equal(told, 1);
    assert.deepEqual(new Store(() => storage).load(), JSON.parse(state), 'the stored state is whole');
    assert.equal(partKeys(storage).length, 2, 'the parts written of the state that did not fit are removed');
  });
});

const stateText = (causal, temperature = 1) => JSON.stringify({ ...tutorialState('en'), causal, temperature });

test('opening a share link overwrote the stored work: replaced work is set aside, each under its own key, until restored or discarded', () => {
  const storage = new MemoryStorage();
  const store = new Store(() => storage, 'w1');
  const first = stateText(true);
  const second = stateText(false, 2);
  store.setAsideWork(first);
  store.setAsideWork(second);
  store.setAsideWork(first); // the same work again: not a second copy
  assert.equal(storage.getItem(PREVIOUS_KEY), first);
  assert.equal(storage.getItem(`${PREVIOUS_KEY}.2`), second);
  assert.equal(storage.getItem(`${PREVIOUS_KEY}.3`), null);
  // listed on every later visit (a new page load reads them back)
  const later = new Store(() => storage, 'w2');
  assert.deepEqual(later.previousWork().map(({ key, state }) => [key, state.causal, state.temperature]),
    [[PREVIOUS_KEY, true, 1], [`${PREVIOUS_KEY}.2`, false, 2]]);
  later.forget(PREVIOUS_KEY);
  assert.deepEqual(later.previousWork().map(({ key }) => key), [`${PREVIOUS_KEY}.2`]);
  // the freed key is used again; nothing overwrites the one still held
  later.setAsideWork(stateText(true, 3));
  assert.equal(JSON.parse(storage.getItem(PREVIOUS_KEY)).temperature, 3);
  assert.equal(storage.getItem(`${PREVIOUS_KEY}.2`), second);
});

test('replaced work that cannot be set aside stays stored: nothing is saved over it until it is restored', () => {
  const work = stateText(true);
  for (const storage of [new MemoryStorage({}, work.length - 1), new MemoryStorage(Object.fromEntries(
    Array.from({ length: SHELF_SIZE }, (_, i) => [i === 0 ? PREVIOUS_KEY : `${PREVIOUS_KEY}.${i + 1}`, stateText(false, i + 2)])))]) {
    storage.items[STATE_KEY] = `${MARK_PREFIX}{"writer":"w0","rev":4,"made":true}\n${work}`;
    const store = new Store(() => storage, 'w1');
    store.load();
    store.setAsideWork(work);
    assert.deepEqual(store.unshelved, { text: work });
    assert.equal(store.save(stateText(false, 9), false), false);
    assert.ok(storage.getItem(STATE_KEY).endsWith(work), 'the work is still stored');
    store.forget(null); // restored by the user: it is the work on screen again
    assert.equal(store.unshelved, null);
    assert.equal(store.save(JSON.stringify({ version: 1 }), true), true, 'saved again');
  }
});

test('set-aside work: a newer copy of the same work takes its key; with the shelf full, discarding one sets the waiting work aside and saving resumes', () => {
  const storage = new MemoryStorage();
  const store = new Store(() => storage, 'w1');
  const works = Array.from({ length: SHELF_SIZE }, (_, i) => stateText(i % 2 === 0, i + 2));
  for (const work of works) store.setAsideWork(work);
  // the first work again, on another step and in Chinese: the same inputs, so no new copy
  const again = JSON.stringify({ ...JSON.parse(works[0]), view: { ...tutorialState('zh').view, step: 'all' } });
  store.setAsideWork(again);
  assert.equal(storage.getItem(PREVIOUS_KEY), again);
  assert.equal(store.unshelved, null);
  // an eleventh different work: it stays under STATE_KEY, nothing saved over it
  const eleventh = stateText(true, 20);
  assert.equal(store.save(eleventh, true), true);
  store.setAsideWork(eleventh);
  assert.deepEqual(store.unshelved, { text: eleventh });
  const onScreen = stateText(false, 30);
  assert.equal(store.save(onScreen, true), false);
  assert.ok(storage.getItem(STATE_KEY).endsWith(eleventh));
  // a twelfth, while the eleventh waits: the eleventh (the one stored) keeps waiting
  store.setAsideWork(onScreen);
  assert.deepEqual(store.unshelved, { text: eleventh });
  // the user discards the fourth: the eleventh takes its key, the work on screen is saved
  store.forget(`${PREVIOUS_KEY}.4`);
  assert.equal(storage.getItem(`${PREVIOUS_KEY}.4`), eleventh);
  assert.equal(store.unshelved, null);
  assert.equal(storage.getItem(STATE_KEY), `${MARK_PREFIX}{"writer":"w1","rev":2,"made":true}\n${onScreen}`);
  assert.deepEqual(store.previousWork().map(({ state }) => state.temperature), [2, 3, 4, 20, 6, 7, 8, 9, 10, 11]);
});

test('a burst of edits then a reload showed an older state: a hash this page wrote does not win over later stored work', () => {
  const storage = new MemoryStorage();
  const page = new Store(() => storage, 'tab-a');
  const marks = [];
  for (let i = 1; i <= 300; i++) {
    page.save(stateText(i % 2 === 0, i), true);
    marks.push(page.mark());
  }
  assert.deepEqual(marks[299], { writer: 'tab-a', rev: 300 });
  page.save(stateText(true, 300), true); // the same state again (a view refresh): the same revision
  assert.deepEqual(page.mark(), { writer: 'tab-a', rev: 300 });
  const reloaded = new Store(() => storage, 'tab-a-reloaded');
  assert.equal(reloaded.load().temperature, 300);
  // the browser kept the hash of edit 120 (later replaceState calls were dropped)
  assert.equal(reloaded.hashOrigin(marks[119]), 'stored-newer');
  assert.equal(reloaded.hashOrigin(marks[299]), 'stored-newer', 'the same state: either, storage');
  assert.equal(reloaded.hashOrigin(null), 'link', 'no mark: a link from elsewhere');
  assert.equal(reloaded.hashOrigin({ writer: 'tab-b', rev: 999 }), 'link', 'another tab\'s hash');
  assert.equal(reloaded.hashOrigin({ writer: 'tab-a', rev: '1' }), 'link', 'a malformed mark');
  assert.equal(reloaded.hashOrigin({ writer: 'tab-a', rev: 301 }), 'own-older-stored', 'storage full for the last edits: the hash is newer');
  // a state stored before marks existed is some writer's: a hash wins over it
  const legacy = new Store(() => new MemoryStorage({ [STATE_KEY]: stateText(true) }), 'tab-c');
  assert.equal(legacy.load().causal, true);
  assert.equal(legacy.hashOrigin(marks[0]), 'link');
  assert.equal(legacy.storedMade(), true);
});

test('a second damaged stored state overwrote the first one set aside: each is kept under its own key, and the notice is told when one was not', () => {
  const storage = new MemoryStorage();
  const damaged = ['{"version":1,"tokens":', '{"version":2}', `${MARK_PREFIX}{"writer":"w","rev":1,"made":true}\n{"version":1`];
  damaged.forEach((text, i) => {
    storage.items[STATE_KEY] = text;
    const store = new Store(() => storage, `w${i}`);
    assert.equal(store.load(), null);
    assert.equal(store.damaged.key, i === 0 ? DAMAGED_KEY : `${DAMAGED_KEY}.${i + 1}`);
    assert.equal(storage.getItem(STATE_KEY), null);
  });
  damaged.forEach((text, i) => assert.equal(storage.getItem(i === 0 ? DAMAGED_KEY : `${DAMAGED_KEY}.${i + 1}`), text));

  // storage full: not set aside, and said so; it stays and nothing overwrites it
  const text = '{"version":1,"tokens":["a"],';
  const full = new MemoryStorage({ [STATE_KEY]: text }, 10);
  const store = new Store(() => full, 'w');
  assert.equal(store.load(), null);
  assert.deepEqual({ ...store.damaged, message: undefined }, { text, message: undefined, key: null });
  assert.equal(store.save('{}', true), false);
  assert.equal(full.getItem(STATE_KEY), text);
  assert.equal(full.getItem(DAMAGED_KEY), null);

  // every key of the shelf taken: the same, never an overwrite
  const shelf = new MemoryStorage({ [STATE_KEY]: text });
  for (let i = 1; i <= SHELF_SIZE; i++) shelf.items[i === 1 ? DAMAGED_KEY : `${DAMAGED_KEY}.${i}`] = `old ${i}`;
  const crowded = new Store(() => shelf, 'w');
  crowded.load();
  assert.equal(crowded.damaged.key, null);
  assert.equal(shelf.getItem(STATE_KEY), text);
  assert.equal(shelf.getItem(`${DAMAGED_KEY}.${SHELF_SIZE}`), `old ${SHELF_SIZE}`);
});

// Just enough of a DOM for renderStorageNotice: elements with text, children and click handlers.
class FakeNode {
  constructor(tag) {
    Object.assign(this, { tag, className: '', children: [], hidden: false, listeners: {}, type: '' });
  }
  set textContent(text) { this.children = [String(text)]; }
  get textContent() { return this.children.map((c) => (typeof c === 'string' ? c : c.textContent)).join(''); }
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren(...nodes) { this.children = nodes; }
  addEventListener(type, listener) { this.listeners[type] = listener; }
  buttons() { return this.children.flatMap((c) => (typeof c === 'string' ? [] : c.tag === 'button' ? [c] : c.buttons())); }
}
globalThis.document = { createElement: (tag) => new FakeNode(tag) };

function notice(store, { linked = true, lang = 'en' } = {}) {
  const container = new FakeNode('div');
  const restored = [];
  renderStorageNotice(container, lang, store, { restore: (state, key) => restored.push([state, key]), linked });
  return { container, restored, lines: container.children.map((p) => [p.className, p.textContent]) };
}

test('the storage notice is truthful in each case: set aside or not, in a link or not', () => {
  // a damaged state set aside, and one that could not be
  const damaged = '{"version":1,"tokens":';
  const aside = new Store(() => new MemoryStorage({ [STATE_KEY]: damaged }), 'w');
  aside.load();
  assert.match(notice(aside).lines[0][1], /It has been set aside under “attention-visualizer\.state\.damaged”, not deleted\. Download it$/);
  const full = new Store(() => new MemoryStorage({ [STATE_KEY]: damaged }, 5), 'w');
  full.load();
  const [[kind, text]] = notice(full).lines;
  assert.equal(kind, 'status-error');
  assert.match(text, /It could not be set aside .* so it stays where it was \(“attention-visualizer\.state”\) and this page will not save over it;/);
  assert.doesNotMatch(text, /set aside under/);
  assert.match(notice(full, { lang: 'zh' }).lines[0][1], /无法另存：它留在原处“attention-visualizer\.state”，本页不会覆盖它/);

  // storage full or blocked: "kept only in the link" only while there is a link
  const small = new Store(() => new MemoryStorage({}, 10), 'w');
  small.save(stateText(true), true);
  assert.match(notice(small).lines[0][1], /kept only in the link in the address bar/);
  assert.match(notice(small, { linked: false }).lines[0][1], /too large for the browser’s storage and for a link: download it/);
  const blocked = new Store(() => { throw new Error('blocked'); }, 'w');
  blocked.load();
  assert.match(notice(blocked, { linked: false }).lines[0][1], /does not let the page store data, and this input is too large for a link/);

  // replaced work: listed with restore and discard; not set aside: restore and download
  const storage = new MemoryStorage();
  const store = new Store(() => storage, 'w');
  store.setAsideWork(JSON.stringify({ ...tutorialState('en'), tokens: ['I', 'love', 'you'] }));
  const shown = notice(store);
  assert.deepEqual(shown.lines, [['storage-previous', 'Your previous work (“I love you”, 3 tokens) was replaced by a link, a file or a preset you opened; it has been set aside under “attention-visualizer.state.previous”, not deleted. Restore it Discard it']]);
  shown.container.buttons()[0].listeners.click();
  assert.deepEqual(shown.restored.map(([state, key]) => [state.tokens.join(' '), key]), [['I love you', PREVIOUS_KEY]]);
  notice(store).container.buttons()[1].listeners.click(); // discard
  assert.equal(storage.getItem(PREVIOUS_KEY), null);
  assert.deepEqual(notice(store).lines, []);
  const tiny = new Store(() => new MemoryStorage({}, 10), 'w');
  tiny.setAsideWork(stateText(true));
  assert.deepEqual(notice(tiny).lines.map(([k, t]) => [k, /^Your previous work was replaced, and it could not be set aside/.test(t), t.endsWith('Restore it Download it')]),
    [['status-error', true, true]]);
});

test('work replaced three times gives one previous-work notice, naming the latest and how many more, not a stack of banners', () => {
  const storage = new MemoryStorage();
  const store = new Store(() => storage, 'w');
  for (const tokens of [['a'], ['b', 'c'], ['the', 'red', 'fox']]) store.setAsideWork(JSON.stringify({ ...tutorialState('en'), tokens, x: tokens.map(() => [1, 0]), keyPadding: tokens.map(() => false) }));
  const shown = notice(store);
  assert.deepEqual(shown.lines, [['storage-previous', 'Your previous work (“the red fox”, 3 tokens) was replaced by a link, a file or a preset you opened; it has been set aside under “attention-visualizer.state.previous.3”, not deleted. 2 earlier works are set aside too; restore or discard this one to see the next. Restore it Discard it']]);
  assert.match(notice(store, { lang: 'zh' }).lines[0][1], /“the red fox”，3 个词元.*另有 2 份更早的内容也已另存/);
  shown.container.buttons()[1].listeners.click(); // discard the latest: the next one is named
  assert.equal(storage.getItem(`${PREVIOUS_KEY}.3`), null);
  assert.deepEqual(notice(store).lines.map(([kind, text]) => [kind, /^Your previous work \(“bc”, 2 tokens\).* 1 earlier work is set aside too;/.test(text)]), [['storage-previous', true]]);
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
  // an entry is the state itself (states are never changed in place: store.js)
  assert.equal(history.current(), b);
});

test('the history keeps at most 200 entries, fewer when they hold many numbers', () => {
  const history = new History();
  const a = tutorialState('en');
  for (let t = 1; t <= 250; t++) history.record({ ...a, temperature: t });
  assert.equal(history.entries.length, 200);
  assert.equal(history.entries[0].temperature, 51);
  // X of 4096 × 64 and three 64 × 64 matrices: 274 432 numbers an entry; 4 Mi numbers hold 15 of them
  const big = (t) => ({
    ...a, temperature: t, x: Array.from({ length: 4096 }, () => new Array(64).fill(t)),
    heads: [{ wq: Array.from({ length: 64 }, () => new Array(64).fill(0)), wk: Array.from({ length: 64 }, () => new Array(64).fill(0)), wv: Array.from({ length: 64 }, () => new Array(64).fill(0)) }],
  });
  for (let t = 1; t <= 20; t++) history.record(big(t));
  assert.equal(history.entries.length, 15);
  assert.equal(history.entries[0].temperature, 6);
  assert.equal(history.current().temperature, 20);
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
