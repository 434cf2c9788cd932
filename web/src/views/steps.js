// The guided sequence. Each step names the matrices it shows, in groups
// (operands then result); the page renders one step at a time or all of them.
// stepsFor(options) lists the steps of a variant: the six steps of one head,
// plus positional encoding, all heads, concat and W_O when they apply. A new
// step is one more entry, and a new matrix one more entry in matrixCatalog
// (catalog.js). The notes the steps show by their matrices are stepnotes.js's.
// ctx = {lang, decimals, tokens, keyTokens, inputs, result, full, options,
// head, tutorial, preset, compare, onCloseCompare, onOpenHead, learn,
// learnSettings} (see work.js); preset is the name of the preset on screen
// (presets.js) or null; learn the host's learner (learn.js) and
// learnSettings the state's `learn` field. A step with a `panel` shows the
// node panel(ctx) gives, one kept across renders, after its extras.

import { translate } from '../ui/i18n.js';
import { formatCompact } from '../ui/format.js';
import { el, setText, flowArrow } from '../ui/dom.js';
import { createMatrixView } from './view.js';
import { explainCell, explainable, headOutputName, sources } from './work.js';
import { createCheckForm } from './checkform.js';
import { createExercisePanel, cellName } from './exercise.js';
import { createGuessPanel, guessContext } from './guess.js';
import { blanksOf, askedBlank, hasBlanks, withoutBlanks, blankText, MATRIX_NAMES } from './blanks.js';
import { matrixCatalog } from './catalog.js';
import { headName } from '../ui/labels.js';
import { arrivalCell, describeFlow, playFlow } from './motion.js';
import { kept, colourKeysOf, presetNote, nearUniformNote, headsGrid, linesView, misprint } from './extras.js';
import { atDefaults } from '../state/options.js';
import { biasNote, scaleNote, maskNote, fullyMaskedNote, peNote, comparison } from './stepnotes.js';

const INPUT = { id: 'input', key: 'stepInput', groups: (ctx) => (ctx.options.cross ? [['X'], ['C']] : [['X']]) };
const PE = {
  id: 'pe', key: 'stepPe', extras: [kept(peNote)],
  groups: (ctx) => (ctx.options.cross ? [['X', 'PE', 'X+PE'], ['C', 'PE_C', 'C+PE_C']] : [['X', 'PE', 'X+PE']]),
  separator: '+',
};
// A projection's weights, then its bias where the head has one: X·W_Q + b_Q → Q.
const projected = (ctx, weights, bias) => (ctx.inputs[bias] ? [weights, BIAS_NAMES[bias]] : [weights]);
const BIAS_NAMES = { bq: 'b_Q', bk: 'b_K', bv: 'b_V', bo: 'b_O' };
const PROJECT = {
  id: 'project', key: 'stepProject',
  groups: (ctx) => {
    const { q, kv } = sources(ctx);
    const [wq, wk, wv] = [projected(ctx, 'W_Q', 'bq'), projected(ctx, 'W_K', 'bk'), projected(ctx, 'W_V', 'bv')];
    if (ctx.options.cross) return [[q.name, ...wq, 'Q'], [kv.name, ...wk, 'K'], [kv.name, ...wv, 'V']];
    return [[q.name], [...wq, 'Q'], [...wk, 'K'], [...wv, 'V']];
  },
};
const SCORES = { id: 'scores', key: 'stepScores', groups: () => [['Q', 'K', 'Scores']] };
const BIAS = { id: 'bias', key: 'stepBias', groups: () => [['Bias']], extras: [kept(biasNote)] };
const SCALE = { id: 'scale', key: 'stepScale', groups: () => [['Scores', 'Scaled']], extras: [kept(scaleNote), kept(maskNote), misprint('scaled', 'Scaled')] };
const SOFTMAX = {
  id: 'softmax', key: 'stepSoftmax', groups: () => [['Scaled', 'Weights']],
  leads: [kept(presetNote)], extras: [kept(nearUniformNote), kept(fullyMaskedNote), comparison, linesView, misprint('weights', 'Weights')],
};
const OUTPUT = { id: 'output', key: 'stepOutput', groups: (ctx) => [['Weights', 'V', headOutputName(ctx)]], extras: [misprint('output', 'Output')] };
// After the output: training the head on screen toward a goal (learn.js);
// its panel is the host's learner's, kept across renders. lazy: out of view,
// it waits for its update whatever the size (a backward pass, its worked
// arithmetic and seven gradients: more than the other steps together at n = 8).
const LEARN = { id: 'learn', key: 'stepLearn', groups: () => [], panel: (ctx) => (ctx.learn ? ctx.learn.view(ctx) : null), lazy: true };
const HEADS = { id: 'heads', key: 'stepHeads', groups: () => [], extras: [headsGrid] };
const CONCAT = {
  id: 'concat', key: 'stepConcat', separator: '|',
  groups: (ctx) => [[...ctx.full.heads.map((_, h) => headName(h)), 'Concat']],
};
const WO = {
  id: 'wo', key: 'stepWo', groups: (ctx) => [[ctx.options.heads > 1 ? 'Concat' : headName(0), ...projected(ctx, 'W_O', 'bo'), 'Output']],
};

