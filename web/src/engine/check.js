// A learner's own value for one cell, checked against the engine's result and, when it is wrong,
// against the mistakes learners make: each mistake is a computation of the same cell from the same
// input done the wrong way (by the engine with a changed input, or from its intermediates), never
// a guess from the digits.
//
//   checkAnswer(engine, input, { matrix, row, column, head }, typed, { tokens })
//     input: compute()'s argument; matrix: a result as compute() names it (q, k, v, scores,
//     scaled, weights, output); head: 0-based, for one head's matrices when there are several;
//     typed: the learner's text ("0.34") or number: the last decimal written sets the precision.
//   → { correct, expected, value, precision, mistake, wrong, explanation: { zh, en }, withheld: { zh, en } }
//     mistake: null when right or unexplained, else one of MISTAKES; wrong: that computation's value;
//     withheld: the explanation without the right value (an exercise's blank still to fill in).

import { translate, LANGUAGES } from '../ui/i18n.js';
import { TUTORIAL, TUTORIAL_PRINTED } from '../state/presets.js';
import { normalizeResult } from './variant.js';

// In the order they are preferred when several explain the same digits.
export const MISTAKES = ['misprint', 'transposed', 'no-scaling', 'scaled-by-dk', 'column-softmax', 'wrong-cell', 'term-slip', 'rounded-early', 'truncated'];
export const CHECKED_MATRICES = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];
const NAMES = { q: 'Q', k: 'K', v: 'V', scores: 'Scores', scaled: 'Scaled', weights: 'Weights', output: 'Output' };
// The step before each matrix, whose values rounded early feed it.
const PREVIOUS = { scores: 'Q, K', scaled: 'Scores', weights: 'Scaled', output: 'Weights, V' };
const MAX_WRONG_CELL_SEARCH = 4096; // cells of one matrix searched for the value typed

function checkError(code, message) {
  return Object.assign(new Error(message), { code });
}

// The typed value and the unit of its last written digit: "0.34" → 0.34, 0.01; "-1.2e-7" → 1e-8.
export function readTyped(typed) {
  const text = String(typed).trim().replace(/^[−–]/, '-').replace(',', '.');
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === '' && !m[3])) throw checkError('not_number', `“${String(typed).slice(0, 40)}” is not a number`);
  const decimals = (m[3] || '').length;
  const exponent = Number(m[4] || 0);
  const value = Number(text);
  if (!Number.isFinite(value)) throw checkError('not_finite', `“${String(typed).slice(0, 40)}” is not a finite number`);
  const places = decimals - exponent; // decimals after the point once the exponent is applied
  return { value, ulp: 10 ** -places, places, scientific: m[4] !== undefined };
}

function format(value, precision) {
  if (!Number.isFinite(value)) return String(value);
  if (precision.scientific) {
    const digits = Math.max(0, Math.min(20, Math.round(-Math.log10(precision.ulp)) + Math.floor(Math.log10(Math.abs(value) || 1))));
    return value.toExponential(Math.min(digits, 20));
  }
  return value.toFixed(Math.max(0, Math.min(20, precision.places)));
}

// |a − b| within half a unit of the last digit written (plus float noise): a rounds to b.
const roundsTo = (a, b, ulp) => Math.abs(a - b) <= ulp / 2 + 1e-9 * ulp;
const roundTo = (value, places) => Math.round(value * 10 ** places) / 10 ** places;

function softmaxRow(row) {
  const finite = row.filter(Number.isFinite);
  if (finite.length === 0) return row.map(() => 0);
  const max = Math.max(...finite);
  const exps = row.map((s) => (Number.isFinite(s) ? Math.exp(s - max) : 0));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));
const dot = (a, b) => a.reduce((sum, v, t) => sum + v * b[t], 0);
const columnOf = (m, j) => m.map((row) => row[j]);

