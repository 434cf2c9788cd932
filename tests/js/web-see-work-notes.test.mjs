// "Show the work" beyond its sums (web-see-work checks those): the note under each cell's
// arithmetic, word for word in English and naming the right tokens and matrices in Chinese; the
// operand cells it highlights (marks: the row, column or cell a user sees lit); which matrices
// have arithmetic to show at all, and what Q, K and V are projected from. The numbers come from
// numpy (tests/fixtures/see_cases.json, tests/make_see_fixtures.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainCell, explainable, headOutputName, sources } from '../../web/src/views/work.js';

const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
// a number as a sum's term shows it: 4 decimals at most, bracketed when negative
const shown = (v) => (Number(v.toFixed(4)) < 0 ? `(${Number(v.toFixed(4))})` : String(Number(v.toFixed(4))));
const inf = (m) => m && m.map((row) => row.map((v) => (v === null ? -Infinity : v)));

// The ctx a step gives explainCell (steps.js), from numpy's results only (as web-see-work's).
function contextOf(name, head = 0, lang = 'en') {
  const k = CASES[name];
  const heads = k.result.heads.map((h) => ({ ...h, scaled: inf(h.scaled) }));
  return {
    lang, decimals: 4, tokens: k.tokens, keyTokens: k.keyTokens, head,
    inputs: { x: k.x, c: k.c, ...k.heads[head], wo: k.wo },
    result: heads[head],
    full: { ...k.result, heads },
    options: k.options,
  };
}

test('which cells have arithmetic to show: every step\'s result and each head, not the inputs', () => {
  for (const name of ['Q', 'K', 'V', 'Scores', 'Scaled', 'Weights', 'Output', 'Concat', 'PE', 'X+PE', 'PE_C', 'C+PE_C', 'head_1', 'head_2', 'head_12']) {
    assert.equal(explainable(name), true, name);
  }
  for (const name of ['X', 'C', 'W_Q', 'W_K', 'W_V', 'W_O', 'head_', 'head_x', 'ahead_1', 'head_1b', 'Head_1', '']) {
    assert.equal(explainable(name), false, name);
  }
});

test('the shown head\'s output is called Output for one head without W_O, head_h otherwise', () => {
  assert.equal(headOutputName({ options: { usesWo: false } }), 'Output');
  assert.equal(headOutputName({}), 'Output');
  assert.equal(headOutputName({ options: { usesWo: true }, head: 1 }), 'head_2');
  assert.equal(headOutputName({ options: { usesWo: true } }), 'head_1');
});

test('what Q and K, V are projected from: X, X+PE, C or C+PE_C', () => {
  const x = [[1]];
  const c = [[2]];
  const xWithPe = [[3]];
  const contextWithPe = [[4]];
  const of = (options) => {
    const { q, kv } = sources({ inputs: { x, c }, full: { xWithPe, contextWithPe }, options });
    return [q.name, q.data, kv.name, kv.data];
  };
  assert.deepEqual(of({}), ['X', x, 'X', x]);
  assert.deepEqual(of({ positionalEncoding: true }), ['X+PE', xWithPe, 'X+PE', xWithPe]);
  assert.deepEqual(of({ cross: true }), ['X', x, 'C', c]);
  assert.deepEqual(of({ cross: true, positionalEncoding: true }), ['X+PE', xWithPe, 'C+PE_C', contextWithPe]);
  assert.deepEqual(sources({ inputs: { x } }).q.name, 'X', 'no full result yet');
});