// The six steps of plain attention, as before any option.
export const STEPS = [INPUT, PROJECT, SCORES, SCALE, SOFTMAX, OUTPUT];

// Options that leave attention plain (these six steps): one head, no W_O, no second sentence and
// every option of the registry at its default, at any temperature (a preset is still itself at
// another; where T = 1 matters too, the caller asks: the tutorial's printed values).
export const isPlain = (options) => options.heads === 1 && !options.usesWo && !options.cross && atDefaults(options, ['temperature']);

// Every step in the order shown, with when it is shown (none: always); stepsFor(options): a variant's.
const ORDER = [
  [INPUT], [PE, (o) => o.positionalEncoding], [PROJECT], [SCORES], [BIAS, (o) => o.alibi], [SCALE], [SOFTMAX], [OUTPUT],
  [HEADS, (o) => o.heads > 1], [CONCAT, (o) => o.heads > 1], [WO, (o) => o.usesWo], [LEARN],
];
export const stepsFor = (options) => ORDER.filter(([, when]) => !when || when(options)).map(([step]) => step);
export const STEP_IDS = ORDER.map(([step]) => step.id);

function groupItem(symbol) {
  const node = el('span', 'op', symbol);
  node.setAttribute('aria-hidden', 'true');
  return node;
}

// What a step's layout depends on: while it stays, a new result is written
// into the step on screen (updateStep) instead of building it again. Not the
// temperature: it is in the numbers, the notes, the comparison and the scale
// step's formula (T, or none at 1), all written on each update, so a dragged
// slider repaints the steps in place (even as it passes 1).
function layoutKey(step, index, total, ctx, catalog, names) {
  const { lang, decimals, tokens, keyTokens, head, tutorial } = ctx;
  const options = { ...ctx.options, temperature: null };
  const shapes = names.map((name) => {
    const { data, label, masked } = catalog[name];
    return [name, data.length, data[0].length, label, Boolean(masked)];
  });
  return JSON.stringify([step.id, index, total, lang, decimals, tokens, keyTokens, options, head, tutorial, shapes]);
}

const rendered = new WeakMap(); // a step's <li> → {key, update(ctx, selection), link(marks, text), cell(), pending}

