// The undo history as a user meets it (issue 33 item 5): which edits are new entries (a change a
// user made, however small or deep in the state) and which are not (the view alone), where undo
// and redo land, how many entries are kept, what a matrix costs, and which keys undo or redo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { History, sameInputs, sameMatrix, numbersOf, undoKey } from '../../web/src/state/history.js';
import { tutorialState } from '../../web/src/state/presets.js';

const base = tutorialState('en');

test('an edit anywhere in the state is a new undo entry; the same inputs under another view are not', () => {
  const differs = {
    'a token of the context': { ...base, context: { tokens: ['a', 'b'], x: [[1, 0], [0, 1]] } },
    'one number of a head': { ...base, heads: base.heads.map((h, i) => (i === 0 ? { ...h, wq: h.wq.map((row, r) => (r === 0 ? [9, ...row.slice(1)] : row)) } : h)) },
    'a key padded': { ...base, keyPadding: base.keyPadding.map((p, i) => i === 1) },
    'a token': { ...base, tokens: ['我', '爱', '他'] },
    'one more token': { ...base, tokens: [...base.tokens, '们'] },
    'an option set that was absent': { ...base, extra: 1 },
    'an option absent that was set': Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'temperature')),
    'a matrix of other numbers in its last row': { ...base, x: base.x.map((row, r) => (r === base.x.length - 1 ? row.map((v) => v + 1) : row)) },
    'a matrix with one row more': { ...base, x: [...base.x, base.x[0]] },
    'a number where a matrix was': { ...base, wo: 1 },
    'a matrix where nothing was': { ...base, wo: [[1, 0], [0, 1]] },
  };
  for (const [what, state] of Object.entries(differs)) {
    const history = new History();
    history.record(base);
    history.record(state);
    assert.equal(history.canUndo(), true, `${what}: an entry to undo`);
    assert.equal(history.undo(), base, `${what}: undo gives the state before`);
    assert.equal(sameInputs(state, base), false, `${what}: not the same inputs`);
  }
  const same = {
    'another step and language': { ...base, view: { ...base.view, step: 'softmax', lang: 'zh' } },
    'copies of every matrix and list': structuredClone(base),
    'typed rows of the same numbers': { ...base, x: base.x.map((row) => Float64Array.from(row)) },
    'a state with no view': Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'view')),
  };
  for (const [what, state] of Object.entries(same)) {
    const history = new History();
    history.record(base);
    history.record(state);
    assert.equal(history.canUndo(), false, `${what}: no entry to undo`);
    assert.equal(history.current(), base, `${what}: the first entry stays on screen`);
    assert.equal(sameInputs(state, base), true, `${what}: the same inputs`);
  }
});

test('the answer kept for two matrices is not given for two others: an edit back to the first numbers is the same inputs again', () => {
  const x1 = [[1, 2], [3, 4]];
  const x2 = [[1, 2], [3, 5]];
  const x1copy = [[1, 2], [3, 4]];
  const s = (x) => ({ ...base, x });
  assert.equal(sameInputs(s(x1), s(x2)), false);
  assert.equal(sameInputs(s(x1), s(x1copy)), true, 'another pair of matrices: its own answer');
  assert.equal(sameInputs(s(x2), s(x1copy)), false);
  assert.equal(sameInputs(s(x1copy), s(x2)), false, 'either way round');
  assert.equal(sameInputs(s(x1), s(x1copy)), true);
  // the same for lists of tokens (arrays of strings, not numbers) and objects (the context)
  const t1 = ['a', 'b'];
  assert.equal(sameInputs({ ...base, tokens: t1 }, { ...base, tokens: ['a', 'c'] }), false);
  assert.equal(sameInputs({ ...base, tokens: t1 }, { ...base, tokens: ['a', 'b'] }), true);
  assert.equal(sameInputs({ ...base, tokens: ['a', 'c'] }, { ...base, tokens: ['a', 'b'] }), false);
});

test('a kept answer is given only for the same two matrices: one of them met again beside another is compared anew', () => {
  const s = (x) => ({ ...base, x });
  const [x1, x2] = [[[1, 2]], [[1, 3]]];
  assert.equal(sameInputs(s(x1), s(x2)), false);
  assert.equal(sameInputs(s(x2), s([[1, 3]])), true, 'x2 again, first, beside a copy of itself');
  assert.equal(sameInputs(s(x1), s(x2)), false);
  assert.equal(sameInputs(s([[1, 2]]), s(x1)), true, 'x1 again, second, beside a copy of itself');
  assert.equal(sameInputs(s(x1), s(x2)), false);
  assert.equal(sameInputs(s([[1, 3]]), s(x2)), true, 'x2 again, second');
  assert.equal(sameInputs(s(x1), s(x2)), false);
  assert.equal(sameInputs(s(x1), s([[1, 2]])), true, 'x1 again, first');
});