function isTutorial(input) {
  const keys = Object.keys(input).sort().join(',');
  if (keys !== 'wk,wq,wv,x') return false;
  return ['x', 'wq', 'wk', 'wv'].every((k) => JSON.stringify(input[k]) === JSON.stringify(TUTORIAL[k]));
}

// The cell's matrices and labels: one head's steps, or the heads' combined output.
function cellContext(engine, input, { matrix, row, column, head }, tokens) {
  if (!CHECKED_MATRICES.includes(matrix)) throw checkError('unknown_matrix', `matrix must be one of ${CHECKED_MATRICES.join(', ')}`);
  const result = normalizeResult(engine.compute(input));
  const several = Boolean(input.heads && (input.heads.length > 1 || input.wo));
  const h = head ?? 0;
  if (!Number.isInteger(h) || h < 0 || h >= result.heads.length) throw checkError('range', `head must be an integer in [0, ${result.heads.length})`);
  const combined = matrix === 'output' && several && head === undefined;
  const own = result.heads[h];
  const values = combined ? result.output : own[matrix];
  if (!Number.isInteger(row) || row < 0 || row >= values.length) throw checkError('range', `row must be an integer in [0, ${values.length})`);
  if (!Number.isInteger(column) || column < 0 || column >= values[0].length) throw checkError('range', `column must be an integer in [0, ${values[0].length})`);
  const queries = (Array.isArray(tokens) ? tokens : tokens?.queries) || values.map((_, i) => String(i + 1));
  const keys = (Array.isArray(tokens) ? tokens : tokens?.keys) || own.k.map((_, i) => String(i + 1));
  const square = ['scores', 'scaled', 'weights'].includes(matrix);
  const rowLabels = matrix === 'k' || matrix === 'v' ? keys : queries;
  const label = (i, j) => `${NAMES[matrix]}[${rowLabels[i] ?? i + 1}, ${square ? keys[j] ?? j + 1 : `d${j + 1}`}]${several && !combined ? ` (${h + 1})` : ''}`;
  return { result, own, values, combined, h, label, queries, keys };
}

// The candidate mistakes for the cell, each { mistake, value, params }.
function candidates(engine, input, cell, ctx) {
  const { matrix, row: i, column: j } = cell;
  const { own, values, combined, h, label } = ctx;
  const out = [];
  const add = (mistake, value, params = {}) => { if (Number.isFinite(value)) out.push({ mistake, value, params }); };
  const cellOf = (result) => (combined ? result.output : normalizeResult(result).heads[h][matrix])[i][j];
  const scaling = input.scaleBySqrtDk !== false;
  const dk = own.q[0].length;
  const temperature = input.temperature ?? 1;

  if (matrix === 'scaled' || matrix === 'weights' || matrix === 'output') {
    if (isTutorial(input) && TUTORIAL_PRINTED[matrix]) add('misprint', TUTORIAL_PRINTED[matrix][i][j]);
    if (scaling) {
      add('no-scaling', cellOf(engine.compute({ ...input, scaleBySqrtDk: false })), { dk, root: Math.sqrt(dk).toFixed(4) });
      if (dk > 1) add('scaled-by-dk', cellOf(engine.compute({ ...input, temperature: temperature * Math.sqrt(dk) })), { dk, root: Math.sqrt(dk).toFixed(4) });
    }
  }
  const squareSelf = own.scores.length === own.scores[0].length && !input.context;
  if (!combined && squareSelf && ['scores', 'scaled'].includes(matrix) && i !== j) {
    add('transposed', values[j][i], { other: label(j, i) });
  }
  if (!combined && squareSelf && (matrix === 'weights' || matrix === 'output')) {
    const flipped = transpose(own.scaled).map(softmaxRow);
    add('transposed', matrix === 'weights' ? flipped[i][j] : dot(flipped[i], columnOf(own.v, j)), { rows: true });
  }
  if (!combined && (matrix === 'weights' || matrix === 'output')) {
    const byColumn = transpose(transpose(own.scaled).map(softmaxRow));
    add('column-softmax', matrix === 'weights' ? byColumn[i][j] : dot(byColumn[i], columnOf(own.v, j)), { query: ctx.queries[i], key: ctx.keys[j] });
  }
  if (values.length * values[0].length <= MAX_WRONG_CELL_SEARCH) {
    values.forEach((r, a) => r.forEach((v, b) => { if (a !== i || b !== j) add('wrong-cell', v, { other: label(a, b) }); }));
  }
  // the sum behind the cell, term by term: a · b for each t
  const factors = sumFactors(input, cell, ctx);
  if (factors) {
    const expected = values[i][j];
    factors.a.forEach((a, t) => {
      const term = a * factors.b[t];
      const params = { term: `${factors.names(t)} = ${a.toFixed(4)} × ${factors.b[t].toFixed(4)} = ${term.toFixed(4)}` };
      add('term-slip', expected - term, { ...params, slip: 'left out' });
      add('term-slip', expected - 2 * term, { ...params, slip: 'sign' });
      add('term-slip', expected - term + a + factors.b[t], { ...params, slip: 'added' });
    });
  }
  if (matrix === 'weights' && !combined) {
    const s = own.scaled[i];
    const finite = s.filter(Number.isFinite);
    const max = Math.max(...finite);
    const exps = s.map((v) => (Number.isFinite(v) ? Math.exp(v - max) : 0));
    const sum = exps.reduce((a, b) => a + b, 0);
    exps.forEach((e, t) => {
      if (t !== j && e > 0) add('term-slip', exps[j] / (sum - e), { term: `exp(${label(i, t).replace('Weights', 'Scaled')})`, slip: 'left out' });
    });
  }
  for (const places of [2, 4]) {
    const early = roundedEarly(cell, ctx, input, places);
    if (early !== null) add('rounded-early', early, { places, previous: PREVIOUS[matrix] });
  }
  return out;
}

