// A step's extras that are the same whatever the options: the colour keys under
// its matrices, the preset's note, the near-even weights' note, all heads' grid,
// the lines view and the tutorial's misprints (steps.js places them), and kept(),
// which keeps a note on the page while it reads the same.

import { translate } from '../ui/i18n.js';
import { formatNumber } from '../ui/format.js';
import { VIRIDIS_STOPS, DIVERGING_STOPS, gradientCss } from '../ui/color.js';
import { el, headerRow } from '../ui/dom.js';
import { dimLabels } from '../ui/labels.js';
import { quotedTokens } from '../ui/quote.js';
import { TUTORIAL_PRINTED } from '../state/presets.js';
import { matrixCatalog } from './catalog.js';
import { headTile } from './heatmap.js';
import { createLinesView, updateLinesView } from './lines.js';
import { presetHint } from './hints.js';

// A note of text only, built again on each update: the one on the page stays
// when it reads the same (a drag's every move would otherwise lay it out again).
export function kept(make) {
  return (ctx, previous) => {
    const node = make(ctx);
    return previous && node && previous.isEqualNode(node) ? previous : node;
  };
}

export function note(ctx, key, params) {
  return el('p', 'step-note', translate(ctx.lang, key, params));
}

// A colour scale: its ends, the gradient and what it means (steps, and learn.js's heatmaps).
export function legend(lang, stops, ends, key, params = {}) {
  const node = el('div', 'legend');
  const bar = el('span', 'legend-bar');
  bar.style.backgroundImage = gradientCss(stops);
  bar.setAttribute('aria-hidden', 'true');
  node.append(el('span', 'legend-end', ends[0]), bar, el('span', 'legend-end', ends[1]), el('span', 'legend-text', translate(lang, key, params)));
  return node;
}

// The colour keys of a step's matrices, right under them: one for each way of
// colouring (signed: blue–white–red, each matrix to its own largest; the
// weights: viridis on 0–1), naming the matrices it colours. One extra per step
// (its identity kept across renders, as place() in renderStep needs).
const colourKeys = new WeakMap(); // step → its extra
export function colourKeysOf(step) {
  if (!colourKeys.has(step)) {
    colourKeys.set(step, kept((ctx) => {
      const catalog = matrixCatalog(ctx);
      const names = [...new Set(step.groups(ctx).flat())];
      const of = (kind) => names.filter((name) => catalog[name].kind === kind);
      const [signed, weights] = [of('signed'), of('weights')];
      if (signed.length + weights.length === 0) return null;
      const box = el('div', 'step-legends');
      if (signed.length) box.append(legend(ctx.lang, DIVERGING_STOPS, ['−', '+'], 'legendSignedFor', { names: signed.join(', ') }));
      if (weights.length) box.append(legend(ctx.lang, VIRIDIS_STOPS, ['0', '1'], 'legendWeightsFor', { names: weights.join(', ') }));
      return box;
    }));
  }
  return colourKeys.get(step);
}

// On a preset: what its weights on screen show (hints.js).
export function presetNote(ctx) {
  const hint = presetHint(ctx);
  if (!hint) return null;
  const node = el('p', 'step-note preset-note');
  node.append(el('strong', '', translate(ctx.lang, 'presetNoteTitle')), ' ', hint);
  return node;
}

// Below this ratio of a row's largest weight to its smallest (≈ a spread of
// 0.4 in the scaled scores) a row reads as one colour on the 0–1 scale.
export const NEAR_UNIFORM_RATIO = 1.5;

// Row r's least and largest weight over the keys not masked, and how many those are.
function rowSpread(weights, masked, r) {
  let lo = Infinity;
  let hi = -Infinity;
  let count = 0;
  for (let c = 0; c < weights[r].length; c++) {
    if (masked && masked[r][c]) continue;
    lo = Math.min(lo, weights[r][c]);
    hi = Math.max(hi, weights[r][c]);
    count++;
  }
  return { lo, hi, count };
}

// True when every row with two or more keys not masked is that even, and
// one at least is not exactly even: a lower temperature then spreads them.
export function nearUniform(weights, masked) {
  let some = false;
  let uneven = false;
  for (let r = 0; r < weights.length; r++) {
    const { lo, hi, count } = rowSpread(weights, masked, r);
    if (count < 2) continue;
    if (hi >= NEAR_UNIFORM_RATIO * lo) return false;
    some = true;
    uneven ||= hi > lo;
  }
  return some && uneven;
}

// The rows (of two or more keys not masked) whose weights are exactly even,
// while no row is spread (each that even): their scores are all equal, which
// no temperature changes. Null when some row is spread.
export function evenRows(weights, masked) {
  const even = [];
  for (let r = 0; r < weights.length; r++) {
    const { lo, hi, count } = rowSpread(weights, masked, r);
    if (count < 2) continue;
    if (hi >= NEAR_UNIFORM_RATIO * lo) return null;
    if (hi === lo) even.push(r);
  }
  return even;
}

// Weights all close to even: a lower temperature spreads scores that are close,
// never scores that are equal; those rows are named with what is wrong.
export function nearUniformNote(ctx) {
  const { weights } = ctx.result;
  const even = evenRows(weights, ctx.full.masked);
  let node;
  if (even && even.length > 0) node = note(ctx, 'evenRowsHint', quotedTokens([...new Set(even.map((r) => ctx.tokens[r]))]));
  else if (nearUniform(weights, ctx.full.masked)) node = note(ctx, 'nearUniformHint');
  else return null;
  node.classList.add('near-uniform');
  return node;
}