test('values of other kinds are never the same inputs: nothing and a context, a word and an object, an object with a key more', () => {
  const context = { tokens: ['a'], x: [[1]] };
  const pairs = [
    [{ ...base, context: null }, { ...base, context }],
    [{ ...base, context }, { ...base, context: null }],
    [{ ...base, extra: 'ab' }, { ...base, extra: { 0: 'a', 1: 'b' } }],
    [{ ...base, extra: { 0: 'a', 1: 'b' } }, { ...base, extra: 'ab' }],
    [{ ...base, context }, { ...base, context: { ...context, more: 1 } }],
    [{ ...base, context: { ...context, more: 1 } }, { ...base, context }],
  ];
  for (const [a, b] of pairs) assert.equal(sameInputs(a, b), false, `${JSON.stringify(a.context ?? a.extra)} and ${JSON.stringify(b.context ?? b.extra)}`);
  assert.equal(sameInputs({ ...base, context: null }, { ...base, context: null }), true);
});

test('at most 200 entries: the 201st edit drops the oldest, the 200th none', () => {
  const history = new History();
  for (let t = 1; t <= 200; t++) history.record({ ...base, temperature: t });
  assert.equal(history.entries.length, 200);
  assert.equal(history.entries[0].temperature, 1);
  history.record({ ...base, temperature: 201 });
  assert.equal(history.entries.length, 200);
  assert.equal(history.entries[0].temperature, 2);
  let undos = 0;
  while (history.undo()) undos += 1;
  assert.equal(undos, 199, 'undo reaches back 199 edits');
});

test('sameMatrix: equal numbers row by row, rows of other kinds compared by value, a differing row anywhere is another matrix', () => {
  assert.equal(sameMatrix([[1, 2], [3, 4]], [[1, 2], [3, 4]]), true);
  assert.equal(sameMatrix([[1, 2], [3, 4]], [[1, 2], [4, 4]]), false, 'the first number of the last row');
  assert.equal(sameMatrix([[1, 2], [3, 4]], [[1, 2], [3, 4, 5]]), false, 'a longer row');
  assert.equal(sameMatrix([[1, 2], [3, 4]], [[1, 2], Float64Array.of(3, 4)]), true, 'a typed row of the same numbers');
  assert.equal(sameMatrix([[1, 2], Float64Array.of(3, 4)], [[1, 2], [3, 4]]), true, 'either way round');
  assert.equal(sameMatrix([Float64Array.of(1, 2)], [Float64Array.of(1, 3)]), false, 'typed rows that differ');
  assert.equal(sameMatrix([[1, 2]], [null]), false, 'a missing row');
  const row = [5, 6];
  assert.equal(sameMatrix([row, [1]], [row, [2]]), false, 'the same first row (one object) does not end the compare');
});

test('numbersOf: the numbers of X, W_O, the context and every head, what an entry costs', () => {
  const m = (r, c) => Array.from({ length: r }, () => new Array(c).fill(1));
  assert.equal(numbersOf({ x: m(3, 4) }), 12);
  assert.equal(numbersOf({ x: m(3, 4), wo: m(4, 2) }), 20);
  assert.equal(numbersOf({ x: m(3, 4), context: { x: m(5, 4) } }), 32);
  assert.equal(numbersOf({ x: m(3, 4), heads: [{ wq: m(4, 2), wk: m(4, 3), wv: m(4, 5) }, { wq: m(4, 1), wk: m(4, 1), wv: m(4, 1) }] }), 12 + 8 + 12 + 20 + 12);
  assert.equal(numbersOf({ x: [] }), 0, 'an empty matrix');
  assert.equal(numbersOf({}), 0, 'no matrices');
});

test('undo and redo land on each edit in turn and stop at either end; a new history has nothing on screen', () => {
  const history = new History();
  assert.equal(history.current(), null);
  assert.equal(history.canUndo(), false);
  assert.equal(history.canRedo(), false);
  assert.equal(history.undo(), null);
  assert.equal(history.redo(), null);
  const states = [1, 2, 3, 4].map((t) => ({ ...base, temperature: t }));
  for (const s of states) history.record(s);
  assert.equal(history.entries.length, 4);
  assert.equal(history.canRedo(), false);
  assert.deepEqual([history.undo(), history.undo(), history.undo()].map((s) => s.temperature), [3, 2, 1]);
  assert.equal(history.canUndo(), false);
  assert.equal(history.undo(), null, 'nothing before the first edit');
  assert.equal(history.current().temperature, 1, 'and the first stays on screen');
  assert.deepEqual([history.redo(), history.redo(), history.redo()].map((s) => s.temperature), [2, 3, 4]);
  assert.equal(history.redo(), null, 'nothing after the last');
  assert.equal(history.current().temperature, 4);
  // undo twice, then an edit: the two undone are gone, the new one is last
  history.undo();
  history.undo();
  history.record({ ...base, temperature: 9 });
  assert.deepEqual(history.entries.map((s) => s.temperature), [1, 2, 9]);
  assert.equal(history.canRedo(), false);
});

