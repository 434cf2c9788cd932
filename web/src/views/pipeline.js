// The pipeline diagram: the computation as one SVG, stage by stage,
//   X → Q, K, V → Q·Kᵀ → ÷√d_k (÷T) → mask → softmax → ·V (→ heads → concat → ·W_O) → learn
// each stage with its shape in the example's sizes. A variant's stage is drawn
// only while its option is on (the context C feeding K and V in cross-attention,
// +PE, ÷T, the mask, the heads, W_O). Every stage is a control that opens its
// step; the current step's stages are lit. One view for the page and for
// <attention-visualizer>'s nav panel.
//
// view = {lang, options, tokens, keyTokens, inputs: {x, c, wq, wv, wo, bq?, bk?, bv?, bo?}} (the
// steps' ctx has all of these): only sizes are read, never a number.

import { translate } from '../ui/i18n.js';
import { el, svg, setAttr, markMore, watchMore } from '../ui/dom.js';
import { stepsFor } from './steps.js';

// The stages in columns (a column holds the stages side by side in the data:
// X and C, or Q, K and V) and the arrows between them as [from id, to id].
// A stage: {id, step (the step it opens), text (drawn), name (spoken), shape: [sizes], variant}.
export function pipelineStages({ lang, options, tokens, keyTokens, inputs }) {
  const t = (key, params) => translate(lang, key, params);
  const n = tokens.length;
  const m = (keyTokens || tokens).length;
  const dModel = inputs.x[0].length;
  const dk = inputs.wq[0].length;
  const dv = inputs.wv[0].length;
  const { cross, positionalEncoding: pe, heads } = options;
  const stage = (id, step, text, shape, variant = false, name = t(`stage_${id}`)) => ({ id, step, text, name, shape, variant });
  const columns = [];
  const edges = [];
  // Each column's stages, and what feeds each of them from the column before.
  const add = (...entries) => {
    columns.push(entries.map(([s]) => s));
    for (const [s, from = []] of entries) for (const source of from) edges.push([source, s.id]);
  };

  add([stage('x', 'input', 'X', [n, dModel])], ...(cross ? [[stage('c', 'input', 'C', [m, inputs.c[0].length], true)]] : []));
  let [q, kv] = ['x', cross ? 'c' : 'x'];
  if (pe) {
    const entries = [[stage('pe', 'pe', 'X+PE', [n, dModel], true), ['x']]];
    if (cross) entries.push([stage('peC', 'pe', 'C+PE', [m, inputs.c[0].length], true), ['c']]);
    add(...entries);
    [q, kv] = ['pe', cross ? 'peC' : 'pe'];
  }
  // "+b" where the head adds a bias: Q = X·W_Q + b_Q
  const biased = (text, bias) => (inputs[bias] ? `${text}+b` : text);
  add([stage('q', 'project', biased('Q', 'bq'), [n, dk]), [q]], [stage('k', 'project', biased('K', 'bk'), [m, dk]), [kv]], [stage('v', 'project', biased('V', 'bv'), [m, dv]), [kv]]);
  add([stage('scores', 'scores', 'Q·Kᵀ', [n, m]), ['q', 'k']]);
  let last = 'scores';
  const chain = (s) => {
    add([s, [last]]);
    last = s.id;
  };
  if (options.alibi) chain(stage('bias', 'bias', '+B', [n, m], true));
  chain(scaleStage(t, options, [n, m]));
  if (options.causal || options.keyPadding.some(Boolean)) chain(stage('mask', 'scale', t('stageText_mask'), [n, m], true));
  chain(stage('softmax', 'softmax', 'softmax', [n, m]));
  chain(stage('output', 'output', '·V', [n, dv]));
  edges.push(['v', 'output']); // V waits beside the chain for the weights
  if (heads > 1) {
    chain(stage('heads', 'heads', t('stageText_heads', { n: heads }), [heads, n, m], true, t('stage_heads', { n: heads })));
    chain(stage('concat', 'concat', t('stageText_concat'), [n, heads * dv], true));
  }
  if (options.usesWo) chain(stage('wo', 'wo', inputs.bo ? '·W_O+b' : '·W_O', [n, inputs.wo[0].length], true));
  // training follows the whole pass: its goal is a pattern of weights (n × m)
  chain(stage('learn', 'learn', t('stageText_learn'), [n, m]));
  return { columns, edges };
}