test('each cell lights its operands: the row and column of a product, the score it scales, the row of its softmax and the max', () => {
  const cross = contextOf('cross');
  assert.deepEqual(explainCell('Q', 2, 1, cross).marks, [{ m: 'X', r: 2 }, { m: 'W_Q', c: 1 }]);
  assert.deepEqual(explainCell('K', 4, 0, cross).marks, [{ m: 'C', r: 4 }, { m: 'W_K', c: 0 }]);
  assert.deepEqual(explainCell('V', 3, 1, cross).marks, [{ m: 'C', r: 3 }, { m: 'W_V', c: 1 }]);
  assert.deepEqual(explainCell('Scores', 1, 3, cross).marks, [{ m: 'Q', r: 1 }, { m: 'K', r: 3 }]);
  assert.deepEqual(explainCell('Scaled', 1, 2, cross).marks, [{ m: 'Scores', r: 1, c: 2 }]);
  assert.deepEqual(explainCell('Scaled', 1, 3, cross).marks, [{ m: 'Scores', r: 1, c: 3 }], 'a masked one too');
  const scaled = cross.result.scaled[1];
  const argmax = scaled.indexOf(Math.max(...scaled));
  assert.deepEqual(explainCell('Weights', 1, 0, cross).marks, [{ m: 'Scaled', r: 1 }, { m: 'Scaled', r: 1, c: argmax, kind: 'max' }]);
  assert.deepEqual(explainCell('Output', 2, 1, cross).marks, [{ m: 'Weights', r: 2 }, { m: 'V', c: 1 }]);
  const masked = contextOf('masked');
  const fully = masked.full.fullyMasked.indexOf(true);
  assert.ok(fully >= 0, 'the masked case has a fully masked row');
  assert.deepEqual(explainCell('Weights', fully, 1, masked).marks, [{ m: 'Scaled', r: fully }]);
  const multi = contextOf('multi', 1);
  assert.deepEqual(explainCell('Q', 0, 0, multi).marks, [{ m: 'X+PE', r: 0 }, { m: 'W_Q', c: 0 }]);
  assert.deepEqual(explainCell('head_1', 2, 1, multi).marks, [{ m: 'Weights', r: 2 }, { m: 'V', c: 1 }]);
  assert.deepEqual(explainCell('Output', 1, 2, multi).marks, [{ m: 'Concat', r: 1 }, { m: 'W_O', c: 2 }]);
  const dv = multi.full.heads[0].output[0].length;
  assert.deepEqual(explainCell('Concat', 2, dv + 1, multi).marks, [{ m: 'head_2', r: 2, c: 1 }]);
  assert.deepEqual(explainCell('Concat', 0, 0, multi).marks, [{ m: 'head_1', r: 0, c: 0 }]);
  assert.deepEqual(explainCell('PE', 1, 1, multi).marks, []);
  assert.deepEqual(explainCell('X+PE', 2, 1, multi).marks, [{ m: 'X', r: 2, c: 1 }, { m: 'PE', r: 2, c: 1 }]);
});

test('a head\'s output cell is that head\'s sum, whichever head the step shows', () => {
  const k = CASES.multi;
  for (const onScreen of [0, 1]) {
    const ctx = contextOf('multi', onScreen);
    for (const h of [0, 1]) {
      const own = k.result.heads[h];
      const line = explainCell(`head_${h + 1}`, 1, 0, ctx).lines[0];
      assert.ok(line.startsWith(`head_${h + 1}[cat, d1] = ${shown(own.weights[1][0])}×`), `head ${h + 1} shown from head ${onScreen + 1}: ${line}`);
      assert.ok(line.endsWith(` = ${Number(own.output[1][0].toFixed(4))}`), line);
    }
  }
});