// A step out of view may keep its update (updateStep's `defer`: during a drag,
// and for every edit of a large input; a lazy step always) until it comes near the viewport, or a
// task of its own after the steps in view are painted (settleSteps): with all
// steps shown, writing thousands of cells off screen cost a drag its frames and
// an edit at n = 512 its next frame. near: a step's <li> → whether it is in view
// or within a quarter of the viewport's height of it (unknown until the
// observer's first report). A step whose update waits has data-pending.
// Within a step in view, its matrices and extras out of view wait the same way
// (a drag of T with the softmax step shown: its comparison, below, is 512 of
// the 1 024 cells a move would write), and within a table in view its rows
// and columns out of sight (view.js). owner: such a node → its step's <li>;
// watched: a step's <li> → the nodes watched for it (itself too).
const near = new WeakMap();
const owner = new WeakMap();
const watched = new WeakMap();
let observer = null;
function watch(node, li = node) {
  observer ||= new IntersectionObserver((entries) => {
    for (const entry of entries) {
      // an update waits only for a node known to be away (near false): one that comes near writes it;
      // a node's first report does not (a note made anew on each move of a drag, in view, wrote its
      // step's comparison below the screen on every move)
      const away = near.get(entry.target) === false;
      near.set(entry.target, entry.isIntersecting);
      if (entry.isIntersecting && away) applyPending(owner.get(entry.target) || entry.target);
    }
  }, { rootMargin: '25% 0px' });
  owner.set(node, li);
  if (!watched.has(li)) watched.set(li, new Set());
  watched.get(li).add(node);
  observer.observe(node);
}

function unwatch(node, li) {
  observer.unobserve(node);
  watched.get(li)?.delete(node);
}

function applyPending(li) {
  const record = rendered.get(li);
  if (!record || !record.pending) return;
  const [ctx, catalog, selection] = record.pending;
  record.pending = null;
  li.removeAttribute('data-pending');
  record.update(ctx, catalog, selection);
}

// The updates the steps of `list` keep, written one step a task once the
// next frame is on screen (the steps in view come first, and the page answers
// in between); a newer call takes over.
const settling = new WeakMap(); // list → the latest call's token
export function settleSteps(list) {
  const token = {};
  settling.set(list, token);
  const next = () => {
    if (settling.get(list) !== token) return;
    const li = [...list.children].find((child) => rendered.get(child)?.pending);
    if (!li) return;
    applyPending(li);
    setTimeout(next, 0);
  };
  // (two frames on: the next frame shows the steps in view before any of this work)
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(next, 0)));
}

// A step no longer on the page: no longer watched.
export function forgetStep(li) {
  for (const node of watched.get(li) || []) observer.unobserve(node);
  watched.delete(li);
  rendered.get(li)?.hold(false);
}

// A drag pressed (on) or let go: the tables of the steps of `list` watch which
// of their cells are in sight from now, so that its first move writes only those (view.js).
export function holdSteps(list, on) {
  for (const li of list.children) rendered.get(li)?.hold(on);
}

// The nearest ancestor of `node` that scrolls vertically (through shadow roots: the element
// with a --av-max-height scrolls inside), else the document's scrolling element.
function scrollerOf(node) {
  for (let n = node.parentElement || node.getRootNode().host; n; n = n.parentElement || n.getRootNode().host) {
    const { overflowY } = getComputedStyle(n);
    if ((overflowY === 'auto' || overflowY === 'scroll') && n.scrollHeight > n.clientHeight) return n;
  }
  return document.scrollingElement || document.documentElement;
}

