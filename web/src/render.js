// Builds the DOM for the tokens and the six steps. Everything is made with
// createElement/textContent: user text never goes through HTML parsing.

import { translate } from './i18n.js';
import { formatNumber, fullNumber } from './format.js';
import { viridis, textColorFor, rgbCss } from './color.js';

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const dimensionLabels = (count) => Array.from({ length: count }, (_, i) => `d${i + 1}`);

function numberCell(value) {
  const td = el('td', 'num', formatNumber(value));
  td.title = fullNumber(value);
  return td;
}

// A matrix as a real table: <th> for row and column labels, the name and
// shape as its caption, inside a box that scrolls horizontally on its own.
// Options: heat (colour cells by value in [0, 1]) and rowSums (extra column).
export function matrixTable(lang, { name, data, rowLabels, colLabels, corner = '', heat = false, rowSums = false }) {
  const rows = data.length;
  const cols = rows > 0 ? data[0].length : 0;
  const table = el('table', heat ? 'matrix heat' : 'matrix');

  const caption = el('caption');
  caption.append(el('span', 'matrix-name', name), el('span', 'matrix-shape', `${rows} × ${cols}`));
  table.append(caption);

  const head = el('thead');
  const headRow = el('tr');
  headRow.append(el('th', 'corner', corner));
  for (const label of colLabels) {
    const th = el('th', 'col-label', label);
    th.scope = 'col';
    headRow.append(th);
  }
  if (rowSums) {
    const th = el('th', 'col-label sum', translate(lang, 'rowSum'));
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);

  const body = el('tbody');
  data.forEach((row, r) => {
    const tr = el('tr');
    const th = el('th', 'row-label', rowLabels[r]);
    th.scope = 'row';
    tr.append(th);
    for (const value of row) {
      const td = numberCell(value);
      if (heat) {
        const background = viridis(value);
        td.style.backgroundColor = rgbCss(background);
        td.style.color = textColorFor(background);
      }
      tr.append(td);
    }
    if (rowSums) {
      const sum = numberCell(row.reduce((a, b) => a + b, 0));
      sum.classList.add('sum');
      tr.append(sum);
    }
    body.append(tr);
  });
  table.append(head, body);

  const scroller = el('div', 'matrix-scroll');
  // Focusable so that keyboard users can scroll a wide matrix.
  scroller.tabIndex = 0;
  scroller.setAttribute('role', 'region');
  scroller.setAttribute('aria-label', translate(lang, 'matrixCaption', { name, rows, cols }));
  scroller.append(table);
  return scroller;
}

function step(lang, n, { title, formula, plain, body }) {
  const li = el('li', 'step');
  li.id = `step-${n}`;
  const header = el('header', 'step-head');
  header.append(el('span', 'step-num', translate(lang, 'stepLabel', { n })), el('h3', 'step-title', title));
  li.append(header, el('p', 'formula', formula), el('p', 'plain', plain));
  const matrices = el('div', 'step-body');
  matrices.append(...body);
  li.append(matrices);
  return li;
}

function arrow() {
  const node = el('span', 'arrow', '↓');
  node.setAttribute('aria-hidden', 'true');
  return node;
}

function projection(lang, resultName, weightsName, weights, result, tokens) {
  const group = el('div', 'projection');
  group.append(el('p', 'projection-formula', translate(lang, 'projection', { result: resultName, weights: weightsName })));
  group.append(
    matrixTable(lang, {
      name: weightsName, data: weights,
      rowLabels: dimensionLabels(weights.length), colLabels: dimensionLabels(weights[0].length),
    }),
    arrow(),
    matrixTable(lang, {
      name: resultName, data: result,
      rowLabels: tokens, colLabels: dimensionLabels(result[0].length),
    }),
  );
  return group;
}

function heatLegend(lang) {
  const legend = el('div', 'legend');
  const bar = el('span', 'legend-bar');
  bar.setAttribute('aria-hidden', 'true');
  legend.append(el('span', 'legend-end', '0'), bar, el('span', 'legend-end', '1'), el('span', 'legend-text', translate(lang, 'heatLegend')));
  return legend;
}

// Renders all steps of one computation: {tokens, inputs: {x, wq, wk, wv}, result}.
export function renderSteps(container, lang, { tokens, inputs, result }) {
  const t = (key, params) => translate(lang, key, params);
  const dk = inputs.wq[0].length;
  const byToken = (name, data, extra = {}) => matrixTable(lang, {
    name, data, rowLabels: tokens, colLabels: dimensionLabels(data[0].length), ...extra,
  });
  const tokenByToken = (name, data, extra = {}) => byToken(name, data, {
    colLabels: tokens, corner: t('queryKeyCorner'), ...extra,
  });

  const scaleNote = el('p', 'step-note', t('step4Dk', { dk, sqrt: formatNumber(Math.sqrt(dk)) }));

  container.replaceChildren(
    step(lang, 1, {
      title: t('step1Title'), formula: t('step1Formula'), plain: t('step1Plain'),
      body: [byToken('X', inputs.x)],
    }),
    step(lang, 2, {
      title: t('step2Title'), formula: t('step2Formula'), plain: t('step2Plain'),
      body: [
        projection(lang, 'Q', 'W_Q', inputs.wq, result.q, tokens),
        projection(lang, 'K', 'W_K', inputs.wk, result.k, tokens),
        projection(lang, 'V', 'W_V', inputs.wv, result.v, tokens),
      ],
    }),
    step(lang, 3, {
      title: t('step3Title'), formula: t('step3Formula'), plain: t('step3Plain'),
      body: [tokenByToken('Scores', result.scores)],
    }),
    step(lang, 4, {
      title: t('step4Title'), formula: t('step4Formula'), plain: t('step4Plain'),
      body: [scaleNote, tokenByToken('Scaled', result.scaled)],
    }),
    step(lang, 5, {
      title: t('step5Title'), formula: t('step5Formula'), plain: t('step5Plain'),
      body: [tokenByToken('Weights', result.weights, { heat: true, rowSums: true }), heatLegend(lang)],
    }),
    step(lang, 6, {
      title: t('step6Title'), formula: t('step6Formula'), plain: t('step6Plain'),
      body: [byToken('Output', result.output)],
    }),
  );
}

export function renderTokens(list, tokens) {
  list.replaceChildren(...tokens.map((token, i) => {
    const li = el('li', 'token');
    li.append(el('span', 'token-index', String(i + 1)), el('span', 'token-text', token));
    return li;
  }));
}

// The row-label gutter beside X's text area: line i shows token i, so the
// reader sees which vector belongs to which token. Lines beyond the tokens
// (or tokens beyond the lines) are marked so a mismatch is visible.
export function renderGutter(gutter, tokens, lineCount) {
  const count = Math.max(tokens.length, lineCount);
  gutter.replaceChildren(...Array.from({ length: count }, (_, i) => {
    const label = tokens[i] !== undefined ? tokens[i] : '?';
    return el('li', i < tokens.length && i < lineCount ? 'gutter-line' : 'gutter-line mismatch', label);
  }));
}