// The factors of the dot product that gives the cell, or null for a cell that is no such sum.
function sumFactors(input, { matrix, row: i, column: j }, { own, result, combined, h, queries, keys }) {
  const heads = input.heads || [{ wq: input.wq, wk: input.wk, wv: input.wv }];
  const x = result.xWithPe || input.x;
  const c = input.context ? result.contextWithPe || input.context : x;
  const d = (t) => `d${t + 1}`;
  const [query, key] = [queries[i], keys[i]];
  const source = input.context ? 'C' : 'X';
  if (matrix === 'q') return { a: x[i], b: columnOf(heads[h].wq, j), names: (t) => `X[${query}, ${d(t)}]·W_Q[${d(t)}, ${d(j)}]` };
  if (matrix === 'k') return { a: c[i], b: columnOf(heads[h].wk, j), names: (t) => `${source}[${key}, ${d(t)}]·W_K[${d(t)}, ${d(j)}]` };
  if (matrix === 'v') return { a: c[i], b: columnOf(heads[h].wv, j), names: (t) => `${source}[${key}, ${d(t)}]·W_V[${d(t)}, ${d(j)}]` };
  if (matrix === 'scores') return { a: own.q[i], b: own.k[j], names: (t) => `Q[${query}, ${d(t)}]·K[${keys[j]}, ${d(t)}]` };
  if (matrix === 'output' && combined) return { a: result.concat[i], b: columnOf(input.wo, j), names: (t) => `Concat[${query}, ${d(t)}]·W_O[${d(t)}, ${d(j)}]` };
  if (matrix === 'output') return { a: own.weights[i], b: columnOf(own.v, j), names: (t) => `Weights[${query}, ${keys[t]}]·V[${keys[t]}, ${d(j)}]` };
  return null;
}