// ÷√d_k, ÷T or both; with neither the step still shows Scores unchanged (÷√d_k struck out).
function scaleStage(t, { scaleBySqrtDk: scale, temperature }, shape) {
  const divisors = [...(scale ? ['÷√d_k'] : []), ...(temperature !== 1 ? ['÷T'] : [])];
  const name = t(scale ? (temperature !== 1 ? 'stage_scaleT' : 'stage_scale') : (temperature !== 1 ? 'stage_t' : 'stage_unscaled'));
  return {
    id: 'scale', step: 'scale', text: divisors.join(' ') || '÷√d_k', name, shape, variant: temperature !== 1, off: divisors.length === 0,
  };
}

const shapeText = (shape) => shape.join(' × ');

// ---- layout (px): stages measured by their characters, so the drawing is the
// same wherever it is built (attached to the document or not) ----

const LABEL_PX = 14; // the CSS gives .pipeline-text these sizes, in a monospace font
const SHAPE_PX = 11;
const TALL = 40; // a stage alone in its column: its text over its shape
const FLAT = 24; // stages stacked in a column: text and shape on one line (24 px: a touch target, WCAG 2.5.8)
const STACK_GAP = 4;
const COLUMN_GAP = 24; // room for an arrow
const PAD = 4; // round the drawing, for the focus ring

// A monospace character is 0.6 em wide; a CJK one 1 em.
export function textWidth(text, px) {
  return Array.from(text).reduce((sum, ch) => sum + (ch.codePointAt(0) >= 0x2e80 ? 1 : 0.6) * px, 0);
}

export function layoutPipeline({ columns, edges }) {
  const sizes = columns.map((stages) => {
    const flat = stages.length > 1;
    const widths = stages.map((s) => (flat
      ? textWidth(s.text, LABEL_PX) + textWidth(` ${shapeText(s.shape)}`, SHAPE_PX) + 16
      : Math.max(textWidth(s.text, LABEL_PX), textWidth(shapeText(s.shape), SHAPE_PX)) + 18));
    const height = flat ? stages.length * FLAT + (stages.length - 1) * STACK_GAP : TALL;
    return { flat, width: Math.ceil(Math.max(40, ...widths)), height };
  });
  const tallest = Math.max(...sizes.map((s) => s.height));
  // V's arrow to ·V runs in a lane under the stages between them
  const lane = PAD + (tallest + TALL) / 2 + 14;
  const height = Math.max(tallest + 2 * PAD, lane + 3);
  const boxes = {};
  let x = PAD;
  columns.forEach((stages, i) => {
    const { flat, width, height: columnHeight } = sizes[i];
    let y = PAD + (tallest - columnHeight) / 2;
    for (const s of stages) {
      const h = flat ? FLAT : TALL;
      boxes[s.id] = { x, y, w: width, h, flat };
      y += h + STACK_GAP;
    }
    x += width + COLUMN_GAP;
  });
  return { boxes, edges, width: x - COLUMN_GAP + PAD, height, lane };
}

// An arrow between neighbouring columns is an S-curve from side to side; one
// that skips columns (V to ·V) drops into the lane, runs under the stages
// between and rises into its stage from below.
function edgePath(a, b, lane) {
  const [x1, y1] = [a.x + a.w, a.y + a.h / 2];
  if (b.x - x1 > COLUMN_GAP + 1) {
    const xb = b.x + b.w / 2;
    const d = `M${x1} ${y1} C${x1 + 10} ${y1} ${x1 + 10} ${lane} ${x1 + 20} ${lane} H${xb - 6} Q${xb} ${lane} ${xb} ${lane - 6} V${b.y + b.h + 2}`;
    return { d, tip: [xb, b.y + b.h, 'up'] };
  }
  const [x2, y2] = [b.x - 1, b.y + b.h / 2];
  const mid = (x1 + x2) / 2;
  return { d: `M${x1} ${y1} C${mid} ${y1} ${mid} ${y2} ${x2 - 4} ${y2}`, tip: [x2, y2, 'right'] };
}

