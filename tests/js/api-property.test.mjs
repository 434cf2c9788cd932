// Property test of the public JS API: seeded random inputs, valid or with exactly one fault of
// a known kind. A valid input must give finite results of the right shapes; a faulty one must
// throw an Error with its fault's code (and operand, head, row and column where the fault fixes
// them). Never a crash, a hang, a number thrown, or a broken engine afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../../web/src/io/random.js';
import { TUTORIAL, assertTutorial, createAttentionEngine } from './fixtures.mjs';

const engine = await createAttentionEngine();

const NOT_FINITE = [NaN, Infinity, -Infinity];
const NOT_NUMBERS = ['1', null, undefined, {}, [], true, '<img src=x onerror=alert(1)>', 10n];
const NOT_ARRAYS = [NaN, 1, '1', null, {}, true, 10n, '<img src=x onerror=alert(1)>'];
const NOT_BOOLEANS = [1, 0, 'true', null, {}, []];

// Every matrix of an input: its operand, its head (for heads[h]) and where it sits.
function matricesOf(input) {
  const list = [{ operand: 'x', owner: input }];
  if (input.context) list.push({ operand: 'context', owner: input });
  const heads = input.heads ? input.heads.map((owner, head) => ({ owner, head })) : [{ owner: input }];
  for (const { owner, head } of heads) for (const operand of ['wq', 'wk', 'wv']) list.push({ operand, head, owner });
  if (input.wo) list.push({ operand: 'wo', owner: input });
  return list;
}

