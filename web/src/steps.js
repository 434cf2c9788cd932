// The guided sequence. Each step names the matrices it shows, in groups
// (operands then result); the page renders one step at a time or all of them.
// A later step (a mask, several heads) is one more entry in STEPS and, if it
// brings a new matrix, one more entry in matrixCatalog.
// ctx = {lang, decimals, tokens, inputs: {x, wq, wk, wv}, result, tutorial}.

import { translate } from './i18n.js';
import { formatNumber } from './format.js';
import { VIRIDIS_STOPS, DIVERGING_STOPS, gradientCss } from './color.js';
import { el } from './dom.js';
import { createMatrixView } from './view.js';
import { createLinesView } from './lines.js';
import { explainCell, EXPLAINABLE, dimLabel } from './work.js';
import { TUTORIAL_PRINTED } from './presets.js';

export const STEPS = [
  { id: 'input', key: 'stepInput', groups: [['X']] },
  { id: 'project', key: 'stepProject', groups: [['X'], ['W_Q', 'Q'], ['W_K', 'K'], ['W_V', 'V']] },
  { id: 'scores', key: 'stepScores', groups: [['Q', 'K', 'Scores']] },
  { id: 'scale', key: 'stepScale', groups: [['Scores', 'Scaled']], extras: [scaleNote, misprint('scaled', 'Scaled')] },
  { id: 'softmax', key: 'stepSoftmax', groups: [['Scaled', 'Weights']], extras: [weightsLegend, linesView, misprint('weights', 'Weights')] },
  { id: 'output', key: 'stepOutput', groups: [['Weights', 'V', 'Output']], extras: [misprint('output', 'Output')] },
];

const dims = (count) => Array.from({ length: count }, (_, i) => dimLabel(i));

// Every matrix a step may show: data, labels and colour kind.
function matrixCatalog(ctx) {
  const { tokens, inputs, result, lang } = ctx;
  const t = (key) => translate(lang, key);
  const byToken = (data, label) => ({ data, label, rowLabels: tokens, colLabels: dims(data[0].length), kind: 'signed' });
  const byDim = (data, label) => ({ data, label, rowLabels: dims(data.length), colLabels: dims(data[0].length), kind: 'signed' });
  const square = (data, label, kind = 'signed') => ({ data, label, rowLabels: tokens, colLabels: tokens, corner: t('queryKeyCorner'), kind });
  return {
    X: byToken(inputs.x, t('labelX')),
    W_Q: byDim(inputs.wq, ''),
    W_K: byDim(inputs.wk, ''),
    W_V: byDim(inputs.wv, ''),
    Q: byToken(result.q, t('labelQ')),
    K: byToken(result.k, t('labelK')),
    V: byToken(result.v, t('labelV')),
    Scores: square(result.scores, ''),
    Scaled: square(result.scaled, ''),
    Weights: { ...square(result.weights, '', 'weights'), rowSums: true },
    Output: byToken(result.output, ''),
  };
}

function groupItem(symbol) {
  const node = el('span', 'op', symbol);
  node.setAttribute('aria-hidden', 'true');
  return node;
}

// Renders one step as an <li>. `selection` ({name, r, c} or null) is the
// cell whose arithmetic is shown; onSelection(selection) keeps it across renders.
export function renderStep(step, index, ctx, { selection, onSelection }) {
  const { lang } = ctx;
  const t = (key, params) => translate(lang, key, params);
  const li = el('li', 'step');
  li.id = `step-${index + 1}`;
  li.dataset.step = step.id;
  const header = el('header', 'step-head');
  header.append(
    el('span', 'step-num', t('stepOf', { n: index + 1, total: STEPS.length })),
    el('h3', 'step-title', t(`${step.key}Title`)),
  );
  li.append(header, el('p', 'formula', t(`${step.key}Formula`)), el('p', 'plain', t(`${step.key}Plain`)));

  const catalog = matrixCatalog(ctx);
  const views = [];
  const work = el('div', 'work');
  work.setAttribute('aria-live', 'polite');
  const interactiveNames = step.groups.flat().filter((name) => EXPLAINABLE.includes(name));

  const select = (name, r, c) => {
    const { lines, marks } = explainCell(name, r, c, ctx);
    const own = [...marks, { m: name, r, c, kind: 'selected' }];
    for (const view of views) view.setMarks(own.filter((mark) => mark.m === view.name));
    work.replaceChildren(...lines.map((line, i) => el('p', i === 0 ? 'work-main' : 'work-line', line)));
    onSelection({ name, r, c });
  };

  const body = el('div', 'step-body');
  for (const group of step.groups) {
    const groupNode = el('div', 'step-group');
    group.forEach((name, i) => {
      if (i > 0) groupNode.append(groupItem(i === group.length - 1 ? '→' : '·'));
      const view = createMatrixView({
        lang, name, ...catalog[name], decimals: ctx.decimals,
        interactive: EXPLAINABLE.includes(name), onSelect: select,
      });
      views.push(view);
      groupNode.append(view.element);
    });
    body.append(groupNode);
  }
  li.append(body);
  if (interactiveNames.length > 0) {
    work.append(el('p', 'work-hint', t('workHint', { names: interactiveNames.join(', ') })));
    li.append(work);
  }
  for (const extra of step.extras || []) {
    const node = extra(ctx);
    if (node) li.append(node);
  }
  if (selection && catalog[selection.name] && step.groups.flat().includes(selection.name)) {
    const { data } = catalog[selection.name];
    if (selection.r < data.length && selection.c < data[0].length) select(selection.name, selection.r, selection.c);
  }
  return li;
}

function scaleNote(ctx) {
  const dk = ctx.inputs.wq[0].length;
  return el('p', 'step-note', translate(ctx.lang, 'scaleNote', { dk, sqrt: formatNumber(Math.sqrt(dk), ctx.decimals) }));
}

function legend(lang, stops, ends, key) {
  const node = el('div', 'legend');
  const bar = el('span', 'legend-bar');
  bar.style.backgroundImage = gradientCss(stops);
  bar.setAttribute('aria-hidden', 'true');
  node.append(el('span', 'legend-end', ends[0]), bar, el('span', 'legend-end', ends[1]), el('span', 'legend-text', translate(lang, key)));
  return node;
}

function weightsLegend(ctx) {
  return legend(ctx.lang, VIRIDIS_STOPS, ['0', '1'], 'legendWeights');
}

export function signedLegend(lang) {
  return legend(lang, DIVERGING_STOPS, ['−', '+'], 'legendSigned');
}

function linesView(ctx) {
  return createLinesView({ lang: ctx.lang, tokens: ctx.tokens, weights: ctx.result.weights, decimals: ctx.decimals });
}

// On the tutorial's inputs: its printed eight-digit values beside the true ones.
function misprint(resultKey, name) {
  return (ctx) => {
    if (!ctx.tutorial) return null;
    const printed = TUTORIAL_PRINTED[resultKey];
    const actual = ctx.result[resultKey];
    const box = el('aside', 'misprint');
    box.append(el('h4', 'misprint-title', translate(ctx.lang, 'misprintTitle')));
    box.append(el('p', 'misprint-text', translate(ctx.lang, `misprint_${resultKey}`)));
    const table = el('table', 'misprint-table');
    const caption = el('caption', '', translate(ctx.lang, 'misprintCaption', { name }));
    const headRow = el('tr');
    headRow.append(el('th', 'corner', ''));
    const colLabels = resultKey === 'output' ? dims(actual[0].length) : ctx.tokens;
    for (const label of colLabels) {
      const th = el('th', '', label);
      th.scope = 'col';
      headRow.append(th);
    }
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