function arrowTip([x, y, way]) {
  const points = way === 'up' ? [[x, y], [x - 4, y + 6], [x + 4, y + 6]] : [[x, y], [x - 7, y - 4], [x - 7, y + 4]];
  return svg('polygon', { points: points.map((p) => p.join(',')).join(' '), class: 'pipeline-tip' });
}

// ---- the view ----

// The diagram as a <div class="pipeline"> (it scrolls sideways when narrow).
// current: the step shown (null: all steps at once); onOpen(stepId) when a stage
// is chosen; enabled: the step ids that can be opened (default: all). roving: one
// stage in the Tab order (the current step's first, else the first), so that a
// host page's reader reaches the steps in a few Tabs; ←/→ then move between
// steps (the element does it) or, with no current step, Home, End, ←/→ move the
// focus between the stages.
export function createPipeline(view, options) {
  return build(view, pipelineStages(view), options);
}

// What the drawing depends on: while it stays, only the lit stages change.
const keyOf = (view, stages, enabled) => JSON.stringify([view.lang, stages.columns, enabled || null]);

function build(view, stages, { current, onOpen, enabled = null, roving = false }) {
  const { boxes, edges, width, height, lane } = layoutPipeline(stages);
  const steps = stepsFor(view.options).map((step) => step.id);
  const t = (key, params) => translate(view.lang, key, params);
  const drawing = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'pipeline-svg', role: 'group' });
  drawing.setAttribute('aria-label', t('pipelineLabel'));
  const arrows = svg('g', { 'aria-hidden': 'true' });
  for (const [from, to] of edges) {
    const { d, tip } = edgePath(boxes[from], boxes[to], lane);
    arrows.append(svg('path', { d, class: 'pipeline-edge', 'data-edge': `${from}-${to}` }), arrowTip(tip));
  }
  drawing.append(arrows);
  for (const s of stages.columns.flat()) drawing.append(stageNode(s, boxes[s.id], steps, t, enabled, onOpen));
  const element = el('div', 'pipeline');
  element.dataset.key = keyOf(view, stages, enabled);
  element.append(drawing);
  if (roving) {
    element.dataset.roving = '';
    drawing.addEventListener('keydown', (event) => moveFocus(element, event));
  }
  watchMore(element);
  // what a dashed border means, while one is drawn: the stages an option adds
  const variants = stages.columns.flat().filter((s) => s.variant);
  if (variants.length > 0) {
    const key = el('p', 'pipeline-key');
    const swatch = el('span', 'pipeline-key-swatch');
    swatch.setAttribute('aria-hidden', 'true');
    key.append(swatch, el('span', '', t('pipelineVariantKey', { list: variants.map((s) => s.text).join(view.lang === 'zh' ? '、' : ', ') })));
    element.append(key);
  }
  setCurrent(element, current);
  return element;
}

// roving, all steps at once: Home, End, ←/→ between the stages that are controls.
function moveFocus(element, event) {
  const stages = [...element.querySelectorAll('.pipeline-stage[role="button"]')];
  if (stages.some((node) => node.classList.contains('lit'))) return;
  const i = stages.indexOf(event.target.closest('.pipeline-stage'));
  const to = { Home: 0, End: stages.length - 1, ArrowLeft: i - 1, ArrowRight: i + 1 }[event.key];
  if (i < 0 || to === undefined || event.altKey || event.ctrlKey || event.metaKey || !stages[to]) return;
  event.preventDefault();
  for (const node of stages) node.setAttribute('tabindex', node === stages[to] ? '0' : '-1');
  stages[to].focus();
}

