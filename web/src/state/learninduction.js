// "How it learns", from scratch: the induction model (state/induction.js, the recipe the shipped
// model was trained by) trained live in the engine's worker (views/learninduction.js). No DOM
// here: the run's settings, its stop rule and the figures it shows.
import { INDUCTION, ROLE_MIN } from './induction.js';

// chunk: steps a trainModel call (the page stays free meanwhile; Pause takes effect at the end
// of the chunk under way). Each chunk passes on the previous one's optimizer state
// (chunkOptions), so Adam's moments and step count carry over and the live run is, step for
// step and bit for bit, the script's one call of INDUCTION.phases[0] (scripts/train-models.mjs,
// the shipped model), whatever the chunk.
// The stop rule reads the mean loss of the last `window` steps ("the loss" below), measured after
// each chunk from step `window` · 2 on: converged once a head reaches the goal (ROLE_MIN) and the
// loss fell by less than `gain` (a share of it) over the last `window` steps; a plateau when no
// head has reached it and the loss fell by less than `gain` over the last `patience` steps; the cap
// after `maxSteps`. Measured (the engine under node, this run as the page makes it): the loss falls
// 2.7–3.8 % a 1 000 steps before the phase change (3.21 at step 1 000 → 2.90 at 4 000, where a
// head first reaches the goal: prefix matching 0.54), 12 % over steps 4 000–5 000, 2 % over
// 6 000–7 000, and under 1 % by step 7 400 (2.33), where the run stops as converged.
export const INDUCTION_RUN = {
  chunk: 200,
  learningRate: INDUCTION.phases[0].learningRate,
  window: 1000,
  patience: 2000,
  gain: 0.01,
  maxSteps: 20000,
  curveEvery: 50, // the curve draws the mean loss of each 50 steps (one sequence a step is noisy)
};

// trainModel's options for one chunk of the live run: its batches, Adam at the script's learning
// rate, and `state`, the previous chunk's result.state (undefined for the first).
export const chunkOptions = (batches, state) => ({ batches, optimizer: 'adam', learningRate: INDUCTION_RUN.learningRate, ...(state === undefined ? {} : { state }) });

// The mean of losses[from, to).
function mean(losses, from, to) {
  let sum = 0;
  for (let i = from; i < to; i++) sum += losses[i];
  return sum / (to - from);
}

// The mean loss of the `window` steps before step `at`.
export const recentLoss = (losses, at = losses.length, window = INDUCTION_RUN.window) => mean(losses, Math.max(0, at - window), at);

// The head with the highest prefix-matching score: { layer, head, induction, previous }.
export function bestHead(scores) {
  let best = null;
  scores.forEach((layer, l) => layer.forEach((s, h) => {
    if (!best || s.induction > best.induction) best = { layer: l, head: h, ...s };
  }));
  return best;
}

export const goalReached = (scores) => bestHead(scores).induction >= ROLE_MIN;

// Why a run with these `losses` (one a step) and the latest head `scores` stops now:
// 'converged', 'plateau', 'cap' or null (go on).
export function inductionStop(losses, scores, rule = INDUCTION_RUN) {
  const steps = losses.length;
  if (steps >= rule.maxSteps) return 'cap';
  if (steps < 2 * rule.window) return null;
  const now = recentLoss(losses, steps, rule.window);
  const fell = (back) => recentLoss(losses, steps - back, rule.window) - now;
  if (goalReached(scores)) return fell(rule.window) < rule.gain * now ? 'converged' : null;
  return steps >= rule.window + rule.patience && fell(rule.patience) < rule.gain * now ? 'plateau' : null;
}

// The curve's points: the mean loss of each `every` steps, [{ step (the last of them, counted
// from 1), loss }].
export function curvePoints(losses, every = INDUCTION_RUN.curveEvery) {
  const points = [];
  for (let at = every; at <= losses.length; at += every) points.push({ step: at, loss: mean(losses, at - every, at) });
  return points;
}

// The model with every parameter (a matrix's rows, a vector) a view into one Float64Array, for
// the worker: the structured clone of its ~10⁴ numbers as arrays of arrays took ~6 ms a message,
// one Float64Array ~0.6 ms, and the worker's runModel read it ~3× faster (Chromium here: 48 held-out
// runs 743 → 198 ms). The same numbers, bit for bit.
const PARAMETERS = ['embed', 'positions', 'layers', 'finalNorm', 'unembed', 'unembedBias'];
const isVector = (v) => (Array.isArray(v) || ArrayBuffer.isView(v)) && typeof v[0] === 'number';
export function packedModel(model) {
  let total = 0;
  const count = (v) => {
    if (isVector(v)) total += v.length;
    else if (Array.isArray(v)) v.forEach(count);
    else if (v && typeof v === 'object') Object.values(v).forEach(count);
  };
  const fields = PARAMETERS.filter((f) => f in model);
  for (const f of fields) count(model[f]);
  const data = new Float64Array(total);
  let at = 0;
  const put = (v) => {
    if (isVector(v)) {
      const out = data.subarray(at, at + v.length);
      out.set(v);
      at += v.length;
      return out;
    }
    if (Array.isArray(v)) return v.map(put);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, put(x)]));
    return v; // 'tied', 'sinusoidal'
  };
  const out = { ...model };
  for (const f of fields) out[f] = put(model[f]);
  return out;
}