test('many large edits: the oldest entries go first, the newest always stays even when it alone is over the limit', () => {
  // X of 2048 × 1024 alone (2 Mi numbers, half the limit): two such entries fit exactly, the
  // tutorial's few numbers more do not
  const row = new Array(1024).fill(0);
  const big = (t) => ({ temperature: t, x: [[t, ...row.slice(1)], ...new Array(2047).fill(row)] });
  const history = new History();
  history.record(base);
  history.record(big(1));
  assert.deepEqual(history.entries.map((s) => s.temperature), [1, 1]);
  history.record(big(2));
  assert.deepEqual(history.entries.map((s) => s.temperature), [1, 2], 'over 4 Mi numbers with the tutorial: the oldest, the tutorial, dropped');
  assert.equal(history.current().temperature, 2);
  assert.equal(history.undo().temperature, 1);
  // one entry over the limit alone (3 × 2 Mi numbers) is kept, the only one
  const huge = { temperature: 5, x: [[5, ...row.slice(1)], ...new Array(6143).fill(row)] };
  history.record(huge);
  assert.deepEqual(history.entries.map((s) => s.temperature), [5]);
  assert.equal(history.current(), huge);
});

test('undo keys: Ctrl/Cmd+Z undoes, Ctrl/Cmd+Shift+Z and Ctrl+Y redo; other keys, Alt, Cmd+Y and Ctrl+Shift+Y do nothing', () => {
  const key = (k, mods = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: null, ...mods });
  const cases = [
    [key('z', { ctrlKey: true }), 'undo'],
    [key('Z', { ctrlKey: true }), 'undo'],
    [key('z', { metaKey: true }), 'undo'],
    [key('z', { ctrlKey: true, shiftKey: true }), 'redo'],
    [key('Z', { metaKey: true, shiftKey: true }), 'redo'],
    [key('y', { ctrlKey: true }), 'redo'],
    [key('Y', { ctrlKey: true }), 'redo'],
    [key('y', { metaKey: true }), null],
    [key('y', { ctrlKey: true, shiftKey: true }), null],
    [key('y'), null],
    [key('z'), null],
    [key('x', { ctrlKey: true }), null],
    [key('z', { ctrlKey: true, altKey: true }), null],
    [key('y', { ctrlKey: true, altKey: true }), null],
  ];
  for (const [event, action] of cases) {
    const mods = ['ctrlKey', 'metaKey', 'shiftKey', 'altKey'].filter((m) => event[m]).join('+');
    assert.equal(undoKey(event), action, `${mods}+${event.key}`);
  }
});

test('undo keys in a text field are the field\'s own; on a checkbox or a button they are the page\'s; the event\'s first target counts', () => {
  // a target that matches the selectors a browser would for the element it stands for
  const element = (tag, type = null, contenteditable = null) => ({
    closest(selector) {
      const fields = selector.split(/,(?![^(]*\))/).map((s) => s.trim());
      const match = fields.some((f) => {
        if (f === tag) return true;
        if (contenteditable !== null && f === `[contenteditable="${contenteditable}"]`) return true;
        const input = /^input:not\((.*)\)$/.exec(f);
        return tag === 'input' && input && !input[1].split(',').map((s) => s.trim()).includes(`[type=${type}]`);
      });
      return match ? this : null;
    },
  });
  const ctrlZ = (target, path = true) => ({ key: 'z', ctrlKey: true, metaKey: false, shiftKey: false, altKey: false, target, ...(path ? { composedPath: () => [target] } : {}) });
  for (const [what, target] of [['a textarea', element('textarea')], ['a text input', element('input', 'text')], ['a number input', element('input', 'number')],
    ['contenteditable', element('div', null, '')], ['contenteditable=true', element('div', null, 'true')]]) {
    assert.equal(undoKey(ctrlZ(target)), null, what);
    assert.equal(undoKey(ctrlZ(target, false)), null, `${what} (no composedPath)`);
  }
  for (const [what, target] of [['a checkbox', element('input', 'checkbox')], ['a radio', element('input', 'radio')], ['a button input', element('input', 'button')],
    ['a file input', element('input', 'file')], ['a range', element('input', 'range')], ['a colour', element('input', 'color')],
    ['a button', element('button')], ['contenteditable=false', element('div', null, 'false')], ['a target with no closest', {}]]) {
    assert.equal(undoKey(ctrlZ(target)), 'undo', what);
  }
  // inside a shadow root the event's target is the host; its first composed target is the field
  const host = element('attention-visualizer');
  assert.equal(undoKey({ ...ctrlZ(host), composedPath: () => [element('textarea'), host] }), null);
});