// A cell's explanation `work` (below its step's matrices, often below the screen: 265 px
// under it on a phone after a tap) brought into view with the cell: the least scroll that
// shows both below the sticky bar (the scroller's scroll-padding-top); when both do not fit,
// the cell just under the bar and `work` a sheet pinned to the bottom under it (.work.sheet).
const sheets = new WeakMap(); // work → the IntersectionObserver that unpins it once its cell leaves the screen
export function revealWork(cell, work) {
  sheets.get(work)?.disconnect();
  work.classList.remove('sheet');
  work.style.maxHeight = '';
  const scroller = scrollerOf(work);
  const page = scroller === document.scrollingElement || scroller === document.documentElement;
  const box = page ? { top: 0, bottom: window.innerHeight } : scroller.getBoundingClientRect();
  const margin = 8;
  const top = box.top + (parseFloat(getComputedStyle(scroller).scrollPaddingTop) || 0) + margin;
  const bottom = box.bottom - margin;
  const c = cell.getBoundingClientRect();
  const w = work.getBoundingClientRect();
  const lo = Math.min(c.top, w.top);
  const hi = Math.max(c.bottom, w.bottom);
  let dy = 0;
  if (hi - lo <= bottom - top) {
    if (hi > bottom) dy = hi - bottom;
    else if (lo < top) dy = lo - top;
  } else {
    dy = c.top - top;
    work.classList.add('sheet');
    work.style.maxHeight = `${Math.max(bottom - (c.bottom - dy) - margin, 120)}px`;
    // pinned while the cell is on screen: scrolled away from it, the work goes back to its place
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      work.classList.remove('sheet');
      work.style.maxHeight = '';
    }, { root: page ? null : scroller });
    observer.observe(cell);
    sheets.set(work, observer);
  }
  if (dy !== 0) (page ? window : scroller).scrollBy({ top: dy, behavior: 'instant' });
}

