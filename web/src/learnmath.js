// "How it learns": the goals a head can be trained toward (learn.js). No DOM
// here; the loss and its gradients are the engine's.
//
// The loss is engine.train()'s 'weights' loss: the cross-entropy of each
// query row of the weights against the goal's row, averaged over all n_q
// rows, L = −(1/n_q) Σ_i Σ_j target[i][j] · log weights[i][j] (masked keys
// left out). A goal row of zeros is a free row: it adds nothing.

export const GOALS = ['previous', 'self', 'animal', 'custom'];
// The learning rates of the slider (Adam's step size).
export const LEARNING_RATES = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
export const DEFAULT_LR = 0.05;

const zeros = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(0));
const lower = (token) => token.toLowerCase();

// The goals that make sense for these tokens: previous and self need the
// keys to be the queries (no cross-attention); animal needs "it" and "animal".
export function availableGoals(tokens, keyTokens, cross) {
  const goals = [];
  if (!cross) goals.push('previous', 'self');
  if (tokens.some((t) => lower(t) === 'it') && keyTokens.some((t) => lower(t) === 'animal')) goals.push('animal');
  goals.push('custom');
  return goals;
}

// The goal as an n_q × n_k matrix of rows that each sum to 1 (or free rows
// of 0). previous: query i → key i − 1 (the first, with nothing before it,
// → itself); self: i → i; animal: every "it" → the first "animal", the
// other rows free; custom: `custom` itself.
export function goalTarget(goal, tokens, keyTokens, custom) {
  const n = tokens.length;
  const m = keyTokens.length;
  if (goal === 'custom') return custom.map((row) => [...row]);
  const target = zeros(n, m);
  if (goal === 'previous') for (let i = 0; i < n; i++) target[i][Math.max(0, i - 1)] = 1;
  if (goal === 'self') for (let i = 0; i < n; i++) target[i][i] = 1;
  if (goal === 'animal') {
    const animal = keyTokens.findIndex((t) => lower(t) === 'animal');
    tokens.forEach((t, i) => { if (lower(t) === 'it') target[i][animal] = 1; });
  }
  return target;
}

// Row r of a custom goal made a one-hot on column c.
export function pickCell(target, r, c) {
  return target.map((row, i) => (i === r ? row.map((_, j) => (j === c ? 1 : 0)) : [...row]));
}

// Row r of a custom goal with 1 added on column c, divided by its new sum:
// [1, 0] becomes [0.5, 0.5], then [0.25, 0.75]; a free row becomes one-hot.
export function addWeight(target, r, c) {
  return target.map((row, i) => {
    if (i !== r) return [...row];
    const next = row.map((v, j) => (j === c ? v + 1 : v));
    const total = next.reduce((a, b) => a + b, 0);
    return next.map((v) => v / total);
  });
}

// Row r of a custom goal made free (all 0).
export function clearRow(target, r) {
  return target.map((row, i) => (i === r ? row.map(() => 0) : [...row]));
}

// The divisor of the scores: √d_k when scaled, times the temperature.
export function scoreDivisor(dk, scale, temperature) {
  return (scale ? Math.sqrt(dk) : 1) * temperature;
}