// { input, fault: null } or { input, fault: name, expected: { code, operand?, head?, row?, column? } }.
function generator(seed) {
  const rand = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const chance = (p) => rand() < p;
  const pick = (items) => items[int(0, items.length - 1)];
  const value = () => (rand() - 0.5) * 10 ** int(-2, 2);
  const matrix = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, value));
  const keys = (input) => (input.context || input.x).length;

  // consistent shapes, every option of its type and in its range
  function valid() {
    const n = int(1, 12);
    const dModel = int(1, 8);
    const dK = int(1, 6);
    const dV = int(1, 6);
    const input = { x: matrix(n, dModel) };
    const cross = chance(0.2);
    const dCtx = cross ? int(1, 8) : dModel;
    if (cross) input.context = matrix(int(1, 12), dCtx);
    const head = () => ({ wq: matrix(dModel, dK), wk: matrix(dCtx, dK), wv: matrix(dCtx, dV) });
    if (chance(0.5)) {
      Object.assign(input, head());
    } else {
      input.heads = Array.from({ length: int(1, 4) }, head);
      if (chance(0.4)) input.wo = matrix(input.heads.length * dV, dModel);
    }
    if (chance(0.3)) input.causal = chance(0.5);
    if (chance(0.3)) input.keyPadding = Array.from({ length: keys(input) }, () => chance(0.3));
    if (chance(0.2)) input.scaleBySqrtDk = chance(0.5);
    if (chance(0.2)) input.temperature = 10 ** (rand() * 4 - 2);
    if (chance(0.2)) input.positionalEncoding = chance(0.5);
    return input;
  }

  // A matrix one longer, or one shorter where that leaves one: by rows, or every row by a column.
  const resizeRows = (m) => (m.length > 1 && chance(0.5) ? m.slice(1) : [...m, m[0].map(value)]);
  const resizeCols = (m) => (m[0].length > 1 && chance(0.5) ? m.map((row) => row.slice(1)) : m.map((row) => [...row, value()]));
  const where = ({ operand, head }) => ({ operand, head });

  // Each fault breaks a valid input in one way and returns what compute() must throw, or
  // null where it does not apply to this input.
  const FAULTS = {
    'a value NaN or ±Infinity': (input) => {
      const m = pick(matricesOf(input));
      const [row, column] = [int(0, m.owner[m.operand].length - 1), int(0, m.owner[m.operand][0].length - 1)];
      m.owner[m.operand][row][column] = pick(NOT_FINITE);
      return { code: 'not_finite', ...where(m), row, column };
    },
    'a value not a number': (input) => {
      const m = pick(matricesOf(input));
      const [row, column] = [int(0, m.owner[m.operand].length - 1), int(0, m.owner[m.operand][0].length - 1)];
      m.owner[m.operand][row][column] = pick(NOT_NUMBERS);
      return { code: 'not_number', ...where(m), row, column };
    },
    'a matrix not an array': (input) => {
      const m = pick(matricesOf(input));
      m.owner[m.operand] = pick(NOT_ARRAYS);
      return { code: 'not_matrix', ...where(m) };
    },
    'a row not an array': (input) => {
      const m = pick(matricesOf(input));
      const row = int(0, m.owner[m.operand].length - 1);
      m.owner[m.operand][row] = pick([...NOT_ARRAYS, undefined]);
      return { code: 'not_matrix', ...where(m), row };
    },
    'a matrix without rows': (input) => {
      const m = pick(matricesOf(input));
      m.owner[m.operand] = [];
      return { code: 'empty', ...where(m) };
    },
    'an empty row': (input) => {
      const m = pick(matricesOf(input));
      const row = int(0, m.owner[m.operand].length - 1);
      m.owner[m.operand][row] = [];
      return { code: 'empty_row', ...where(m), row };
    },
    'a row longer than the first': (input) => {
      const tall = matricesOf(input).filter((m) => m.owner[m.operand].length > 1);
      if (tall.length === 0) return null;
      const m = pick(tall);
      const row = int(1, m.owner[m.operand].length - 1);
      m.owner[m.operand][row].push(value());
      return { code: 'ragged', ...where(m), row };
    },
    'W_Q, W_K or W_V with the wrong number of rows': (input) => {
      const m = pick(matricesOf(input).filter((w) => ['wq', 'wk', 'wv'].includes(w.operand)));
      m.owner[m.operand] = resizeRows(m.owner[m.operand]);
      return { code: 'shape', ...where(m) };
    },
    'W_K columns differ from W_Q\'s': (input) => {
      const m = pick(matricesOf(input).filter((w) => w.operand === 'wk'));
      m.owner.wk = resizeCols(m.owner.wk);
      return { code: 'shape', ...where(m) };
    },
    'a later head with another d_k': (input) => {
      if (!input.heads || input.heads.length < 2) return null;
      const head = int(1, input.heads.length - 1);
      const h = input.heads[head];
      [h.wq, h.wk] = [h.wq.map((row) => [...row, value()]), h.wk.map((row) => [...row, value()])];
      return { code: 'shape', operand: 'wq', head };
    },
    'a later head with another d_v': (input) => {
      if (!input.heads || input.heads.length < 2) return null;
      const head = int(1, input.heads.length - 1);
      input.heads[head].wv = resizeCols(input.heads[head].wv);
      return { code: 'shape', operand: 'wv', head };
    },
    'W_O of the wrong shape': (input) => {
      if (!input.wo) return null;
      input.wo = chance(0.5) ? resizeRows(input.wo) : resizeCols(input.wo);
      return { code: 'shape', operand: 'wo', head: undefined };
    },
    'no heads': (input) => {
      if (!input.heads) return null;
      input.heads = [];
      return { code: 'empty', operand: 'heads' };
    },
    'heads not an array': (input) => {
      if (!input.heads) return null;
      input.heads = pick([{}, '1', 1, null, true]);
      return { code: 'not_matrix', operand: 'heads' };
    },
    'a head not an object': (input) => {
      if (!input.heads) return null;
      const head = int(0, input.heads.length - 1);
      input.heads[head] = pick([null, 1, '1', [], true]);
      return { code: 'not_matrix', operand: 'heads', head };
    },
    'a head without W_Q, W_K or W_V': (input) => {
      if (!input.heads) return null;
      const head = int(0, input.heads.length - 1);
      const operand = pick(['wq', 'wk', 'wv']);
      delete input.heads[head][operand];
      return { code: 'not_matrix', operand, head };
    },
    'a required matrix missing': (input) => {
      const operand = pick(input.heads ? ['x'] : ['x', 'wq', 'wk', 'wv']);
      delete input[operand];
      return { code: 'not_matrix', operand };
    },
    'heads and W_Q together, or W_O without heads': (input) => {
      if (input.heads) {
        const operand = pick(['wq', 'wk', 'wv']);
        input[operand] = input.heads[0][operand];
        return { code: 'conflict', operand };
      }
      input.wo = matrix(input.wv[0].length, input.x[0].length);
      return { code: 'conflict', operand: 'wo' };
    },
    'an unknown option': (input) => {
      const operand = pick(['casual', 'keypadding', 'Wq', 'temp', '__proto__x']);
      input[operand] = true;
      return { code: 'unknown_option', operand };
    },
    'a boolean option not a boolean': (input) => {
      const operand = pick(['causal', 'scaleBySqrtDk', 'positionalEncoding']);
      input[operand] = pick(NOT_BOOLEANS);
      return { code: 'not_boolean', operand };
    },
    'keyPadding not an array': (input) => {
      input.keyPadding = pick([true, 'true', 1, {}, null]);
      return { code: 'not_array', operand: 'keyPadding' };
    },
    'keyPadding empty': (input) => {
      input.keyPadding = [];
      return { code: 'empty', operand: 'keyPadding' };
    },
    'a keyPadding entry not a boolean': (input) => {
      input.keyPadding = Array.from({ length: keys(input) }, () => chance(0.3));
      const column = int(0, input.keyPadding.length - 1);
      input.keyPadding[column] = pick([1, 0, 'true', null, undefined]);
      return { code: 'not_boolean', operand: 'keyPadding', column };
    },
    'keyPadding for another number of keys': (input) => {
      const n = keys(input);
      input.keyPadding = Array.from({ length: n > 1 && chance(0.5) ? n - 1 : n + 1 }, () => chance(0.3));
      return { code: 'shape', operand: 'keyPadding' };
    },
    'a temperature of 0 or below': (input) => {
      input.temperature = pick([0, -0, -1, -1e-300]);
      return { code: 'range', operand: 'temperature' };
    },
    'a temperature NaN or ±Infinity': (input) => {
      input.temperature = pick(NOT_FINITE);
      return { code: 'not_finite', operand: 'temperature' };
    },
    'a temperature not a number': (input) => {
      input.temperature = pick(['1', null, true, {}, 10n]);
      return { code: 'not_number', operand: 'temperature' };
    },
    'finite values whose product overflows in Q': (input) => {
      // x[row][k] · W_Q[k][0] = 1e400 is the one infinite term of Q[row][0], the first Q cell
      // that overflows; every other product stays below 1e203
      const row = int(0, input.x.length - 1);
      const k = int(0, input.x[0].length - 1);
      input.x[row][k] = 1e200;
      (input.heads ? input.heads[0] : input).wq[k][0] = 1e200;
      return { code: 'overflow', operand: 'q', head: input.heads ? 0 : undefined, row, column: 0 };
    },
    'more tokens than the engine takes': (input) => {
      input.x = [...input.x, ...matrix(4097 - input.x.length, input.x[0].length)];
      if (input.keyPadding && !input.context) input.keyPadding = input.x.map(() => false);
      return { code: 'limit', operand: 'x' };
    },
  };
  const NAMES = Object.keys(FAULTS);

  // half the inputs valid, half with one fault
  return () => {
    const input = valid();
    if (chance(0.5)) return { input, fault: null };
    for (;;) {
      const fault = pick(NAMES);
      const expected = FAULTS[fault](input);
      if (expected) return { input, fault, expected };
    }
  };
}

