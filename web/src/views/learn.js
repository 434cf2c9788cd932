// "How it learns": the step after the output. Pick a goal for the current
// head's attention weights (a preset pattern, or one painted on a grid), then
// train W_Q and W_K (and X, if asked) toward it with engine.train() (Adam), a
// at a pace a person can follow (15 steps a second at first, faster as the
// run goes on), and watch the loss, the weights, the matrices and their
// change since the start. A run stops by itself (learnmath.js stopReason):
// the goal reached, the loss on a plateau (with the reason in the inputs
// when there is one: unreachableReason), or the cap of steps. Below: the backward pass of the
// loss with the user's numbers, cell by cell: the engine's gradients
// (engine.backward(input, { loss: 'weights', target }), the loss train()
// minimises), each with the arithmetic that makes it.
//
// createLearner(host) keeps one training session across renders; the step
// asks it for its panel with learner.view(ctx) (steps.js). The host (the page
// or the element) gives:
//   engine()            the loaded engine (synchronous calls), or null
//   commit(weights)     { head, x?, c?, wq, wk, bq?, bk? }: the trained matrices (and the biases
//                       trained with them, where the head has them) become the inputs
//   setSettings(s)      { goal, target?, lr, trainX }: kept in the state (state/schema.js `learn`)
//   loadLearned(name)   open a learned preset (learned.js)
// ctx.learnSettings is the state's `learn` field (or null).

import { translate } from '../ui/i18n.js';
import { formatNumber } from '../ui/format.js';
import { largestMagnitude, VIRIDIS_STOPS, DIVERGING_STOPS } from '../ui/color.js';
import { el, svg, button, flowArrow } from '../ui/dom.js';
import { createMatrixView } from './view.js';
import { createLinesView, updateLinesView } from './lines.js';
import { dimLabels } from '../ui/labels.js';
import { engineInput } from '../engine/variant.js';
import { sameNumbers } from '../state/model.js';
import {
  availableGoals, goalTarget, scoreDivisor, LEARNING_RATES, DEFAULT_LR, goalFloor, stopReason, unreachableReason,
} from '../state/learnmath.js';
import { LEARNED_NAMES, learnedOf } from '../state/learned.js';
import { revealWork } from './steps.js';
import { legend } from './extras.js';
import { goalGrid } from './goalgrid.js';
import { drawCurve, CHART_VIEWBOX } from './learncurve.js';
import { createInductionTrainer } from './learninduction.js';
import { verdictText, magnitudeText, GRAD_NAMES, firstSelection, explain } from './learntext.js';

// Training here is for inputs a person paints a goal for: up to this many
// tokens a side (the goal grid has one cell per query and key).
export const LEARN_LIMIT = 24;
// The pace: PACE_START steps a second, PACE_GROWTH more for each step the run has
// taken (the first 60 steps take ~2.6 s, 3000 ~16 s), PACE_FRAME_MS of time at most a frame.
const PACE_START = 15;
const PACE_GROWTH = 0.25;
const PACE_FRAME_MS = 100;
const REDUCED_STEPS = 30; // with reduced motion: this many steps per redraw ...
const REDUCED_MS = 500; // ... and a redraw at most this often
const LINES_EVERY = 12; // frames between redraws of the lines view while training

const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

export function defaultSettings(goals) {
  return { goal: goals[0], lr: DEFAULT_LR, trainX: false };
}

