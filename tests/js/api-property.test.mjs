// Property test of the public JS API: seeded random inputs — good, subtly wrong and hostile —
// always give finite results of the right shapes, or an Error with a known code and a message;
// never a crash, a hang, a number thrown, or a broken engine afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../../web/src/random.js';
import { TUTORIAL, assertTutorial, createAttentionEngine } from './fixtures.mjs';

const engine = await createAttentionEngine();

const CODES = new Set([
  'not_matrix', 'not_number', 'not_boolean', 'not_array', 'empty', 'empty_row', 'ragged',
  'not_finite', 'range', 'shape', 'conflict', 'unknown_option', 'overflow', 'limit',
]);

function generator(seed) {
  const rand = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const chance = (p) => rand() < p;
  const pick = (items) => items[int(0, items.length - 1)];
  const HOSTILE = [NaN, Infinity, -Infinity, 1e308, -1e308, 5e-324, '1', null, undefined, {}, [], true,
    '<img src=x onerror=alert(1)>', 10n];
  let faulty = false; // about half the inputs carry faults, the rest must compute
  const fault = (p) => faulty && chance(p);
  const value = () => (fault(0.01) ? pick(HOSTILE) : (rand() - 0.5) * 10 ** int(-2, 2));
  const matrix = (rows, cols) => {
    if (fault(0.02)) return pick(HOSTILE);
    return Array.from({ length: rows }, () =>
      fault(0.02) ? pick(HOSTILE) : Array.from({ length: fault(0.02) ? int(0, cols + 1) : cols }, value));
  };
  // one random input: consistent shapes, or (half the time) with a chance of every kind of fault
  return () => {
    faulty = chance(0.5);
    const n = int(fault(0.03) ? 0 : 1, 12);
    const dModel = int(1, 8);
    const dK = int(1, 6);
    const dV = int(1, 6);
    const off = () => (fault(0.03) ? int(-1, 1) : 0);
    const input = { x: matrix(n, dModel) };
    const cross = chance(0.2);
    const nK = cross ? int(1, 12) : n;
    const dCtx = cross ? int(1, 8) : dModel;
    if (cross) input.context = matrix(nK, dCtx);
    const head = () => ({
      wq: matrix(dModel + off(), dK),
      wk: matrix(dCtx + off(), dK + off()),
      wv: matrix(dCtx, dV),
    });
    if (chance(0.5)) {
      Object.assign(input, head());
    } else {
      const h = int(fault(0.02) ? 0 : 1, 4);
      input.heads = Array.from({ length: h }, head);
      if (chance(0.4)) input.wo = matrix(h * dV + off(), dModel);
    }
    if (chance(0.3)) input.causal = fault(0.05) ? pick(HOSTILE) : chance(0.5);
    if (chance(0.3)) input.keyPadding = Array.from({ length: nK + off() }, () => (fault(0.03) ? 1 : chance(0.3)));
    if (chance(0.2)) input.scaleBySqrtDk = chance(0.5);
    if (chance(0.2)) input.temperature = fault(0.1) ? pick([0, -1, ...HOSTILE]) : 10 ** (rand() * 4 - 2);
    if (chance(0.2)) input.positionalEncoding = chance(0.5);
    if (fault(0.02)) input.casual = true; // a typo
    return input;
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

test('2000 random inputs give finite, well-shaped results or a clear Error, and the engine keeps working', (t) => {
  const next = generator(20261130);
  const seen = { ok: 0 };
  for (let i = 0; i < 2000; i++) {
    const input = next();
    let result;
    try {
      result = engine.compute(input);
    } catch (err) {
      assert.ok(err instanceof Error, `case ${i}: threw ${typeof err}, not an Error`);
      assert.ok(CODES.has(err.code), `case ${i}: unknown code ${err.code} (${err.message})`);
      assert.ok(err.message.length > 10, `case ${i}: message ${JSON.stringify(err.message)}`);
      seen[err.code] = (seen[err.code] || 0) + 1;
      continue;
    }
    checkResult(input, result);
    seen.ok++;
  }
  t.diagnostic(`outcomes: ${JSON.stringify(seen)}`);
  assert.ok(seen.ok > 200, 'enough inputs were valid to exercise the results');
  assert.ok(Object.keys(seen).length > 8, 'enough kinds of error were exercised');
  assertTutorial(engine.compute(TUTORIAL));
});
