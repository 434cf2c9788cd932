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

// ---- when a run stops (learn.js) ----

// The least loss the goal allows: its rows' entropy, −(1/n_q) Σ_i Σ_j t_ij log t_ij
// (0 for one-hot rows; the weights can only approach it).
export function goalFloor(target) {
  let sum = 0;
  for (const row of target) for (const t of row) if (t > 0) sum -= t * Math.log(t);
  return sum / target.length;
}

// The stop rule: converged when the loss is within `gap` of the goal's floor;
// a plateau when the best loss of the last `window` steps is less than `gain`
// of the distance left (best − floor) below the best loss before them; the
// cap after `maxSteps`. Measured with engine.train() (tutorial, Adam at 0.05):
// "previous word" with X trained too is within 1e-3 at step 38; with W_Q and
// W_K alone the loss creeps toward ln 3 / 3 = 0.3662 and stops as a plateau
// near step 100; at a rate of 0.001 the loss still falls by ~5 % per window.
export const STOP_RULE = { gap: 1e-3, window: 50, gain: 0.01, maxSteps: 3000 };

// Why a run of `losses` (losses[0] the start, one a step after) stops now:
// 'converged', 'plateau', 'cap', or null (go on).
export function stopReason(losses, floor, rule = STOP_RULE) {
  const steps = losses.length - 1;
  const best = (from, to) => losses.slice(from, to).reduce((a, v) => (Number.isFinite(v) && v < a ? v : a), Infinity);
  const now = best(0, steps + 1);
  if (now - floor <= rule.gap) return 'converged';
  if (steps >= rule.window) {
    const before = best(0, steps + 1 - rule.window);
    const recent = best(steps + 1 - rule.window, steps + 1);
    if (before - recent < rule.gain * (recent - floor)) return 'plateau';
  }
  return steps >= rule.maxSteps ? 'cap' : null;
}

// A reason in the inputs why no W_Q, W_K can reach the goal: a key whose
// vector is a mix a·k_p + (1 − a)·k_q (0 ≤ a ≤ 1; p = q: the same vector) of
// others. Its score in every row is then the same mix of theirs, so its
// weight is at most a·w_p + (1 − a)·w_q (exp is convex) — never above both.
// Returns { key, p, q, a, row } for the first goal row that asks more of the
// key than that (t_ij > a·t_ip + (1 − a)·t_iq, masked keys left out), or null.
// keys: (n_k, d) the key side's vectors (with positions added, when they are).
export function unreachableReason(keys, target, masked = null) {
  const m = keys.length;
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const same = (a, b) => keys[a].every((v, d) => close(v, keys[b][d]));
  const open = (i, ...js) => !(masked && js.some((j) => masked[i][j]));
  // the a in (0, 1) with keys[j] = a·keys[p] + (1 − a)·keys[q], or null
  const mixOf = (j, p, q) => {
    const u = keys[p].map((v, d) => v - keys[q][d]);
    const w = keys[j].map((v, d) => v - keys[q][d]);
    const uu = u.reduce((s, v) => s + v * v, 0);
    if (uu === 0) return null;
    const a = u.reduce((s, v, d) => s + v * w[d], 0) / uu;
    return a > 0 && a < 1 && w.every((v, d) => close(v, a * u[d])) ? a : null;
  };
  const asks = (j, p, q, a) => target.findIndex((t, i) => open(i, j, p, q) && t[j] > a * t[p] + (1 - a) * t[q] + 1e-12);
  for (let j = 0; j < m; j++) {
    for (let p = 0; p < m; p++) {
      if (p === j) continue;
      if (same(j, p)) {
        const row = asks(j, p, p, 1);
        if (row >= 0) return { key: j, p, q: p, a: 1, row };
        continue;
      }
      for (let q = p + 1; q < m; q++) {
        if (q === j || same(j, q)) continue;
        const a = mixOf(j, p, q);
        const row = a === null ? -1 : asks(j, p, q, a);
        if (row >= 0) return { key: j, p, q, a, row };
      }
    }
  }
  return null;
}
