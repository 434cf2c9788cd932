// "How it learns", from scratch: the induction model (2 layers × 2 heads, attention only,
// causal) trained live from its random start, with the data and initial weights the shipped model
// was trained from (state/induction.js, shared with scripts/train-models.mjs). The steps run in the
// engine's worker (engine/updates.js keeps the one worker) in chunks of INDUCTION_RUN.chunk steps,
// one trainModel call each; after each chunk the worker measures every head's prefix-matching and
// previous-token scores on the held-out sequences, and the page draws the loss curve and the
// scores over the steps, so the learner sees the induction head form (the loss's phase change).
// Pause takes effect at the end of the chunk under way; paused (or stopped), each head's weights
// on a held-out sequence are shown as small heatmaps (heatmap.js), and the model can be saved.
// The run stops by itself (learninduction.js inductionStop) and says why, with the verdict on
// the goal (a head with a prefix-matching score ≥ ROLE_MIN).
//
// Where no worker can start (a CSP without worker-src blob:), the same chunks run on the page's
// thread with host.engine(), each a task of a few hundred ms (a note says so).

import { translate } from '../ui/i18n.js';
import { formatNumber, formatCompact, fullNumber } from '../ui/format.js';
import { VIRIDIS_STOPS } from '../ui/color.js';
import { el, svg, button, download, nextTask } from '../ui/dom.js';
import { INDUCTION, ROLE_MIN, inductionStart, inductionData, inductionHeldOut, inductionScoresOf } from '../state/induction.js';
import { INDUCTION_RUN, bestHead, goalReached, inductionStop, curvePoints, recentLoss, packedModel, chunkOptions } from '../state/learninduction.js';
import { backgroundEngine } from '../engine/updates.js';
import { rowViews } from '../engine/rows.js';
import { paintOnce, walkCells } from './heatmap.js';
import { legend } from './extras.js';
import { drawCurve } from './learncurve.js';

const SHOWN = 0; // the held-out sequence whose weights the heatmaps show
const CELL = 8; // CSS px a cell of a head's heatmap (24 tokens: 192 px)
const HEAD_CLASSES = ['line-a', 'line-b', 'line-c', 'line-d']; // a head's colour in the score charts
const percent = (x) => `${(100 * x).toFixed(1)}%`;

// What the engine calls go to: the worker's, or (pageRunner) the page's engine.
function runnerOf(host) {
  const worker = backgroundEngine();
  if (worker) return { inWorker: true, trainModel: (m, o) => worker.trainModel(m, o), runModel: (m, ids) => worker.runModel(m, ids) };
  return pageRunner(host);
}

// The page's engine, each call in a task of its own; null before it has loaded.
function pageRunner(host) {
  const engine = host.engine();
  if (!engine) return null;
  return {
    inWorker: false,
    trainModel: (m, o) => nextTask().then(() => engine.trainModel(m, o)),
    runModel: (m, ids) => nextTask().then(() => engine.runModel(m, ids, { typed: true })),
  };
}

// A typed runModel result's heads' weights as rows: [layer][head] → rows of the n × n weights.
const weightsOf = (run) => run.layers.map((layer) => layer.attention.heads.map((head) => rowViews(head.weights)));