// The cell computed from the previous step rounded to `places` decimals, or null.
function roundedEarly({ matrix, row: i, column: j }, { own, result, combined }, input, places) {
  const r = (v) => (Number.isFinite(v) ? roundTo(v, places) : v);
  const divisor = (input.scaleBySqrtDk === false ? 1 : Math.sqrt(own.q[0].length)) * (input.temperature ?? 1);
  if (matrix === 'scores') return dot(own.q[i].map(r), own.k[j].map(r));
  if (matrix === 'scaled') return Number.isFinite(own.scaled[i][j]) ? r(own.scores[i][j]) / divisor : null;
  if (matrix === 'weights') return softmaxRow(own.scaled[i].map(r))[j];
  if (matrix === 'output' && combined) return dot(result.concat[i].map(r), columnOf(input.wo, j).map(r)) + (input.bo ? input.bo[j] : 0);
  if (matrix === 'output') return dot(own.weights[i].map(r), columnOf(own.v, j).map(r));
  return null;
}

const SLIP_KEYS = { 'left out': 'checkSlipLeftOut', sign: 'checkSlipSign', added: 'checkSlipAdded' };
const MISTAKE_KEYS = {
  misprint: 'checkMisprint', transposed: 'checkTransposed', 'no-scaling': 'checkNoScaling', 'scaled-by-dk': 'checkScaledByDk',
  'column-softmax': 'checkColumnSoftmax', 'wrong-cell': 'checkWrongCell', 'term-slip': 'checkTermSlip', 'rounded-early': 'checkRoundedEarly', truncated: 'checkTruncated',
};

// The sentences that give the right value (the lead, the misprint's, the truncation's) have a
// withheld form: the same verdict and mistake, without the number still to find.
const WITHHELD_KEYS = { checkWrong: 'checkWrongWithheld', checkMisprint: 'checkMisprintWithheld', checkTruncated: 'checkTruncatedWithheld' };

function explain(found, base, withhold = false) {
  const keyOf = (key) => (withhold && WITHHELD_KEYS[key]) || key;
  return Object.fromEntries(LANGUAGES.map((lang) => {
    const t = (key, params) => translate(lang, keyOf(key), params);
    const lead = base.correct ? t('checkCorrect', base) : t('checkWrong', base);
    if (!found) return [lang, lead];
    const params = { ...base, ...found.params, wrong: base.wrongText };
    if (found.mistake === 'term-slip') params.slip = t(SLIP_KEYS[found.params.slip]);
    const key = found.params.rows ? 'checkTransposedRows' : MISTAKE_KEYS[found.mistake];
    return [lang, `${lead}${lang === 'zh' ? '' : ' '}${t(key, params)}`];
  }));
}

export function checkAnswer(engine, input, cell, typed, { tokens } = {}) {
  const precision = readTyped(typed);
  const ctx = cellContext(engine, input, cell, tokens);
  const expected = ctx.values[cell.row][cell.column];
  const base = { cell: ctx.label(cell.row, cell.column), value: format(precision.value, precision), expected: format(expected, precision), full: expected.toPrecision(8), places: precision.places };
  const correct = roundsTo(expected, precision.value, precision.ulp);
  let found = null;
  if (!correct) {
    const cut = Math.trunc(expected / precision.ulp) * precision.ulp;
    const all = Math.abs(cut - precision.value) <= precision.ulp * 1e-6 ? [{ mistake: 'truncated', value: cut, params: {} }] : [];
    all.push(...candidates(engine, input, cell, ctx).filter((c) => !roundsTo(expected, c.value, precision.ulp)));
    const matching = all.filter((c) => roundsTo(c.value, precision.value, precision.ulp));
    matching.sort((a, b) => MISTAKES.indexOf(a.mistake) - MISTAKES.indexOf(b.mistake) || Math.abs(a.value - precision.value) - Math.abs(b.value - precision.value));
    found = matching[0] || null;
  }
  const wrongText = found ? format(found.value, precision) : null;
  return {
    correct,
    expected,
    value: precision.value,
    precision: precision.ulp,
    mistake: found ? found.mistake : null,
    wrong: found ? found.value : null,
    explanation: explain(found, { ...base, correct, wrongText }),
    withheld: explain(found, { ...base, correct, wrongText }, true),
  };
}
