// The notes a step shows by its matrices (views/steps.js, each an extra of
// extras.js: extra(ctx, previous) → a node or null): ALiBi's slope, the
// scale and temperature, the mask's legend and its fully masked rows, the
// positional encoding, and the comparison before and after a change.

import { translate } from '../ui/i18n.js';
import { formatNumber, formatCompact } from '../ui/format.js';
import { el } from '../ui/dom.js';
import { createMatrixView } from './view.js';
import { temperatureNote } from './hints.js';
import { note } from './extras.js';
import { optionByKey } from '../state/options.js';

// ALiBi's slope of the head on screen, said with its formula.
export function biasNote(ctx) {
  const total = ctx.options.heads;
  const n = (ctx.head || 0) + 1;
  const m = formatNumber(2 ** ((-8 * n) / total), ctx.decimals);
  return note(ctx, ctx.options.cross ? 'biasNoteCross' : 'biasNote', { n, total, m });
}

export function scaleNote(ctx) {
  const dk = ctx.inputs.wq[0].length;
  const { scaleBySqrtDk: scale, temperature } = ctx.options;
  const nodes = [];
  if (scale) nodes.push(note(ctx, 'scaleNote', { dk, sqrt: formatNumber(Math.sqrt(dk), ctx.decimals) }));
  else nodes.push(note(ctx, 'unscaledNote', { dk }));
  if (temperature !== 1) nodes.push(el('p', 'step-note', temperatureNote(ctx)));
  if (nodes.length === 1) return nodes[0];
  const box = el('div', 'step-notes');
  box.append(...nodes);
  return box;
}

function maskLegend(ctx, key) {
  const node = el('p', 'step-note mask-note');
  const swatch = el('span', 'mask-swatch');
  swatch.setAttribute('aria-hidden', 'true');
  node.append(swatch, el('span', '', translate(ctx.lang, key)));
  return node;
}

export function maskNote(ctx) {
  if (!ctx.full.masked) return null;
  return maskLegend(ctx, 'maskNoteScaled');
}

export function fullyMaskedNote(ctx) {
  const { full, tokens } = ctx;
  if (!full.masked) return null;
  const box = el('div', 'step-notes');
  box.append(maskLegend(ctx, 'maskNoteWeights'));
  const rows = tokens.filter((_, i) => full.fullyMasked[i]);
  if (rows.length > 0) {
    const warn = el('p', 'fully-masked', translate(ctx.lang, 'fullyMaskedNote', { list: rows.join(', '), n: rows.length }));
    warn.setAttribute('role', 'note');
    box.append(warn);
  }
  return box;
}

export function peNote(ctx) {
  return note(ctx, 'peNote', { n: ctx.inputs.x[0].length });
}

// Before and after a change of scaling, temperature or a mask, and after − before.
// The comparison of the update before (previous, in a step of the same layout:
// the same tokens, language and decimals) gets the new numbers in place, so
// that a dragged slider does not build three matrices again on every move.
const comparisons = new WeakMap(); // box → {views, changes, ctx}
export function comparison(ctx, previous) {
  if (!ctx.compare) return null;
  const { lang, tokens, decimals } = ctx;
  const keyTokens = ctx.keyTokens || tokens;
  const t = (key, params) => translate(lang, key, params);
  const { before, after, changes } = ctx.compare;
  const said = changes.map((change) => describeChange(lang, change, tokens, keyTokens)).join('; ');
  const squares = [
    { name: 'Before', data: before.weights, kind: 'weights', masked: before.masked, minus: null },
    { name: 'After', data: after.weights, kind: 'weights', masked: after.masked, minus: null },
    { name: 'Difference', data: after.weights, kind: 'signed', masked: null, minus: before.weights }, // after − before
  ];
  const kept = previous && comparisons.get(previous);
  if (kept) {
    kept.ctx = ctx;
    kept.changes.textContent = said;
    kept.views.forEach((view, i) => view.update(squares[i]));
    return previous;
  }
  const box = el('section', 'compare');
  box.setAttribute('aria-label', t('compareTitle'));
  const head = el('div', 'compare-head');
  const close = el('button', 'button-small compare-close', t('compareClose'));
  close.type = 'button';
  const record = { ctx, changes: el('p', 'compare-changes', said) };
  close.addEventListener('click', (event) => record.ctx.onCloseCompare(event));
  head.append(el('h4', 'compare-title', t('compareTitle')), close);
  record.views = squares.map(({ name, ...square }) => createMatrixView({
    lang, name, ...square, decimals, rowLabels: tokens, colLabels: keyTokens, corner: t('queryKeyCorner'),
    label: t(`compareLabel_${name}`), interactive: false,
  }));
  const body = el('div', 'step-body');
  body.append(...record.views.map((view) => view.element));
  box.append(head, record.changes, body, el('p', 'hint', t('compareHint')));
  comparisons.set(box, record);
  return box;
}

function describeChange(lang, { option, before, after }, tokens, keyTokens) {
  const t = (key, params) => translate(lang, key, params);
  const onOff = (v) => t(v ? 'on' : 'off');
  if (option === 'temperature') return t('changeTemperature', { from: formatCompact(before, 8), to: formatCompact(after, 8) });
  if (option === 'keyPadding') {
    const list = (pads) => pads.map((p, j) => (p ? keyTokens[j] : null)).filter((v) => v !== null).join(', ') || t('none');
    return t('changePadding', { from: list(before), to: list(after) });
  }
  return t(optionByKey(option).labels.change, { from: onOff(before), to: onOff(after) });
}