test('the note under each cell, word for word (en), with the tokens, columns and matrices it is about', () => {
  const cross = contextOf('cross');
  const notes = (name, r, c, ctx) => explainCell(name, r, c, ctx).lines.slice(1);
  assert.deepEqual(notes('Q', 2, 1, cross), ['Row 你 of X times column d2 of W_Q, term by term, added up.']);
  assert.deepEqual(notes('K', 4, 0, cross), ['Row much of C times column d1 of W_K, term by term, added up.']);
  assert.deepEqual(notes('V', 1, 1, cross), ['Row love of C times column d2 of W_V, term by term, added up.']);
  assert.deepEqual(notes('Scores', 1, 2, cross), ['What 爱 looks for (row 爱 of Q) dotted with the label of you (row you of K).']);
  assert.deepEqual(notes('Scaled', 1, 2, cross), [`The score divided by √d_k, with d_k = ${cross.result.q[0].length}.`]);
  assert.deepEqual(notes('Scaled', 1, 3, cross), ['so is marked as padding: no query attends to it.',
    'Why −∞ and not just a small number: exp(−∞) = 0, so after the softmax its weight is exactly 0 and the other weights still add up to 1.']);
  const weights = notes('Weights', 0, 3, cross);
  assert.equal(weights.at(-2), 'so is marked as padding: no query attends to it.');
  assert.equal(weights.at(-1), 'A masked score is −∞ and exp(−∞) = 0: 我 gives exactly 0 attention to so.');
  assert.equal(notes('Weights', 0, 1, cross).at(-1), 'The share of attention 我 gives to love: the weights of the row add up to 1.');
  assert.deepEqual(notes('Output', 2, 1, cross), ['The weights of row 你 times column d2 of V (what each person can tell), added up.']);
  const masked = contextOf('masked');
  assert.deepEqual(notes('Weights', 0, 0, masked), ['我 is marked as padding: no query attends to it.',
    'Every key of 我 is masked, so the softmax has nothing to share out: the whole row is set to 0 (PyTorch gives NaN).']);
  assert.equal(notes('Scaled', 1, 2, masked)[0], '你 comes after 爱: a causal mask lets a token look only at itself and earlier tokens.');
  assert.equal(notes('Scaled', 1, 3, masked)[0], '们 comes after 爱, and it is marked as padding.');
  const multi = contextOf('multi', 1);
  assert.deepEqual(notes('Q', 0, 0, multi), ['Row the of X+PE times column d1 of W_Q, term by term, added up.']);
  assert.deepEqual(notes('Output', 1, 2, multi), ['Row cat of Concat times column d3 of W_O, term by term, added up: the heads’ information mixed back into d_model.']);
  const dv = multi.full.heads[0].output[0].length;
  assert.deepEqual(notes('Concat', 2, dv + 1, multi), ['Simply column d2 of head 2’s output, copied over.']);
  assert.deepEqual(notes('PE', 2, 3, multi), ['Position 2 (counting from 0), column d4: even columns use sin, odd ones cos, with 2i = 2. The later the column, the longer the wave.']);
  assert.deepEqual(notes('X+PE', 2, 1, multi), ['The number of X plus the same cell of PE.']);
  assert.deepEqual(notes('Scaled', 0, 1, contextOf('unscaled')), ['Not divided by √d_k, only by the temperature T = 2.']);
  assert.deepEqual(notes('Scaled', 0, 1, contextOf('unscaled1')), ['No scaling: the score goes into the softmax as it is (temperature T = 1).']);
  assert.deepEqual(notes('Scaled', 0, 1, contextOf('long')), [`The score divided by √d_k (d_k = ${CASES.long.result.heads[0].q[0].length}), then by the temperature T = 0.7.`]);
  // the max note names the row's largest scaled value and the key it is at
  const row = cross.result.scaled[2];
  const max = Math.max(...row);
  assert.equal(notes('Weights', 2, 0, cross)[0], `max = ${Number(max.toFixed(4))}: the largest value of row 你 of Scaled (at ${CASES.cross.keyTokens[row.indexOf(max)]}), subtracted first so exp cannot overflow.`);
  // in Chinese the same tokens and matrices are named
  const zh = contextOf('cross', 0, 'zh');
  assert.deepEqual(notes('K', 4, 0, zh), ['C 中 much 这一行，逐项乘以 W_K 的 d1 列，再相加。']);
  assert.deepEqual(notes('Scaled', 1, 3, zh)[0], 'so 被标成了填充：没有查询会注意它。');
});

test('a single head with W_O: the output cell sums head_1 (there is no Concat) through W_O', () => {
  const k = CASES.multi;
  const ctx = { ...contextOf('multi'), options: { ...k.options, heads: 1, usesWo: true } };
  ctx.full = { ...ctx.full, concat: undefined, heads: [ctx.full.heads[0]] };
  const { lines, marks } = explainCell('Output', 1, 0, ctx);
  const first = k.result.heads[0].output[1][0];
  assert.ok(lines[0].startsWith(`Output[cat, d1] = ${shown(first)}×`), lines[0]);
  assert.equal(lines[1], 'Row cat of head_1 times column d1 of W_O, term by term, added up: the heads’ information mixed back into d_model.');
  assert.deepEqual(marks, [{ m: 'head_1', r: 1 }, { m: 'W_O', c: 0 }]);
});