// Every matrix of a result: finite (−∞ only where masked, in scaled) and shaped rows × cols.
function checkResult(input, r) {
  const heads = input.heads === undefined ? [r] : r.heads;
  const nQ = input.x.length;
  const nK = input.context === undefined ? nQ : input.context.length;
  for (const h of heads) {
    for (const [name, rows, cols] of [['scores', nQ, nK], ['scaled', nQ, nK], ['weights', nQ, nK]]) {
      assert.equal(h[name].length, rows, name);
      h[name].forEach((row, i) => {
        assert.equal(row.length, cols, name);
        row.forEach((v, j) => {
          const masked = r.masked !== undefined && r.masked[i][j];
          if (name === 'scaled' && masked) assert.equal(v, -Infinity);
          else assert.ok(Number.isFinite(v), `${name}[${i}][${j}] = ${v}`);
        });
      });
    }
    h.weights.forEach((row, i) => {
      const sum = row.reduce((a, b) => a + b, 0);
      const fully = r.fullyMasked !== undefined && r.fullyMasked[i];
      assert.ok(Math.abs(sum - (fully ? 0 : 1)) < 1e-9, `weights row ${i} sums to ${sum}`);
    });
  }
  assert.equal(r.output.length, nQ);
  for (const row of r.output) for (const v of row) assert.ok(Number.isFinite(v));
}

test('2000 random inputs: the valid ones compute, each faulty one throws its fault\'s Error, and the engine keeps working', (t) => {
  const next = generator(20261130);
  const seen = { valid: 0 };
  for (let i = 0; i < 2000; i++) {
    const { input, fault, expected } = next();
    if (fault === null) {
      checkResult(input, engine.compute(input));
      seen.valid++;
      continue;
    }
    assert.throws(() => engine.compute(input), (err) => {
      assert.ok(err instanceof Error, `case ${i} (${fault}): threw ${typeof err}, not an Error`);
      assert.ok(err.message.length > 10, `case ${i} (${fault}): message ${JSON.stringify(err.message)}`);
      for (const [key, want] of Object.entries(expected)) {
        assert.equal(err[key], want, `case ${i} (${fault}): ${key} (${err.message})`);
      }
      return true;
    }, `case ${i} (${fault}) computed`);
    seen[fault] = (seen[fault] || 0) + 1;
  }
  t.diagnostic(`outcomes: ${JSON.stringify(seen)}`);
  assert.ok(seen.valid > 800, 'enough valid inputs to exercise the results');
  for (const [fault, count] of Object.entries(seen)) assert.ok(count >= 5, `${fault}: only ${count} inputs`);
  assert.equal(Object.keys(seen).length, 30, 'every kind of fault was generated');
  assertTutorial(engine.compute(TUTORIAL));
});