// Renders one step as an <li>. `selection` ({name, r, c} or null) is the
// cell whose arithmetic is shown; onSelection(selection) keeps it across renders.
// `arrival` ({from: shownCell(the step left)}) when the step is reached by
// moving from another: one cell of its result is shown being made (motion.js),
// in the row and column of `from` when they fit.
// replacing: the step's <li> this one replaces (a layout of its own, as another head's): its
// extras marked `carried` (extras.js linesView) are given to this one's, to update in place.
export function renderStep(step, index, total, given, { selection, onSelection, arrival = null, replacing = null }) {
  const ctx = guessContext(given, step); // "Guess first": the step's result hidden until guessed
  const { lang } = ctx;
  const t = (key, params) => translate(lang, key, params);
  const li = el('li', 'step');
  li.id = `step-${index + 1}`;
  li.dataset.step = step.id;
  if (ctx.options.cross) li.dataset.cross = 'true';
  const header = el('div', 'step-head'); // not a <header>: outside the page's <main> that is a banner landmark
  header.append(el('span', 'step-num', t('stepOf', { n: index + 1, total })), el('h3', 'step-title', t(`${step.key}Title`)));
  const formula = el('p', 'formula', formulaOf(step, ctx));
  li.append(header, formula, el('p', 'plain', t(`${step.key}Plain`)));

  let catalog = matrixCatalog(ctx);
  let current = ctx;
  const groups = step.groups(ctx);
  const names = groups.flat();
  const views = [];
  const work = el('div', 'work');
  work.setAttribute('aria-live', 'polite');
  const checker = createCheckForm(); // "Check my answer" for the cell explained
  const blanksPanel = createExercisePanel(); // an exercise's blanks in this step ("Fill in")
  const guessPanel = createGuessPanel(); // "Guess first": the step's question (guess.js)
  const interactiveNames = [...new Set(names.filter(explainable))];
  // One line, always there (no layout shift): which numbers the marks show, in words.
  const flowNote = el('p', 'flow-note', t('flowLegend'));
  // The marks of the cell explained here (own) and of one explained in another step shown (linked).
  let own = [];
  let linked = [];
  const paintMarks = () => {
    for (const view of views) view.setMarks([...own, ...linked].filter((mark) => mark.m === view.name));
  };
  let ownNote = t('flowLegend');
  const setNote = (text) => {
    flowNote.textContent = text;
    flowNote.title = text;
  };
  // Marks a cell's sources; the words say them. Returns the flow's sentence.
  const markCell = (name, r, c) => {
    const explained = explainCell(name, r, c, withoutBlanks(current)); // an exercise's blanks as "?"
    const { marks } = explained;
    const lines = explained.lines.map(blankText);
    own = [...marks, { m: name, r, c, kind: 'selected' }];
    linked = [];
    paintMarks();
    const text = describeFlow(lang, marks, { name, r, c }, catalog);
    setNote((ownNote = text));
    return { lines, marks: own, text };
  };
  // byUser: pointed at or focused here, so the steps shown beside it mark the same numbers;
  // cell: the <td> (or a heatmap's box) tapped, clicked or reached with the keys, kept in view with its work.
  const select = (name, r, c, byUser = false, cell = null) => {
    const { lines, marks, text } = markCell(name, r, c);
    const blank = blanksOf(current, name)?.has(r * catalog[name].data[0].length + c);
    if (blank && current.hidden?.includes(name)) work.replaceChildren(el('p', 'work-line', t('guessWorkHidden')));
    else if (blank && !askedBlank(current, name, r, c)) work.replaceChildren(el('p', 'work-line', t('exerciseWorkWaits', { cell: cellName(current, name, r, c), from: cellName(current, 'Scores', r, c) })));
    else if (blank) work.replaceChildren(el('p', 'work-line', t('exerciseWorkHidden', { cell: cellName(current, name, r, c) })));
    else work.replaceChildren(...lines.map((line, i) => el('p', i === 0 ? 'work-main' : 'work-line', line)));
    checker.show(current, name, r, c, blank);
    if (cell) revealWork(cell.querySelector('.mark-selected') || cell, work); // a heatmap: its cell's mark
    onSelection({ name, r, c });
    if (!byUser || !li.parentElement) return;
    for (const other of li.parentElement.children) {
      if (other !== li) rendered.get(other)?.link(marks, t('flowLinked', { n: index + 1, text }));
    }
  };

  const body = el('div', 'step-body');
  for (const group of groups) {
    const groupNode = el('div', 'step-group');
    group.forEach((name, i) => {
      // a bias is added: + b_Q
      if (i > 0) groupNode.append(i === group.length - 1 ? flowArrow(groupNode) : groupItem(name.startsWith('b_') ? '+' : step.separator || '·'));
      const view = createMatrixView({
        lang, name, ...catalog[name], decimals: ctx.decimals, interactive: explainable(name),
        onSelect: (n, r, c, cell) => select(n, r, c, true, cell),
      });
      views.push(view);
      watch(view.element, li);
      groupNode.append(view.element);
    });
    body.append(groupNode);
  }
  if (groups.length > 0) li.append(body, guessPanel.element, blanksPanel.element);
  // the notes and extra views of a step with blanks would give them away: they wait
  const withBlanks = () => hasBlanks(current, step.id === 'heads' ? Object.values(MATRIX_NAMES) : names);
  if (interactiveNames.length > 0) {
    work.append(el('p', 'work-hint', t('workHint', { names: interactiveNames.join(', ') })));
    li.append(flowNote, work, checker.element);
  }
  // The notes before the matrices (leads) and the notes, legends and views
  // after them (extras) are built again on each update, except one that gives
  // back the node it made before (extra(ctx, previous)): updated in place (the
  // comparison's matrices) or the same (kept), it stays where it is.
  const leadsAt = li.querySelector('.plain').nextSibling;
  let leads = [];
  let keys = []; // the colour keys, right under the matrices
  let extras = []; // [{extra, node}]
  // The nodes of `made` for the step now, in order before `at` (null: the end); those of `was` not kept, removed.
  // partial: one out of view stays as it was (skipped: then true).
  let skipped = false;
  const place = (made, was, at, partial) => {
    const before = new Map(was.map(({ extra, node }) => [extra, node]));
    const make = (extra) => {
      const carried = !before.has(extra) && extra.carried ? rendered.get(replacing)?.extra(extra) || null : null;
      const previous = before.get(extra) || carried;
      if (partial && previous && near.get(previous) === false) {
        skipped = true;
        return previous;
      }
      const node = extra(current, previous);
      if (node && node === carried) unwatch(node, replacing); // (watched for this step now)
      if (node && (node !== previous || node === carried)) watch(node, li);
      return node;
    };
    const after = (made || []).map((extra) => ({ extra, node: make(extra) })).filter(({ node }) => node);
    for (const { node } of was) {
      if (after.some((kept) => kept.node === node)) continue;
      node.remove();
      unwatch(node, li);
    }
    after.forEach(({ node }, i) => {
      if (node.parentNode === li) return;
      const next = after.slice(i + 1).find((kept) => kept.node.parentNode === li);
      li.insertBefore(node, next ? next.node : at);
    });
    return after;
  };
  const renderExtras = (partial = false) => {
    const blanks = withBlanks();
    leads = place(blanks ? [] : step.leads, leads, leadsAt, partial);
    const keysAt = flowNote.parentNode === li ? flowNote : extras.find(({ node }) => node.parentNode === li)?.node || null;
    keys = place([colourKeysOf(step)], keys, keysAt, partial);
    extras = place(blanks ? [] : step.extras, extras, null, partial);
  };
  renderExtras();
  // The cell kept from before, else one of the result at the row and column left: marked, then played once on screen.
  const markedCell = () => {
    const mark = own.find((m) => m.kind === 'selected');
    return mark ? { name: mark.m, r: mark.r, c: mark.c } : null;
  };
  function arrive(from) {
    if (withBlanks()) return; // its flight would show a blank's number
    const kept = markedCell();
    const cell = kept || arrivalCell(groups, catalog, from);
    if (!cell) return;
    if (!kept) markCell(cell.name, cell.r, cell.c);
    const text = ghostText(step, current, cell);
    requestAnimationFrame(() => {
      if (li.isConnected) playFlow(li, text);
    });
  }
  let shownPanel = null;
  // the learner's panel draws the weights, the lines and every matrix of the chain: it waits for
  // an exercise's blanks, whatever matrix they are in (a note says so)
  const waiting = el('p', 'step-note exercise-wait');
  const showPanel = () => {
    const wait = Boolean(step.panel) && hasBlanks(current, Object.values(MATRIX_NAMES));
    const panel = !step.panel ? null : wait ? waiting : step.panel(current);
    if (wait) waiting.textContent = t('exercisePanelWaits');
    if (panel === shownPanel && (!panel || panel.parentNode === li)) return;
    shownPanel?.remove();
    shownPanel = panel;
    if (panel) li.append(panel);
  };
  showPanel();
  const showSelection = (chosen) => {
    if (!chosen || !catalog[chosen.name] || !names.includes(chosen.name)) return;
    const { data } = catalog[chosen.name];
    if (chosen.r < data.length && chosen.c < data[0].length) select(chosen.name, chosen.r, chosen.c);
  };
  blanksPanel.update(current, names);
  guessPanel.update(current, step);
  showSelection(selection);
  if (arrival) arrive(arrival.from);
  watch(li);
  rendered.set(li, {
    key: layoutKey(step, index, total, ctx, catalog, names),
    pending: null,
    // partial: the matrices and extras out of view are left; returns whether any was.
    update(next, nextCatalog, chosen, partial = false) {
      current = next;
      catalog = nextCatalog;
      skipped = false;
      setText(formula, formulaOf(step, current));
      for (const view of views) {
        if (partial && near.get(view.element) === false) skipped = true;
        else if (view.update(catalog[view.name], partial)) skipped = true;
      }
      renderExtras(partial);
      showPanel();
      blanksPanel.update(current, names);
      guessPanel.update(current, step);
      showSelection(chosen);
      return skipped;
    },
    cell: markedCell,
    extra: (made) => extras.find((one) => one.extra === made)?.node || null, // (the node an extra made here)
    hold(on) {
      for (const view of views) view.hold(on);
    },
    // Another step's explained cell: the same numbers marked here, where shown.
    link(marks, text) {
      linked = marks.filter((mark) => names.includes(mark.m)).map((mark) => ({ ...mark, kind: 'linked' }));
      paintMarks();
      setNote(linked.length > 0 ? text : ownNote);
    },
  });
  return li;
}