function stageNode(s, box, steps, t, enabled, onOpen) {
  const node = svg('g', { class: ['pipeline-stage', s.variant ? 'variant' : '', s.off ? 'off' : ''].filter(Boolean).join(' ') });
  node.dataset.stage = s.id;
  node.dataset.step = s.step;
  node.dataset.n = steps.indexOf(s.step) + 1;
  node.append(svg('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 6 }));
  const cx = box.x + box.w / 2;
  // The text and the shape are separated by a space in the markup, so that the
  // visible words read "X 3 × 2" (and the accessible name can start with them):
  // on one line the space is drawn (in the shape's size), in a tall stage it
  // sits between the two <text> elements, where SVG draws no text.
  if (box.flat) {
    const text = svg('text', { x: cx, y: box.y + box.h / 2, class: 'pipeline-text' });
    const label = svg('tspan', { class: 'pipeline-label' });
    label.textContent = s.text;
    const shape = svg('tspan', { class: 'pipeline-shape' });
    shape.textContent = shapeText(s.shape);
    text.append(label, ' ', shape);
    node.append(text);
  } else {
    const label = svg('text', { x: cx, y: box.y + 14, class: 'pipeline-text pipeline-label' });
    label.textContent = s.text;
    const shape = svg('text', { x: cx, y: box.y + 30, class: 'pipeline-text pipeline-shape' });
    shape.textContent = shapeText(s.shape);
    node.append(label, ' ', shape);
  }
  if (enabled && !enabled.includes(s.step)) {
    node.classList.add('inert');
    node.setAttribute('aria-hidden', 'true');
    return node;
  }
  node.setAttribute('role', 'button');
  node.setAttribute('tabindex', '0');
  node.dataset.focusId = `stage-${s.id}`;
  // the name starts with the words drawn (what a voice-control user says), then what they stand for
  node.setAttribute('aria-label', t('stageLabel', {
    text: s.text, name: s.name, shape: shapeText(s.shape), n: steps.indexOf(s.step) + 1, total: steps.length,
  }));
  node.addEventListener('click', () => onOpen(s.step));
  node.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    onOpen(s.step);
  });
  return node;
}

// Lights the stages of step `current` (none when null); roving, the first lit
// (else the first) control is the one in the Tab order.
function setCurrent(element, current) {
  const controls = [];
  for (const node of element.querySelectorAll('.pipeline-stage')) {
    const lit = node.dataset.step === current;
    node.classList.toggle('lit', lit);
    if (lit && node.hasAttribute('role')) setAttr(node, 'aria-current', 'step');
    else node.removeAttribute('aria-current');
    if (node.hasAttribute('role')) controls.push(node);
  }
  if (!('roving' in element.dataset)) return;
  const tabbable = controls.find((node) => node.classList.contains('lit')) || controls[0];
  for (const node of controls) setAttr(node, 'tabindex', node === tabbable ? '0' : '-1');
}

// Shows the diagram in `container`: the one there gets the new current step
// when its stages are the same, else a new one replaces it (keeping the focus
// on the stage that had it).
export function showPipeline(container, view, options) {
  const stages = pipelineStages(view);
  const shown = container.firstElementChild;
  if (shown && shown.dataset.key === keyOf(view, stages, options.enabled)) {
    setCurrent(shown, options.current);
    return shown;
  }
  const next = build(view, stages, options);
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.focusId : null;
  container.replaceChildren(next);
  if (focused) next.querySelector(`[data-focus-id="${focused}"]`)?.focus();
  return next;
}

// Scrolls a narrow diagram sideways so that the lit stage is in sight, in the
// next frame before its layout: measuring now would lay the page out twice
// when a render goes on changing it (at n = 4096, 50–70 ms each time).
const revealing = new WeakSet();
export function revealCurrent(element) {
  if (revealing.has(element)) return;
  revealing.add(element);
  requestAnimationFrame(() => {
    revealing.delete(element);
    if (!element.isConnected) return;
    reveal(element);
    markMore(element);
  });
}

function reveal(element) {
  const lit = element.querySelector('.pipeline-stage.lit rect');
  if (!lit || element.scrollWidth <= element.clientWidth) return;
  const x = Number(lit.getAttribute('x'));
  const w = Number(lit.getAttribute('width'));
  if (x >= element.scrollLeft && x + w <= element.scrollLeft + element.clientWidth) return;
  element.scrollLeft = x + w / 2 - element.clientWidth / 2;
}