export function createLearner(host) {
  let ctx = null;
  let session = null; // { sig (sessionSig), start, input, losses, adam, steps, runFrom, stopped }
  let running = false;
  let frames = 0;
  let lastDraw = 0;
  let lastFrame = 0;
  let budget = 0; // the steps the pace owes, a fraction of one between frames
  let error = null; // a descriptor of the engine's refusal of the last step
  let selection = null; // the cell of the backward pass explained { name, r, c }
  let panel = null; // { sig (layoutSig), node, refs } rebuilt when the layout changes
  let tooMany = null; // the note shown instead beyond LEARN_LIMIT tokens
  const induction = createInductionTrainer(host); // the model trained from scratch, below (its own session)

  // ---- the session: what is trained, from where ----

  // The panel's layout; the temperature is only in its numbers (a dragged slider
  // updates the panel in place), and in the session's input (sessionSig).
  const layoutSig = (c) => JSON.stringify([c.lang, c.decimals, c.tokens, c.keyTokens, { ...c.options, temperature: null }, c.head,
    c.inputs.wq.length, c.inputs.wq[0].length, c.inputs.wk.length]);
  const sessionSig = (c) => JSON.stringify([layoutSig(c), c.options.temperature]);
  // a head's b_Q and b_K train with W_Q and W_K (engine.train()); b_V stays
  const biasesOf = (from) => Object.fromEntries(['bq', 'bk'].filter((b) => from[b]).map((b) => [b, from[b]]));
  const trainedOf = (c) => ({ x: c.inputs.x, c: c.inputs.c, wq: c.inputs.wq, wk: c.inputs.wk, ...biasesOf(c.inputs) });
  const sameBias = (a, b) => (a === undefined || b === undefined ? a === b : sameNumbers([a], [b]));
  const sameWeights = (a, b) => ['x', 'wq', 'wk'].every((f) => sameNumbers(a[f], b[f])) && (!a.c || sameNumbers(a.c, b.c))
    && ['bq', 'bk'].every((f) => sameBias(a[f], b[f]));

  // The one-head input of the head on screen (its weights depend on no other head or W_O), with
  // its biases (one-row matrices for engineInput).
  const inputOf = (c, w) => engineInput(
    { x: w.x, c: w.c, wq: w.wq, wk: w.wk, wv: c.inputs.wv, ...Object.fromEntries(Object.entries({ ...biasesOf(w), ...(c.inputs.bv ? { bv: c.inputs.bv } : {}) }).map(([b, v]) => [b, [v]])) },
    { ...c.options, heads: 1, usesWo: false },
  );
  const current = () => {
    const input = session.input;
    return { x: input.x, c: input.context, wq: input.wq, wk: input.wk, ...biasesOf(input) };
  };

  function settings() {
    const goals = availableGoals(ctx.tokens, ctx.keyTokens, ctx.options.cross);
    const s = { ...defaultSettings(goals), ...(ctx.learnSettings || {}) };
    const n = ctx.tokens.length;
    const m = ctx.keyTokens.length;
    const fits = Array.isArray(s.target) && s.target.length === n && s.target.every((row) => row.length === m);
    if (!goals.includes(s.goal)) s.goal = goals[0];
    const custom = s.goal === 'custom' && fits ? s.target : Array.from({ length: n }, () => new Array(m).fill(0));
    return { ...s, target: goalTarget(s.goal, ctx.tokens, ctx.keyTokens, custom), goals };
  }

  function sync(next) {
    ctx = next;
    const sig = sessionSig(next);
    if (session && session.sig === sig && sameWeights(current(), trainedOf(next))) return;
    stop();
    const start = trainedOf(next);
    session = { sig, start, input: inputOf(next, start), losses: [], adam: null, steps: 0, runFrom: 0, stopped: null };
    error = null;
    session.losses.push(analyse().loss);
  }

  const trainList = (s) => ['wq', 'wk', ...(s.trainX ? (ctx.options.cross ? ['x', 'context'] : ['x']) : [])];

  // `steps` more steps from where the session is; false (and the error shown) when the engine refuses.
  // A run (Train) takes them one at a time, so that it stops on the very step its rule says (runSteps).
  function trainSteps(steps) {
    const engine = host.engine();
    const s = settings();
    if (!engine || !s.target.some((row) => row.some((v) => v > 0))) return false;
    try {
      const r = engine.train(session.input, {
        loss: 'weights', target: s.target, train: trainList(s), optimizer: 'adam', learningRate: s.lr, steps, state: session.adam || undefined,
      });
      session.input = r.input;
      session.adam = r.state;
      session.losses.push(...r.losses.slice(1));
      session.steps += steps;
      error = null;
      return true;
    } catch (e) {
      error = { key: e.code === 'overflow' ? 'learnOverflow' : 'errEngine', params: { message: e.message, name: e.operand } };
      return false;
    }
  }

  const commit = () => host.commit({ head: ctx.head, ...current() });

  // Up to `steps` steps of the run, one at a time; false when the run is over
  // (session.stopped says why: 'converged', 'plateau', 'cap'; null after a refusal).
  function runSteps(steps) {
    const floor = goalFloor(settings().target);
    for (let k = 0; k < steps; k++) {
      if (!trainSteps(1)) return false;
      const reason = stopReason(session.losses.slice(session.runFrom), floor);
      if (reason) {
        session.stopped = reason;
        return false;
      }
    }
    return true;
  }

  // ---- the run ----

  function frame() {
    if (!running) return;
    if (!panel || !panel.node.isConnected) {
      pause();
      return;
    }
    const reduced = reducedMotion();
    const now = performance.now();
    if (reduced && now - lastDraw < REDUCED_MS) {
      requestAnimationFrame(frame);
      return;
    }
    budget += (Math.min(now - lastFrame, PACE_FRAME_MS) / 1000) * (PACE_START + PACE_GROWTH * (session.steps - session.runFrom));
    lastFrame = now;
    const steps = reduced ? REDUCED_STEPS : Math.floor(budget);
    if (steps === 0) {
      requestAnimationFrame(frame);
      return;
    }
    budget -= reduced ? 0 : steps;
    const ok = runSteps(steps);
    frames++;
    lastDraw = now;
    if (!ok) {
      pause();
      return;
    }
    draw({ lines: frames % LINES_EVERY === 0 });
    requestAnimationFrame(frame);
  }

  function play() {
    if (running || !host.engine()) return;
    running = true;
    session.runFrom = session.losses.length - 1; // the stop rule reads this run's losses
    session.stopped = null;
    budget = 0;
    lastFrame = performance.now();
    draw({});
    requestAnimationFrame(frame);
  }

  // Stops without committing (a new model replaced the one trained).
  function stop() {
    running = false;
  }

  // Stops and keeps the weights reached: they become the inputs (the hash, undo).
  function pause() {
    if (!running) return;
    running = false;
    draw({ lines: true });
    commit();
  }

  function stepOnce() {
    if (running) return;
    session.stopped = null;
    trainSteps(1);
    draw({ lines: true });
    commit();
  }

  function reset() {
    running = false;
    const start = session.start;
    session = { sig: session.sig, start, input: inputOf(ctx, start), losses: [], adam: null, steps: 0, runFrom: 0, stopped: null };
    error = null;
    session.losses.push(analyse().loss);
    host.commit({ head: ctx.head, ...start });
    draw({ lines: true });
  }

  // A new goal, rate or "also train X": the weights stay, the loss curve and Adam's moments start again.
  function changeSettings(change) {
    const s = settings();
    const next = { goal: s.goal, lr: s.lr, trainX: s.trainX, ...change };
    if (next.goal === 'custom') next.target = change.target || s.target;
    else delete next.target;
    host.setSettings(next);
    ctx = { ...ctx, learnSettings: next };
    session.stopped = null; // the verdict was of the settings before
    if ('goal' in change || 'target' in change || 'trainX' in change) {
      session.adam = null;
      session.losses = [analyse().loss];
      session.steps = 0;
      session.runFrom = 0;
      session.stopped = null;
    }
    draw({});
  }

  // ---- drawing ----

  // The forward pass of the session's weights, and from the engine the loss of
  // the goal and its gradients { dWeights, dScaled, dScores, dQ, dK, dWq, dWk }
  // (null, and the loss NaN, without an engine or when it refuses: then
  // `failure` describes why, for the error line).
  function analyse() {
    const engine = host.engine();
    if (!engine) {
      const { full } = ctx;
      return { result: ctx.result, masked: full.masked, xWithPe: full.xWithPe, contextWithPe: full.contextWithPe, loss: NaN, grads: null, failure: null };
    }
    const r = engine.compute(session.input);
    const out = { result: r, masked: r.masked || null, xWithPe: r.xWithPe, contextWithPe: r.contextWithPe, loss: NaN, grads: null, failure: null };
    try {
      const g = engine.backward(session.input, { loss: 'weights', target: settings().target });
      out.loss = g.loss;
      out.grads = {
        dWeights: g.result.weights, dScaled: g.result.scaled, dScores: g.result.scores, dQ: g.result.q, dK: g.result.k, dWq: g.input.wq, dWk: g.input.wk,
      };
    } catch (e) {
      out.failure = { key: 'errEngine', params: { message: e.message } };
    }
    return out;
  }

  function build() {
    const { lang } = ctx;
    const t = (key, params) => translate(lang, key, params);
    const node = el('div', 'learn');
    const refs = {};

    // learned presets
    const presets = el('div', 'learn-presets');
    presets.append(el('span', 'learn-label', t('learnedLabel')));
    for (const name of LEARNED_NAMES) {
      const b = button(t(`learnedButton_${name}`), () => host.loadLearned(name), 'button-small');
      b.dataset.learned = name;
      presets.append(b);
    }
    refs.learnedNote = el('p', 'step-note learned-note');
    node.append(presets, refs.learnedNote);

    // the goal
    const goalBox = el('fieldset', 'learn-goal');
    goalBox.append(el('legend', '', t('learnGoal')));
    refs.goalButtons = {};
    const goalChoices = el('div', 'learn-goals');
    goalChoices.setAttribute('role', 'radiogroup');
    goalChoices.setAttribute('aria-label', t('learnGoal'));
    for (const goal of availableGoals(ctx.tokens, ctx.keyTokens, ctx.options.cross)) {
      const b = button(t(`learnGoal_${goal}`), () => changeSettings({ goal }), 'button-small learn-goal-choice');
      b.dataset.goal = goal;
      b.setAttribute('role', 'radio');
      refs.goalButtons[goal] = b;
      goalChoices.append(b);
    }
    goalBox.append(goalChoices, el('p', 'hint', t('learnGridHint')));
    const grids = el('div', 'learn-grids');
    refs.grid = goalGrid(ctx, refs, { settings, changeSettings });
    refs.weights = createMatrixView({
      lang, name: 'Weights', label: t('learnWeightsNow'), data: ctx.result.weights, rowLabels: ctx.tokens, colLabels: ctx.keyTokens,
      corner: t('queryKeyCorner'), kind: 'weights', masked: ctx.full.masked, decimals: ctx.decimals, interactive: false,
    });
    grids.append(refs.grid.element, flowArrow(grids), refs.weights.element);
    goalBox.append(grids, legend(lang, VIRIDIS_STOPS, ['0', '1'], 'legendWeights'));
    node.append(goalBox);

    // the controls
    const controls = el('div', 'learn-controls');
    refs.play = button('', () => (running ? pause() : play()), 'learn-play');
    refs.step = button(t('learnStep'), stepOnce, 'learn-step');
    refs.reset = button(t('learnReset'), reset, 'learn-reset');
    const rate = el('label', 'learn-rate');
    refs.rate = el('input');
    Object.assign(refs.rate, { type: 'range', min: '0', max: String(LEARNING_RATES.length - 1), step: '1' });
    refs.rate.addEventListener('input', () => changeSettings({ lr: LEARNING_RATES[Number(refs.rate.value)] }));
    refs.rateValue = el('output', 'learn-rate-value');
    rate.append(el('span', '', t('learnRate')), refs.rate, refs.rateValue);
    const trainX = el('label', 'learn-train-x');
    refs.trainX = el('input');
    refs.trainX.type = 'checkbox';
    refs.trainX.addEventListener('change', () => changeSettings({ trainX: refs.trainX.checked }));
    trainX.append(refs.trainX, el('span', '', t('learnTrainX')));
    controls.append(refs.play, refs.step, refs.reset, rate, trainX);
    refs.status = el('p', 'learn-status');
    refs.status.setAttribute('aria-live', 'polite');
    refs.verdict = el('p', 'learn-verdict');
    refs.verdict.setAttribute('aria-live', 'polite');
    refs.error = el('p', 'learn-error');
    refs.error.setAttribute('role', 'alert');
    node.append(controls, el('p', 'hint', t('learnTrainXHint')), refs.status, refs.verdict, refs.error);

    // the loss curve
    refs.curve = svg('svg', { viewBox: CHART_VIEWBOX, class: 'learn-curve', role: 'img', 'aria-label': t('learnCurve') });
    const curveBox = el('figure', 'learn-curve-box');
    curveBox.append(refs.curve, el('figcaption', 'hint', t('learnCurveCaption')));
    node.append(curveBox);

    // W_Q, W_K and their change since the start
    const mats = el('div', 'step-body learn-matrices');
    refs.mats = {};
    for (const [name, key] of [['W_Q', 'wq'], ['W_K', 'wk']]) {
      const data = ctx.inputs[key];
      const group = el('div', 'step-group');
      const view = (nm, label) => createMatrixView({
        lang, name: nm, label, data, rowLabels: dimLabels(data.length), colLabels: dimLabels(data[0].length), kind: 'signed', decimals: ctx.decimals, interactive: false,
        format: magnitudeText,
      });
      refs.mats[key] = { now: view(name, t('learnNow')), change: view(`Δ${name}`, t('learnChange')) };
      group.append(refs.mats[key].now.element, el('span', 'op', ' '), refs.mats[key].change.element);
      mats.append(group);
    }
    node.append(el('h4', 'learn-subtitle', t('learnMatrices')), mats, el('p', 'hint', t('learnChangeHint')));
    refs.lines = el('div', 'learn-lines');
    node.append(refs.lines);

    // the backward pass
    const back = el('section', 'learn-backward');
    back.append(el('h4', 'learn-subtitle', t('backTitle')), el('p', 'plain', t('backPlain')));
    refs.grads = {};
    const gradBody = el('div', 'step-body');
    const d = ctx.inputs.wq[0].length;
    const shapes = {
      dWeights: [ctx.tokens, ctx.keyTokens], dScaled: [ctx.tokens, ctx.keyTokens], dScores: [ctx.tokens, ctx.keyTokens],
      dQ: [ctx.tokens, dimLabels(d)], dK: [ctx.keyTokens, dimLabels(d)], dWq: [dimLabels(ctx.inputs.wq.length), dimLabels(d)], dWk: [dimLabels(ctx.inputs.wk.length), dimLabels(d)],
    };
    for (const group of [['dWeights', 'dScaled', 'dScores'], ['dQ', 'dK'], ['dWq', 'dWk']]) {
      const groupNode = el('div', 'step-group');
      group.forEach((key, i) => {
        // the chain runs weights → scaled → scores; Q and K, W_Q and W_K are side by side
        if (i > 0) groupNode.append(group.length === 3 ? flowArrow(groupNode) : el('span', 'op', ' '));
        const [rowLabels, colLabels] = shapes[key];
        const view = createMatrixView({
          lang, name: GRAD_NAMES[key], label: '', data: rowLabels.map(() => colLabels.map(() => 0)), rowLabels, colLabels,
          corner: key.startsWith('dW') || key === 'dQ' || key === 'dK' ? '' : t('queryKeyCorner'), kind: 'signed', decimals: ctx.decimals,
          interactive: true, onSelect: (_, r, c, cell) => select(key, r, c, cell), format: magnitudeText,
        });
        refs.grads[key] = view;
        groupNode.append(view.element);
      });
      gradBody.append(groupNode);
    }
    refs.work = el('div', 'work');
    refs.work.setAttribute('aria-live', 'polite');
    // one colour scale for the seven gradients, said with its size (draw() writes it)
    refs.gradLegend = legend(lang, DIVERGING_STOPS, ['−', '+'], 'legendGradients', { max: '…' });
    back.append(gradBody, refs.gradLegend, refs.work);
    node.append(back);
    return { node, refs };
  }

  // cell: the <td> tapped, clicked or reached with the keys, kept in view with its work
  function select(key, r, c, cell) {
    selection = { key, r, c };
    draw({});
    if (cell && panel) revealWork(cell, panel.refs.work);
  }

  function draw({ lines = false }) {
    if (!panel) return;
    const { refs } = panel;
    const { lang, decimals } = ctx;
    const t = (key, params) => translate(lang, key, params);
    const s = settings();
    const f = analyse();
    for (const [goal, b] of Object.entries(refs.goalButtons)) b.setAttribute('aria-checked', goal === s.goal ? 'true' : 'false');
    refs.fillGrid(s.target);
    refs.weights.update({ data: f.result.weights, masked: f.masked });
    refs.play.textContent = t(running ? 'learnPause' : 'learnTrain');
    refs.play.setAttribute('aria-pressed', running ? 'true' : 'false');
    refs.step.disabled = running;
    refs.rate.value = String(Math.max(0, LEARNING_RATES.indexOf(s.lr)));
    refs.rateValue.textContent = String(s.lr);
    refs.trainX.checked = s.trainX;
    const hasGoal = s.target.some((row) => row.some((v) => v > 0));
    refs.play.disabled = !hasGoal || !host.engine();
    refs.step.disabled = running || !hasGoal || !host.engine();
    const loss = session.losses[session.losses.length - 1];
    const statusText = !host.engine() ? t('loading')
      : !hasGoal ? t('learnNoGoal')
        : Number.isFinite(loss) ? t('learnStatus', { n: session.steps, value: formatNumber(loss, Math.max(decimals, 4)) }) : '';
    refs.status.textContent = statusText;
    refs.status.dataset.loss = String(loss);
    refs.status.dataset.steps = String(session.steps);
    refs.status.dataset.stop = session.stopped || '';
    const keys = ctx.options.cross ? f.contextWithPe || session.input.context : f.xWithPe || session.input.x;
    const reason = hasGoal ? unreachableReason(keys, s.target, f.masked) : null;
    const verdict = verdictText(t, lang, { stopped: session.stopped, steps: session.losses.length - 1 - session.runFrom, floor: goalFloor(s.target), reason, trainX: s.trainX, tokens: ctx.tokens, keyTokens: ctx.keyTokens });
    if (refs.verdict.textContent !== verdict) refs.verdict.textContent = verdict;
    refs.verdict.dataset.reason = reason ? 'mix' : '';
    const shown = error || f.failure;
    refs.error.textContent = shown ? translate(lang, shown.key, shown.params) : '';
    const learned = learnedOf(ctx.tokens, { x: ctx.inputs.x, wq: ctx.inputs.wq, wk: ctx.inputs.wk, wv: ctx.inputs.wv });
    refs.learnedNote.textContent = learned ? t(`learnedNote_${learned}`) : '';
    drawCurve(refs.curve, session.losses, t);
    const w = current();
    // the two Δ matrices on one scale: a tiny change is pale, not the deepest colour
    const change = Object.fromEntries(['wq', 'wk'].map((key) => [key, w[key].map((row, r) => Array.from(row, (v, c) => v - session.start[key][r][c]))]));
    const changeScale = Math.max(largestMagnitude(change.wq), largestMagnitude(change.wk));
    for (const key of ['wq', 'wk']) {
      refs.mats[key].now.update({ data: w[key] });
      refs.mats[key].change.update({ data: change[key], scale: changeScale });
    }
    if (lines && !updateLinesView(refs.lines.firstElementChild, f.result.weights)) {
      refs.lines.replaceChildren(createLinesView({ lang, tokens: ctx.tokens, keyTokens: ctx.keyTokens, weights: f.result.weights, decimals }));
    }
    // the backward pass: the heatmaps keep their last numbers while the engine refuses
    if (!f.grads) return;
    const xq = f.xWithPe || session.input.x;
    const xk = ctx.options.cross ? f.contextWithPe || session.input.context : xq;
    // every gradient coloured on one scale, the largest |value| of them all: one of ~1e-6 beside
    // one of ~1 is pale, as its number (in scientific notation) says
    const gradScale = Math.max(...Object.keys(refs.grads).map((key) => largestMagnitude(f.grads[key])));
    for (const [key, view] of Object.entries(refs.grads)) view.update({ data: f.grads[key], scale: gradScale });
    refs.gradLegend.querySelector('.legend-text').textContent = t('legendGradients', { max: magnitudeText(gradScale, decimals) });
    if (!selection) selection = firstSelection(s.target);
    // the sources' names as the forward pass gives them (X, X+PE, C, C+PE_C)
    const qName = f.xWithPe ? 'X+PE' : 'X';
    const kName = ctx.options.cross ? (f.contextWithPe ? 'C+PE_C' : 'C') : qName;
    const work = explain(selection, {
      ...f.grads, f, s, xq, xk, qName, kName, tokens: ctx.tokens, keyTokens: ctx.keyTokens, lang, decimals,
      divisor: scoreDivisor(w.wq[0].length, ctx.options.scaleBySqrtDk, ctx.options.temperature),
    });
    refs.work.replaceChildren(...work.map((line, i) => el('p', i === 0 ? 'work-main' : 'work-line', line)));
    for (const [key, view] of Object.entries(refs.grads)) view.setMarks(key === selection.key ? [{ m: key, r: selection.r, c: selection.c, kind: 'selected' }] : []);
  }

  function view(next) {
    if (Math.max(next.tokens.length, next.keyTokens.length) > LEARN_LIMIT) {
      stop(); // no goal grid, no session: n × n of them would cost more than the step is worth
      session = null;
      panel = null;
      if (!tooMany || tooMany.dataset.lang !== next.lang) {
        tooMany = el('div', 'learn');
        tooMany.append(el('p', 'step-note', translate(next.lang, 'learnTooMany', { max: LEARN_LIMIT })));
        tooMany.dataset.lang = next.lang;
      }
      tooMany.append(induction.view(next));
      return tooMany;
    }
    sync(next);
    const sig = layoutSig(next);
    if (!panel || panel.sig !== sig) {
      panel = { sig, ...build() };
      selection = null;
    }
    if (!running) draw({ lines: true });
    const trainer = induction.view(next);
    if (trainer.parentNode !== panel.node) panel.node.append(trainer);
    return panel.node;
  }

  return { view };
}