// The cell a step marks as made (explained, or shown on arrival), {name, r, c}, or null.
export function shownCell(li) {
  const record = li && rendered.get(li);
  return record ? record.cell() : null;
}

// Writes a new result into a step rendered before when its layout is the
// same (see layoutKey); false when it has to be rendered again. defer: a step
// out of view may keep the result for later (see near; a lazy step may always).
export function updateStep(li, step, index, total, given, { selection, defer = false }) {
  const ctx = guessContext(given, step);
  const record = rendered.get(li);
  if (!record) return false;
  const catalog = matrixCatalog(ctx);
  const key = layoutKey(step, index, total, ctx, catalog, step.groups(ctx).flat());
  if (key === null || record.key !== key) return false;
  const later = [ctx, catalog, selection];
  if ((defer || step.lazy) && near.get(li) === false) {
    record.pending = later;
    li.setAttribute('data-pending', '');
    return true;
  }
  const skipped = record.update(ctx, catalog, selection, defer);
  record.pending = skipped ? later : null;
  li.toggleAttribute('data-pending', skipped);
  return true;
}

// What a number becomes on its flight into the cell of an arrival (motion.js):
// a score is divided by √d_k (and T) or masked to −∞, a scaled score exponentiated.
function ghostText(step, ctx, { r, c }) {
  if (step.id === 'softmax') return (text) => `exp(${text})`;
  if (step.id !== 'scale') return (text) => text;
  if (ctx.full.masked && ctx.full.masked[r][c]) return (text) => `${text} → −∞`;
  const { scaleBySqrtDk: scale, temperature, alibi } = ctx.options;
  const shownT = formatCompact(temperature, 8);
  if (alibi) { // (s ÷ √d_k + b) ÷ T
    const sum = (text) => `${[text, ...(scale ? [`√${ctx.result.q[0].length}`] : [])].join(' ÷ ')} + ${formatCompact(ctx.result.bias[r][c], 8)}`;
    return temperature !== 1 ? (text) => `(${sum(text)}) ÷ ${shownT}` : sum;
  }
  const divisors = [...(scale ? [`√${ctx.result.q[0].length}`] : []), ...(temperature !== 1 ? [shownT] : [])];
  return (text) => [text, ...divisors].join(' ÷ ');
}

