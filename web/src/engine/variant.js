// Between the page's inputs and the engine: the argument of compute() for the
// chosen variant, the result in one shape whatever the variant, and what
// changed between two settings (for the before/after comparison).

import { headField, headBiases } from '../state/model.js';
import { ENGINE_OPTIONS, COMPARED, isDefault } from '../state/options.js';
import { flatData, rowViews } from './rows.js';

const HEAD_STEPS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output', 'bias'];

// matrices: by field (readModel); options: readModel's parsed options.
// One head without W_O is the single-head call, exactly as without options. Biases (one-row
// matrices 'bq', 'bk', 'bv', 'bo') go in where matrices has them and options.biases is on.
export function engineInput(matrices, options) {
  const input = { x: matrices.x };
  const biases = (h) => (options.biases ? headBiases(matrices, h) : {});
  if (options.heads === 1 && !options.usesWo) {
    Object.assign(input, { wq: matrices.wq, wk: matrices.wk, wv: matrices.wv }, biases(0));
  } else {
    input.heads = Array.from({ length: options.heads }, (_, h) => ({
      wq: matrices[headField('wq', h)], wk: matrices[headField('wk', h)], wv: matrices[headField('wv', h)], ...biases(h),
    }));
    if (options.usesWo) input.wo = matrices.wo;
    if (options.usesWo && options.biases && matrices.bo) input.bo = matrices.bo[0];
  }
  if (options.cross) input.context = matrices.c;
  // each engine option under its own name, left out at its default
  for (const { key } of ENGINE_OPTIONS) if (!isDefault(key, options[key])) input[key] = options[key];
  return input;
}

// {heads: [{q, k, v, scores, scaled, weights, output, bias?}], concat, output,
//  masked, fullyMasked, pe, xWithPe, contextPe, contextWithPe}; absent parts null.
export function normalizeResult(result) {
  // (bias: ALiBi's, with the option only)
  const heads = result.heads || [Object.fromEntries(HEAD_STEPS.filter((key) => result[key] !== undefined).map((key) => [key, result[key]]))];
  const pick = (key) => result[key] || null;
  return {
    heads, concat: pick('concat'), output: result.output, masked: pick('masked'), fullyMasked: pick('fullyMasked'),
    pe: pick('pe'), xWithPe: pick('xWithPe'), contextPe: pick('contextPe'), contextWithPe: pick('contextWithPe'),
  };
}

// [{option, before, after}] for each compared option (options.js) that differs, in the
// pipeline's order.
export function optionChanges(before, after) {
  const changes = [];
  for (const option of COMPARED) {
    const a = before[option];
    const b = after[option];
    const same = Array.isArray(a) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b;
    if (!same) changes.push({ option, before: a, after: b });
  }
  return changes;
}

// after − before, element by element, as rows of views of one Float64Array
// (rows.js): one flat pass (at n = 4096 rows of row.map took seconds, and the
// heatmap then copied them again). The same pair gives the same matrix back,
// so its heatmap is painted once, not on every render.
const differences = new WeakMap(); // after → { before, rows }
export function difference(before, after) {
  const kept = differences.get(after);
  if (kept && kept.before === before) return kept.rows;
  const rows = after.length;
  const cols = rows > 0 ? after[0].length : 0;
  const a = flatData(after);
  const b = flatData(before);
  const data = new Float64Array(rows * cols);
  for (let k = 0; k < data.length; k++) data[k] = a[k] - b[k];
  const out = rowViews({ rows, cols, data });
  differences.set(after, { before, rows: out });
  return out;
}

// PE[pos][2i] = sin(pos / 10000^(2i/d)), PE[pos][2i+1] = cos(the same): the
// parts of one entry, for showing the arithmetic.
export function peTerms(pos, column, dModel) {
  const twoI = column - (column % 2);
  const denominator = 10000 ** (twoI / dModel);
  const angle = pos / denominator;
  const fn = column % 2 === 0 ? 'sin' : 'cos';
  return { fn, twoI, denominator, angle, value: fn === 'sin' ? Math.sin(angle) : Math.cos(angle) };
}

// Why query i may not look at key j: 'causal', 'padding', 'both' or null.
export function maskReason(i, j, { causal, keyPadding }) {
  const late = causal && j > i;
  const padded = keyPadding[j] === true;
  if (late && padded) return 'both';
  if (late) return 'causal';
  return padded ? 'padding' : null;
}
