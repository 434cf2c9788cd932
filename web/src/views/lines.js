// The weights as lines, like BertViz's head view: every query token on the
// left joined to every key token on the right (the second sentence's in
// cross-attention), each line as strong as its weight. Pointing at (or focusing) a query token shows only its row, with
// the weights written next to the keys.

import { translate } from '../ui/i18n.js';
import { formatNumber } from '../ui/format.js';
import { el, svg, labelNode } from '../ui/dom.js';

export const LINES_LIMIT = 40;
const ROW = 28; // px per token; the CSS gives the labels the same height
const FADE_MS = 200; // a row let go fades out over 0.15 s (style.css)

const updates = new WeakMap(); // a view's element → its update(weights)

// New weights of the same shape into a view createLinesView made (the same
// tokens, language and decimals), in place: a dragged slider moves its lines
// without building them again. False when it cannot (it shows no lines).
export function updateLinesView(element, weights) {
  const update = updates.get(element);
  if (!update) return false;
  update(weights);
  return true;
}

export function createLinesView({ lang, tokens, keyTokens = tokens, weights, decimals }) {
  const n = tokens.length;
  const m = keyTokens.length;
  const element = el('div', 'lines-view');
  element.append(el('h4', 'lines-title', translate(lang, 'linesTitle')));
  if (Math.max(n, m) > LINES_LIMIT) {
    element.append(el('p', 'hint', translate(lang, 'linesTooMany', { max: LINES_LIMIT })));
    return element;
  }
  element.append(el('p', 'hint', translate(lang, 'linesHint')));

  const queries = el('ol', 'lines-tokens lines-queries');
  queries.setAttribute('aria-label', translate(lang, 'linesQueries'));
  const keys = el('ol', 'lines-tokens lines-keys');
  keys.setAttribute('aria-label', translate(lang, 'linesKeys'));
  const width = 160;
  const height = Math.max(n, m) * ROW;
  const drawing = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, 'aria-hidden': 'true', class: 'lines-svg' });
  let shown = weights;
  const lines = [];
  const strokes = (w) => [w.toFixed(4), (0.5 + 4 * w).toFixed(2)];
  const drawn = []; // [opacity, width] of each line, as written
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const [opacity, strokeWidth] = strokes(weights[i][j]);
      const line = svg('line', {
        x1: 0, y1: (i + 0.5) * ROW, x2: width, y2: (j + 0.5) * ROW,
        'stroke-opacity': opacity, 'stroke-width': strokeWidth, 'data-q': i, 'data-k': j, class: 'weight-line',
      });
      drawing.append(line);
      lines.push(line);
      drawn.push([opacity, strokeWidth]);
    }
  }
  const keyValues = [];
  tokens.forEach((token, i) => {
    const li = el('li');
    const button = labelNode('button', 'lines-token', token);
    button.type = 'button';
    button.dataset.q = i;
    button.setAttribute('aria-label', translate(lang, 'linesFocus', { token }));
    li.append(button);
    queries.append(li);
  });
  keyTokens.forEach((token) => {
    const key = el('li', 'lines-key');
    const value = el('span', 'lines-weight');
    keyValues.push(value);
    key.append(labelNode('span', 'lines-key-text', token), value);
    keys.append(key);
  });
  const readout = el('p', 'lines-readout');
  readout.setAttribute('aria-live', 'polite');

  let focused = null;
  let unfocusing = 0; // the timer that ends the fade out of a row let go (style.css)
  const focusRow = (i) => {
    if (focused === i) return;
    const leaving = focused !== null && i === null;
    clearTimeout(unfocusing);
    element.classList.toggle('unfocusing', leaving);
    if (leaving) unfocusing = setTimeout(() => element.classList.remove('unfocusing'), FADE_MS);
    focused = i;
    element.classList.toggle('has-focus', i !== null);
    for (const line of lines) line.classList.toggle('active', Number(line.dataset.q) === i);
    for (const button of queries.querySelectorAll('button')) button.classList.toggle('active', Number(button.dataset.q) === i);
    keyValues.forEach((node, j) => { node.textContent = i === null ? '' : formatNumber(shown[i][j], decimals); });
    readout.textContent = i === null ? '' : translate(lang, 'linesReadout', {
      token: tokens[i],
      list: keyTokens.map((t, j) => `${t} ${formatNumber(shown[i][j], decimals)}`).join(', '),
    });
  };
  updates.set(element, (next) => {
    shown = next;
    lines.forEach((line, k) => {
      const [opacity, strokeWidth] = strokes(next[Math.floor(k / m)][k % m]);
      if (drawn[k][0] !== opacity) line.setAttribute('stroke-opacity', (drawn[k][0] = opacity));
      if (drawn[k][1] !== strokeWidth) line.setAttribute('stroke-width', (drawn[k][1] = strokeWidth));
    });
    if (focused === null) return;
    const row = focused;
    focused = null;
    focusRow(row); // its numbers written again
  });
  const rowOf = (target) => (target instanceof Element && target.closest('button[data-q]') ? Number(target.closest('button[data-q]').dataset.q) : null);
  queries.addEventListener('mouseover', (event) => {
    const i = rowOf(event.target);
    if (i !== null) focusRow(i);
  });
  queries.addEventListener('focusin', (event) => focusRow(rowOf(event.target)));
  queries.addEventListener('click', (event) => focusRow(rowOf(event.target)));
  element.addEventListener('mouseleave', () => {
    if (!element.contains(document.activeElement)) focusRow(null);
  });
  element.addEventListener('focusout', (event) => {
    if (!element.contains(event.relatedTarget)) focusRow(null);
  });

  const figure = el('div', 'lines-figure');
  figure.append(queries, drawing, keys);
  element.append(figure, readout);
  return element;
}