// The formula line: the projections' and the scale step's depend on the options.
function formulaOf(step, ctx) {
  const t = (key, params) => translate(ctx.lang, key, params);
  // each bias where the head has one: Q = X·W_Q + b_Q
  const biased = (formula, pairs) => pairs.reduce((f, [w, b]) => (ctx.inputs[b] ? f.replace(`·${w}`, `·${w} + ${BIAS_NAMES[b]}`) : f), formula);
  if (step.id === 'project') {
    const { q, kv } = sources(ctx);
    const formula = q.name === 'X' && kv.name === 'X' ? t('stepProjectFormula') : t('stepProjectFormulaFrom', { q: q.name, kv: kv.name });
    return biased(formula, [['W_Q', 'bq'], ['W_K', 'bk'], ['W_V', 'bv']]);
  }
  if (step.id === 'wo') return biased(t('stepWoFormula'), [['W_O', 'bo']]);
  if (step.id !== 'scale') return t(`${step.key}Formula`);
  const { scaleBySqrtDk: scale, temperature, alibi } = ctx.options;
  const divisors = [...(scale ? ['√d_k'] : []), ...(temperature !== 1 ? ['T'] : [])];
  let formula = divisors.length ? `Scaled = Scores / ${divisors.join(' / ')}` : 'Scaled = Scores';
  if (alibi) { // the bias joins before the temperature: (Scores / √d_k + Bias) / T
    const sum = `${scale ? 'Scores / √d_k' : 'Scores'} + Bias`;
    formula = temperature !== 1 ? `Scaled = (${sum}) / T` : `Scaled = ${sum}`;
  }
  return ctx.full.masked ? `${formula}${t('maskFormula')}` : formula;
}