export function createInductionTrainer(host) {
  const heldOut = inductionHeldOut();
  let session = null; // { rand, model, optimizer (the last chunk's trainModel state), batches (the chunk's, until trained), losses, points: [{ step, scores }], goalAt (the step a head first reached the goal), stopped, shown }
  let state = 'idle'; // 'idle' | 'running' | 'pausing' | 'paused' | 'stopped'
  let error = null; // the engine's message, when it refused a call
  let panel = null; // { lang, node, refs }
  let runner = null;

  function fresh() {
    const { rand, init } = inductionStart();
    session = { rand, model: packedModel(init), optimizer: undefined, batches: null, losses: [], points: [], goalAt: null, stopped: null, shown: null };
    state = 'idle';
    error = null;
  }

  // Every head's scores on the held-out sequences, measured by the runner's engine.
  async function measure(model) {
    const runs = await Promise.all(heldOut.map(({ ids }) => runner.runModel(model, ids)));
    const scores = inductionScoresOf(heldOut, runs.map((run) => ({ layers: weightsOf(run).map((heads) => ({ attention: { heads: heads.map((weights) => ({ weights })) } })) })));
    return { scores, shown: weightsOf(runs[SHOWN]) };
  }

  async function run() {
    const mine = session;
    while (state === 'running' && session === mine) {
      // the chunk's sequences, drawn once: a chunk tried again (after an error) trains on the same
      mine.batches = mine.batches || inductionData(mine.rand, INDUCTION_RUN.chunk).map(({ ids, targets }) => ({ ids, targets }));
      let measured;
      try {
        const r = await runner.trainModel(mine.model, chunkOptions(mine.batches, mine.optimizer));
        if (session !== mine) return; // reset meanwhile
        const model = packedModel(r.model);
        measured = await measure(model);
        mine.model = model;
        mine.optimizer = r.state;
        mine.losses.push(...r.losses);
        mine.batches = null;
      } catch (e) {
        if (session !== mine) return;
        if (e.code === 'worker' && runner.inWorker && pageRunner(host)) {
          runner = pageRunner(host); // the worker broke: the page's thread from now on (the chunk again)
          continue;
        }
        error = e.message;
        state = 'paused';
        draw();
        return;
      }
      if (session !== mine) return;
      mine.points.push({ step: mine.losses.length, scores: measured.scores });
      if (mine.goalAt === null && goalReached(measured.scores)) mine.goalAt = mine.losses.length;
      mine.shown = measured.shown;
      mine.stopped = inductionStop(mine.losses, measured.scores);
      if (mine.stopped) state = 'stopped';
      else if (state === 'pausing' || !panel || !panel.node.isConnected) state = 'paused';
      draw();
    }
  }

  function play() {
    if (state === 'running' || state === 'pausing') return;
    if (state === 'stopped') return;
    runner = runner || runnerOf(host);
    if (!runner) { // no worker, and the page's engine not loaded yet
      error = 'loading';
      draw();
      return;
    }
    state = 'running';
    error = null;
    draw();
    run();
  }

  function pause() {
    if (state !== 'running') return;
    state = 'pausing';
    draw();
  }

  function reset() {
    fresh();
    draw();
  }

  function save() {
    const { model, losses } = session;
    const file = {
      ...model,
      name: 'induction-from-scratch',
      training: {
        source: 'How it learns, trained in the browser from the seed of scripts/train-models.mjs',
        steps: losses.length,
        seed: INDUCTION.seed,
        optimizer: { name: 'adam', learningRate: INDUCTION_RUN.learningRate, stepsPerCall: INDUCTION_RUN.chunk },
        lossEvery: INDUCTION_RUN.curveEvery,
        losses: curvePoints(losses).map((p) => p.loss),
        headScores: session.points.length ? session.points[session.points.length - 1].scores : null,
      },
    };
    const text = JSON.stringify(file, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)); // rows as arrays
    download(`induction-step-${losses.length}.json`, new Blob([`${text}\n`], { type: 'application/json' }));
  }

  // ---- drawing ----

  function build(lang) {
    const t = (key, params) => translate(lang, key, params);
    const node = el('section', 'learn-induction');
    const refs = {};
    node.append(el('h4', 'learn-subtitle', t('inductionTitle')), el('p', 'plain', t('inductionPlain', { goal: ROLE_MIN, count: heldOut.length })));
    const controls = el('div', 'learn-controls');
    refs.play = button('', () => (state === 'running' ? pause() : play()), 'learn-play induction-play');
    refs.reset = button(t('learnReset'), reset, 'induction-reset');
    refs.save = button(t('inductionSave'), save, 'induction-save');
    controls.append(refs.play, refs.reset, refs.save);
    refs.status = el('p', 'learn-status induction-status');
    refs.status.setAttribute('aria-live', 'polite');
    refs.verdict = el('p', 'learn-verdict induction-verdict');
    refs.verdict.setAttribute('aria-live', 'polite');
    refs.note = el('p', 'hint induction-note');
    refs.error = el('p', 'learn-error');
    refs.error.setAttribute('role', 'alert');
    node.append(controls, refs.status, refs.verdict, refs.note, refs.error);

    const charts = el('div', 'induction-charts');
    const figure = (cls, label, caption) => {
      const box = el('figure', 'learn-curve-box');
      const chart = svg('svg', { viewBox: '0 0 320 120', class: `learn-curve ${cls}`, role: 'img', 'aria-label': label });
      box.append(chart, el('figcaption', 'hint', caption));
      charts.append(box);
      return chart;
    };
    refs.curve = figure('induction-curve', t('inductionCurve'), t('inductionCurveCaption', { every: INDUCTION_RUN.curveEvery, ln: formatNumber(Math.log(INDUCTION.vocabSize), 2) }));
    refs.prefix = figure('induction-prefix', t('inductionPrefixChart'), t('inductionPrefixCaption', { goal: ROLE_MIN }));
    refs.previous = figure('induction-previous', t('inductionPreviousChart'), t('inductionPreviousCaption'));
    node.append(charts);

    // the latest scores, a table (its cells carry the full values)
    refs.table = el('table', 'matrix induction-scores');
    refs.tableCaption = el('caption');
    const head = el('tr');
    for (const key of ['inductionHead', 'inductionPrefix', 'inductionPrevious']) {
      const th = el('th', 'col-label', t(key));
      th.scope = 'col';
      head.append(th);
    }
    const thead = el('thead');
    thead.append(head);
    refs.rows = el('tbody');
    refs.table.append(refs.tableCaption, thead, refs.rows);
    node.append(refs.table, el('p', 'hint', t('inductionScoresHint', { count: heldOut.length, chunk: INDUCTION_RUN.chunk })));

    refs.heads = el('div', 'induction-heads');
    node.append(refs.heads);
    return { lang, node, refs };
  }

  const headName = (t, l, h) => t('inductionHeadName', { layer: l + 1, head: h + 1 });

  // one line a head of `key` (induction | previous) over the steps, 0 to 1, and the goal's level
  function drawScores(chart, key, t, goal) {
    const W = 320;
    const H = 120;
    const pad = { l: 34, r: 6, t: 8, b: 18 };
    const last = session.points.length ? session.points[session.points.length - 1].step : 0;
    const x = (step) => pad.l + ((W - pad.l - pad.r) * step) / Math.max(last, 1);
    const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v);
    const label = (text, attrs) => {
      const node = svg('text', attrs);
      node.textContent = text;
      return node;
    };
    const parts = [svg('path', { d: `M${pad.l} ${pad.t}V${H - pad.b}H${W - pad.r}`, class: 'learn-axis' })];
    if (goal !== null) parts.push(svg('path', { d: `M${pad.l} ${y(goal).toFixed(1)}H${W - pad.r}`, class: 'induction-goal' }));
    const layers = session.points.length ? session.points[0].scores : [];
    let k = 0;
    layers.forEach((layer, l) => layer.forEach((_, h) => {
      const points = session.points.map((p) => `${x(p.step).toFixed(1)},${y(p.scores[l][h][key]).toFixed(1)}`).join(' ');
      const line = svg('polyline', { points, class: `induction-line ${HEAD_CLASSES[k++]}` });
      line.dataset.layer = l;
      line.dataset.head = h;
      parts.push(line);
    }));
    parts.push(
      label('1', { x: pad.l - 4, y: pad.t + 8, 'text-anchor': 'end', class: 'learn-tick' }),
      label('0', { x: pad.l - 4, y: H - pad.b, 'text-anchor': 'end', class: 'learn-tick' }),
      label(t('learnSteps', { n: last }), { x: W - pad.r, y: H - 4, 'text-anchor': 'end', class: 'learn-tick' }),
    );
    if (goal !== null) parts.push(label(String(goal), { x: pad.l - 4, y: y(goal) + 3, 'text-anchor': 'end', class: 'learn-tick' }));
    chart.replaceChildren(...parts);
  }

  function drawHeads(refs, t) {
    const shown = state === 'paused' || state === 'stopped' ? session.shown : null;
    if (!shown) {
      refs.heads.replaceChildren();
      return;
    }
    const { ids, copies } = heldOut[SHOWN];
    const vocab = session.model.vocab;
    const tokens = ids.map((id) => vocab[id]);
    const n = ids.length;
    const masked = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (__, j) => j > i));
    const sequence = el('p', 'induction-sequence');
    // the copied stretch (a query with an earlier copy) marked, as the scores read it
    tokens.forEach((token, i) => sequence.append(el(copies[i] >= 0 ? 'mark' : 'span', '', token)));
    const grid = el('div', 'heads-grid');
    shown.forEach((layer, l) => layer.forEach((weights, h) => {
      const tile = el('div', 'head-tile');
      tile.dataset.layer = l;
      tile.dataset.head = h;
      const s = session.points[session.points.length - 1].scores[l][h];
      const top = el('div', 'head-tile-top');
      top.append(el('span', 'head-tile-name', headName(t, l, h)), el('span', 'hint', t('inductionTileScores', { prefix: percent(s.induction), previous: percent(s.previous) })));
      const canvas = el('canvas', 'head-canvas');
      paintOnce(canvas, { data: weights, kind: 'weights', masked, cell: CELL });
      canvas.setAttribute('aria-hidden', 'true');
      canvas.style.width = `${n * CELL}px`;
      canvas.style.height = `${n * CELL}px`;
      const mark = el('div', 'heat-mark mark-selected');
      mark.hidden = true;
      const box = el('div', 'head-box');
      box.append(canvas, mark);
      const readout = el('p', 'head-readout');
      readout.setAttribute('aria-live', 'polite');
      walkCells(box, canvas, n, n, headName(t, l, h), (r, c) => {
        Object.assign(mark.style, { top: `${r * CELL}px`, left: `${c * CELL}px`, width: `${CELL}px`, height: `${CELL}px` });
        mark.hidden = false;
        readout.textContent = t('inductionReadout', { query: tokens[r], i: r + 1, key: tokens[c], j: c + 1, value: formatNumber(weights[r][c], 3) });
      });
      tile.append(top, box, readout);
      grid.append(tile);
    }));
    refs.heads.replaceChildren(
      el('p', 'plain', t('inductionHeadsTitle', { step: session.losses.length })),
      sequence,
      el('p', 'hint', t('inductionSequenceHint')),
      grid,
      legend(panel.lang, VIRIDIS_STOPS, ['0', '1'], 'legendWeights'),
    );
  }

  function draw() {
    if (!panel) return;
    const { refs, lang } = panel;
    const t = (key, params) => translate(lang, key, params);
    const steps = session.losses.length;
    const latest = session.points.length ? session.points[session.points.length - 1] : null;
    const best = latest ? bestHead(latest.scores) : null;
    refs.play.textContent = t(state === 'running' ? 'learnPause' : state === 'idle' ? 'inductionTrain' : 'inductionResume');
    refs.play.setAttribute('aria-pressed', state === 'running' ? 'true' : 'false');
    refs.play.disabled = state === 'pausing' || state === 'stopped';
    refs.reset.disabled = state === 'idle';
    refs.save.disabled = steps === 0 || state === 'running' || state === 'pausing';
    const loss = steps ? recentLoss(session.losses) : NaN;
    refs.status.textContent = steps === 0 ? t('inductionStart')
      : t(state === 'pausing' ? 'inductionPausing' : 'inductionStatus', {
        n: steps, loss: formatNumber(loss, 3), window: Math.min(steps, INDUCTION_RUN.window), score: percent(best.induction), layer: best.layer + 1, head: best.head + 1,
      });
    Object.assign(refs.status.dataset, { steps: String(steps), loss: String(loss), best: best ? String(best.induction) : '', state, stop: session.stopped || '' });
    refs.verdict.textContent = verdictOf(t, lang, session, best);
    refs.verdict.dataset.goalAt = session.goalAt === null ? '' : String(session.goalAt);
    refs.note.textContent = runner && !runner.inWorker ? t('inductionNoWorker') : '';
    refs.error.textContent = error === 'loading' ? t('loading') : error ? t('errEngine', { message: error }) : '';
    drawCurve(refs.curve, curvePoints(session.losses).map((p) => p.loss), t, steps);
    drawScores(refs.prefix, 'induction', t, ROLE_MIN);
    drawScores(refs.previous, 'previous', t, null);
    refs.tableCaption.textContent = latest ? t('inductionTableCaption', { n: latest.step }) : t('inductionTableEmpty');
    refs.rows.replaceChildren(...(latest ? latest.scores.flatMap((layer, l) => layer.map((s, h) => {
      const tr = el('tr');
      tr.dataset.layer = l;
      tr.dataset.head = h;
      const th = el('th', 'row-label');
      th.scope = 'row';
      th.append(el('span', `induction-swatch ${HEAD_CLASSES[l * layer.length + h]}`), headName(t, l, h));
      tr.append(th);
      for (const key of ['induction', 'previous']) {
        const td = el('td', 'num', percent(s[key]));
        td.dataset.score = key;
        td.dataset.value = fullNumber(s[key]);
        tr.append(td);
      }
      return tr;
    })) : []));
    drawHeads(refs, t);
  }

  // The section, built again only for another language: the page's renders leave it as it is
  // (a heatmap walked with the keys keeps its cell); the run draws it after each chunk.
  function view(ctx) {
    if (!session) fresh();
    if (!panel || panel.lang !== ctx.lang) {
      panel = build(ctx.lang);
      draw();
    }
    return panel.node;
  }

  return { view };
}

// Why the run stopped, and the verdict on the goal; before it stops, the step a head reached the goal.
function verdictOf(t, lang, { stopped, losses, goalAt }, best) {
  const join = (a, b) => (lang === 'zh' ? `${a}${b}` : `${a} ${b}`); // Chinese sentences run on without a space
  const at = goalAt === null ? '' : t('inductionGoalAt', { n: goalAt });
  if (!stopped) return at;
  const why = t(`inductionStop_${stopped}`, { n: losses.length, window: INDUCTION_RUN.window, patience: INDUCTION_RUN.patience, gain: formatCompact(100 * INDUCTION_RUN.gain, 1) });
  const figures = { score: percent(best.induction), layer: best.layer + 1, head: best.head + 1, goal: ROLE_MIN };
  const verdict = join(why, t(best.induction >= ROLE_MIN ? 'inductionGoalMet' : 'inductionGoalMissed', figures));
  return at ? join(verdict, at) : verdict;
}