// Up to this many tokens a side, a head's tile names them along its heatmap.
const TILE_LABELS = 12;

// All heads' weights side by side (BertViz's model view). Each tile: the
// heatmap with the query tokens down its side and the key tokens across its
// top, the weight under the pointer, a tap or the arrow keys read out below
// it, and a button that opens the head in the steps.
export function headsGrid(ctx) {
  const { lang, full, tokens, decimals } = ctx;
  const keyTokens = ctx.keyTokens || tokens;
  const t = (key, params) => translate(lang, key, params);
  const grid = el('div', 'heads-grid');
  const n = full.heads[0].weights.length;
  const m = full.heads[0].weights[0].length;
  const cell = Math.max(1, Math.min(32, Math.floor(160 / Math.max(n, m))));
  const labelled = Math.max(n, m) <= TILE_LABELS;
  const tokenList = (className, list) => {
    const ol = el('ol', className);
    ol.setAttribute('aria-hidden', 'true'); // the readout names the tokens
    for (const token of list) ol.append(el('li', '', token));
    return ol;
  };
  full.heads.forEach((head, h) => {
    const name = t('headN', { n: h + 1 });
    const tile = el('div', 'head-tile');
    tile.dataset.head = h;
    const open = el('button', 'button-small head-open', t('openHead', { n: h + 1 }));
    open.type = 'button';
    open.dataset.head = h;
    if (h === ctx.head) {
      open.setAttribute('aria-current', 'true');
      tile.classList.add('current');
    }
    open.addEventListener('click', () => ctx.onOpenHead(h));
    const top = el('div', 'head-tile-top');
    top.append(el('span', 'head-tile-name', name), open);

    const { box, readout } = headTile({
      weights: head.weights, masked: full.masked, rows: n, cols: m, cell, label: t('headTileLabel', { n: h + 1 }),
      says: (r, c) => t('headTileReadout', { query: tokens[r], key: keyTokens[c], value: formatNumber(head.weights[r][c], decimals) }),
    });

    const map = el('div', 'head-map');
    map.style.setProperty('--cell', `${cell}px`);
    // key tokens of one character stand upright, longer ones are turned to run up the column
    const keysClass = keyTokens.every((token) => Array.from(token).length === 1) ? 'head-keys' : 'head-keys turned';
    if (labelled) map.append(el('span', 'head-corner'), tokenList(keysClass, keyTokens), tokenList('head-queries', tokens));
    else map.classList.add('unlabelled');
    map.append(box);
    tile.append(top, map, readout);
    grid.append(tile);
  });
  const box = el('div', 'heads-view');
  box.append(grid, legend(lang, VIRIDIS_STOPS, ['0', '1'], 'legendWeights'));
  return box;
}

// The lines of the head on screen: the view before (previous) given the new weights in place when
// it was made for the same tokens, language and decimals; so also the one of the step this step
// replaces (carried: steps.js), as after a switch of head (its 1 024 lines at 32 tokens not made again).
const linesKeys = new WeakMap(); // a lines view → what it was made for
export function linesView(ctx, previous) {
  const keyTokens = ctx.keyTokens || ctx.tokens;
  const key = JSON.stringify([ctx.lang, ctx.decimals, ctx.tokens, keyTokens]);
  if (previous && linesKeys.get(previous) === key && updateLinesView(previous, ctx.result.weights)) return previous;
  const node = createLinesView({ lang: ctx.lang, tokens: ctx.tokens, keyTokens, weights: ctx.result.weights, decimals: ctx.decimals });
  linesKeys.set(node, key);
  return node;
}
linesView.carried = true;

// On the tutorial's inputs: its printed eight-digit values beside the true
// ones, folded into one line at the end of the step.
export function misprint(resultKey, name) {
  return (ctx) => {
    if (!ctx.tutorial) return null;
    const printed = TUTORIAL_PRINTED[resultKey];
    const actual = ctx.result[resultKey];
    const box = el('details', 'misprint');
    box.append(el('summary', 'misprint-summary', translate(ctx.lang, 'misprintSummary')));
    box.append(el('p', 'misprint-text', translate(ctx.lang, `misprint_${resultKey}`)));
    const table = el('table', 'misprint-table');
    const caption = el('caption', '', translate(ctx.lang, 'misprintCaption', { name }));
    const headRow = headerRow(resultKey === 'output' ? dimLabels(actual[0].length) : ctx.tokens);
    const head = el('thead');
    head.append(headRow);
    const body = el('tbody');
    printed.forEach((row, r) => {
      const tr = el('tr');
      const th = el('th', '', ctx.tokens[r]);
      th.scope = 'row';
      tr.append(th);
      row.forEach((value, c) => {
        const td = el('td', 'num');
        const trueText = actual[r][c].toFixed(8);
        if (value.toFixed(8) === trueText) {
          td.append(el('span', '', trueText));
        } else {
          td.classList.add('wrong');
          td.append(el('del', '', value.toFixed(8)), el('ins', '', trueText));
        }
        tr.append(td);
      });
      body.append(tr);
    });
    table.append(caption, head, body);
    const scroll = el('div', 'matrix-scroll');
    scroll.append(table);
    box.append(scroll);
    return box;
  };
}
