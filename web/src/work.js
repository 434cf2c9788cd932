// "Show the work": the arithmetic behind one cell of a result, with the real
// numbers, and the operand cells that feed it (to highlight).
// ctx = {lang, decimals, tokens, inputs: {x, wq, wk, wv}, result}.
// Returns {lines: [text], marks: [{m, r?, c?}]}: a mark with only r is a
// whole row, with only c a whole column, with both a single cell.

import { translate } from './i18n.js';
import { formatCompact } from './format.js';

export const EXPLAINABLE = ['Q', 'K', 'V', 'Scores', 'Scaled', 'Weights', 'Output'];

export const dimLabel = (c) => `d${c + 1}`;

// Long sums keep their first and last terms: d and n go up to 64 and 512.
const MAX_TERMS = 12;
function joinTerms(terms, separator) {
  if (terms.length <= MAX_TERMS) return terms.join(separator);
  return [...terms.slice(0, 5), `… (${terms.length})`, ...terms.slice(-2)].join(separator);
}

function number(value, decimals) {
  const text = formatCompact(value, decimals);
  return text.startsWith('-') ? `(${text})` : text;
}

function dotProduct(a, b, decimals) {
  return joinTerms(a.map((v, i) => `${number(v, decimals)}×${number(b[i], decimals)}`), ' + ');
}

const column = (matrix, c) => matrix.map((row) => row[c]);

const PROJECTIONS = {
  Q: { key: 'q', weights: 'wq', weightsName: 'W_Q' },
  K: { key: 'k', weights: 'wk', weightsName: 'W_K' },
  V: { key: 'v', weights: 'wv', weightsName: 'W_V' },
};

export function explainCell(name, r, c, ctx) {
  const { lang, decimals, tokens, inputs, result } = ctx;
  const t = (key, params) => translate(lang, key, params);
  const f = (v) => formatCompact(v, decimals);

  if (PROJECTIONS[name]) {
    const { key, weights, weightsName } = PROJECTIONS[name];
    const value = result[key][r][c];
    return {
      lines: [
        `${name}[${tokens[r]}, ${dimLabel(c)}] = ${dotProduct(inputs.x[r], column(inputs[weights], c), decimals)} = ${f(value)}`,
        t('workProjection', { token: tokens[r], col: dimLabel(c), weights: weightsName }),
      ],
      marks: [{ m: 'X', r }, { m: weightsName, c }],
    };
  }
  if (name === 'Scores') {
    return {
      lines: [
        `Scores[${tokens[r]}, ${tokens[c]}] = ${dotProduct(result.q[r], result.k[c], decimals)} = ${f(result.scores[r][c])}`,
        t('workScores', { query: tokens[r], key: tokens[c] }),
      ],
      marks: [{ m: 'Q', r }, { m: 'K', r: c }],
    };
  }
  if (name === 'Scaled') {
    const dk = result.q[0].length;
    return {
      lines: [
        `Scaled[${tokens[r]}, ${tokens[c]}] = ${number(result.scores[r][c], decimals)} / √${dk} = ${number(result.scores[r][c], decimals)} / ${f(Math.sqrt(dk))} = ${f(result.scaled[r][c])}`,
        t('workScaled', { dk }),
      ],
      marks: [{ m: 'Scores', r, c }],
    };
  }
  if (name === 'Weights') {
    const row = result.scaled[r];
    const max = Math.max(...row);
    const argmax = row.indexOf(max);
    const exps = row.map((s) => Math.exp(s - max));
    const total = exps.reduce((a, b) => a + b, 0);
    const m = f(max);
    const expTerm = (s) => `exp(${f(s)} − ${m})`;
    return {
      lines: [
        `Weights[${tokens[r]}, ${tokens[c]}] = exp(s − max) / Σ exp(s − max)`,
        t('workMax', { token: tokens[r], max: m, argmax: tokens[argmax] }),
        `= ${expTerm(row[c])} / (${joinTerms(row.map(expTerm), ' + ')})`,
        `= ${f(exps[c])} / (${joinTerms(exps.map(f), ' + ')})`,
        `= ${f(exps[c])} / ${f(total)} = ${f(result.weights[r][c])}`,
        t('workWeights', { query: tokens[r], key: tokens[c] }),
      ],
      marks: [{ m: 'Scaled', r }, { m: 'Scaled', r, c: argmax, kind: 'max' }],
    };
  }
  if (name === 'Output') {
    return {
      lines: [
        `Output[${tokens[r]}, ${dimLabel(c)}] = ${dotProduct(result.weights[r], column(result.v, c), decimals)} = ${f(result.output[r][c])}`,
        t('workOutput', { token: tokens[r], col: dimLabel(c) }),
      ],
      marks: [{ m: 'Weights', r }, { m: 'V', c }],
    };
  }
  throw new Error(`No arithmetic for ${name}`);
}
