// The words and the arithmetic of the learn step (learn.js): why a run stopped,
// a gradient's number, and one cell of the backward pass with the user's numbers.

import { translate } from '../ui/i18n.js';
import { formatNumber, formatCompact } from '../ui/format.js';
import { dimLabel } from '../ui/labels.js';
import { STOP_RULE } from '../state/learnmath.js';

// The words under the status: why the run stopped and the verdict on the goal;
// before a run (X not trained), the reason the goal cannot be reached, when the inputs have one.
export function verdictText(t, lang, { stopped, steps, floor, reason, trainX, tokens, keyTokens }) {
  const join = (a, b) => (lang === 'zh' ? `${a}${b}` : `${a} ${b}`); // Chinese sentences run on without a space
  const why = () => {
    if (!reason) return '';
    // a token that is there twice is named with its place: the (1), the (4)
    const name = (list, i) => (list.filter((token) => token === list[i]).length > 1 ? `${list[i]} (${i + 1})` : list[i]);
    const names = { key: name(keyTokens, reason.key), p: name(keyTokens, reason.p), q: name(keyTokens, reason.q), query: name(tokens, reason.row) };
    const text = reason.p === reason.q ? t('learnReasonSame', names)
      : Math.abs(reason.a - 0.5) < 1e-9 ? t('learnReasonMean', names)
        : t('learnReasonMix', { ...names, a: formatCompact(reason.a, 3), b: formatCompact(1 - reason.a, 3) });
    return trainX ? text : join(text, t('learnReasonTrainX'));
  };
  const shown = { n: steps, floor: formatNumber(floor, 4), window: STOP_RULE.window, gap: STOP_RULE.gap };
  if (stopped === 'converged') return t('learnStopConverged', shown);
  if (stopped === 'cap') return t('learnStopCap', shown);
  if (stopped === 'plateau') return join(t('learnStopPlateau', shown), reason ? why() : t(trainX ? 'learnNoCauseX' : 'learnNoCause'));
  return trainX ? '' : why();
}

// A gradient's (or a change's) number: as the matrices write numbers, or, when
// it would read 0.0000 and is not 0, in scientific notation (1.2e-6).
export function magnitudeText(value, decimals) {
  return value !== 0 && Math.abs(value) < 0.5 * 10 ** -decimals ? value.toExponential(1) : formatNumber(value, decimals);
}

export const GRAD_NAMES = {
  dWeights: '∂L/∂Weights', dScaled: '∂L/∂Scaled', dScores: '∂L/∂Scores', dQ: '∂L/∂Q', dK: '∂L/∂K', dWq: '∂L/∂W_Q', dWk: '∂L/∂W_K',
};

export function firstSelection(target) {
  for (let r = 0; r < target.length; r++) {
    const c = target[r].indexOf(Math.max(...target[r]));
    if (target[r][c] > 0) return { key: 'dScaled', r, c };
  }
  return { key: 'dScaled', r: 0, c: 0 };
}

// The arithmetic of one cell of the backward pass, as lines of text: the
// formula, then the formula with the user's numbers. Cells are named as the
// forward pass names them (Q[爱, d2]: a token's row, a dimension's column).
export function explain({ key, r, c }, g) {
  const { f, s, lang, decimals, tokens, keyTokens } = g;
  const t = (k, params) => translate(lang, k, params);
  const fmt = (v) => magnitudeText(v, decimals);
  const factor = (v) => (v < 0 ? `(${fmt(v)})` : fmt(v)); // a negative factor in brackets
  const w = f.result.weights;
  const n = w.length;
  const sum = (terms) => (terms.length <= 8 ? terms.map(([a, b]) => `${factor(a)} × ${factor(b)}`).join(' + ') : t('backTerms', { n: terms.length }));
  const pair = `[${tokens[r]}, ${keyTokens[c]}]`; // a query's row, a key's column
  if (key === 'dWeights') {
    const target = s.target[r][c];
    if (target === 0 || (f.masked && f.masked[r][c])) return [`∂L/∂Weights${pair} = 0`, t('backFree')];
    return [`∂L/∂Weights${pair} = −target / (Weights${pair} · n_q)`, `= −${fmt(target)} / (${fmt(w[r][c])} × ${n}) = ${fmt(g.dWeights[r][c])}`];
  }
  if (key === 'dScaled') {
    const terms = w[r].map((v, k) => [v, g.dWeights[r][k]]);
    const dot = terms.reduce((a, [p, q]) => a + p * q, 0);
    const row = tokens[r];
    return [
      `∂L/∂Scaled${pair} = Weights${pair} · (∂L/∂Weights${pair} − Σ_k Weights[${row}, k] · ∂L/∂Weights[${row}, k])`,
      `Σ_k = ${sum(terms)} = ${fmt(dot)}`,
      `= ${fmt(w[r][c])} × (${fmt(g.dWeights[r][c])} − ${factor(dot)}) = ${fmt(g.dScaled[r][c])}`,
      t('backJacobian'),
    ];
  }
  if (key === 'dScores') {
    return [`∂L/∂Scores${pair} = ∂L/∂Scaled${pair} ÷ ${t('backDivisor')}`, `= ${fmt(g.dScaled[r][c])} ÷ ${fmt(g.divisor)} = ${fmt(g.dScores[r][c])}`];
  }
  const dim = dimLabel(c);
  if (key === 'dQ') {
    const terms = f.result.k.map((row, j) => [g.dScores[r][j], row[c]]);
    return [`∂L/∂Q[${tokens[r]}, ${dim}] = Σ_j ∂L/∂Scores[${tokens[r]}, j] · K[j, ${dim}]`, `= ${sum(terms)} = ${fmt(g.dQ[r][c])}`];
  }
  if (key === 'dK') {
    const terms = f.result.q.map((row, i) => [g.dScores[i][r], row[c]]);
    return [`∂L/∂K[${keyTokens[r]}, ${dim}] = Σ_i ∂L/∂Scores[i, ${keyTokens[r]}] · Q[i, ${dim}]`, `= ${sum(terms)} = ${fmt(g.dK[r][c])}`];
  }
  const [x, d, name, dname, source] = key === 'dWq' ? [g.xq, g.dQ, 'W_Q', 'Q', g.qName] : [g.xk, g.dK, 'W_K', 'K', g.kName];
  const terms = x.map((row, k) => [row[r], d[k][c]]);
  return [`∂L/∂${name}[${dimLabel(r)}, ${dim}] = Σ_t ${source}[t, ${dimLabel(r)}] · ∂L/∂${dname}[t, ${dim}]`, `= ${sum(terms)} = ${fmt(g[key][r][c])}`, t('backUpdate')];
}