test('context positions: PE_C and C+PE_C are the keys\' own, named by the key tokens', () => {
  // cross-attention with positional encoding: the context's PE is the same sinusoid over its own
  // positions; numpy's PE and X+PE of the multi case stand in for PE_C and C+PE_C here
  const k = CASES.multi;
  const ctx = {
    ...contextOf('multi'), keyTokens: ['甲', '乙', '丙'], tokens: ['a'],
    inputs: { ...contextOf('multi').inputs, c: k.x },
    options: { ...k.options, cross: true },
    full: { ...contextOf('multi').full, contextPe: k.result.pe, contextWithPe: k.result.xWithPe, pe: [[0]], xWithPe: [[0]] },
  };
  const pe = explainCell('PE_C', 2, 1, ctx);
  assert.ok(pe.lines[0].startsWith(`PE_C[丙, d2] = cos(2 / 10000^(0/${k.x[0].length}))`), pe.lines[0]);
  assert.ok(pe.lines[0].endsWith(` = ${Number(k.result.pe[2][1].toFixed(4))}`), pe.lines[0]);
  const sum = explainCell('C+PE_C', 1, 0, ctx);
  assert.equal(sum.lines[0], `C+PE_C[乙, d1] = ${shown(k.x[1][0])} + ${shown(k.result.pe[1][0])} = ${Number(k.result.xWithPe[1][0].toFixed(4))}`);
  assert.deepEqual(sum.lines.slice(1), ['The number of C plus the same cell of PE_C.']);
  assert.deepEqual(sum.marks, [{ m: 'C', r: 1, c: 0 }, { m: 'PE_C', r: 1, c: 0 }]);
  assert.throws(() => explainCell('W_Q', 0, 0, ctx), /No arithmetic for W_Q/);
});

test('a sum of 12 terms is written out whole, one of 13 keeps its first five and last two around the count', () => {
  // hand-made: X's row 1, 2, …, n times a column of W_Q of ones; the sum 1 + 2 + … + n
  const ctx = (n) => ({
    lang: 'en', decimals: 4, tokens: ['a'], options: {},
    inputs: { x: [Array.from({ length: n }, (_, i) => i + 1)], wq: Array.from({ length: n }, () => [1]) },
    result: { q: [[(n * (n + 1)) / 2]] },
  });
  assert.equal(explainCell('Q', 0, 0, ctx(12)).lines[0], 'Q[a, d1] = 1×1 + 2×1 + 3×1 + 4×1 + 5×1 + 6×1 + 7×1 + 8×1 + 9×1 + 10×1 + 11×1 + 12×1 = 78');
  assert.equal(explainCell('Q', 0, 0, ctx(13)).lines[0], 'Q[a, d1] = 1×1 + 2×1 + 3×1 + 4×1 + 5×1 + … (13) + 12×1 + 13×1 = 91');
});

test('a scaled cell\'s line in full: no step repeated when nothing divides it, only T when √d_k is off', () => {
  for (const [name, divided] of [['unscaled1', false], ['unscaled', true]]) {
    const ctx = contextOf(name);
    const { scores, scaled } = ctx.result;
    const line = explainCell('Scaled', 0, 1, ctx).lines[0];
    const value = Number(scaled[0][1].toFixed(4));
    assert.equal(line, divided ? `Scaled[a, b] = ${shown(scores[0][1])} / 2 = ${value}` : `Scaled[a, b] = ${shown(scores[0][1])} = ${value}`, name);
  }
});

test('a PE cell is the sinusoid of the query\'s position in every kind of state: one head without W_O, and across (named by the query token)', () => {
  const k = CASES.multi;
  const single = { ...contextOf('multi'), options: { ...k.options, heads: 1, usesWo: false } };
  assert.ok(explainCell('PE', 1, 0, single).lines[0].startsWith(`PE[cat, d1] = sin(1 / 10000^(0/${k.x[0].length}))`), 'one head, no W_O');
  const cross = { ...contextOf('multi'), keyTokens: ['甲', '乙', '丙'], options: { ...k.options, cross: true } };
  assert.ok(explainCell('PE', 2, 1, cross).lines[0].startsWith('PE[sat, d2] = cos('), 'the query token, not the key');
});
