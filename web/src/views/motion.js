// Numbers that move: on arriving at a step, the numbers that make one cell of
// its result fly into that cell (a row of Q and a row of K into a score, a row
// of weights and a column of V into an output); and the words that say which
// numbers are highlighted, "Q row 1 (我) and K row 2 (爱) → Scores[我, 爱]".
// The highlights themselves are the views' marks (view.js: mark-feed on the
// sources, mark-selected on the cell); this module only animates them, with
// the Web Animations API on transform and opacity alone. With
// prefers-reduced-motion: reduce nothing moves and the marks stay the same.

import { translate } from '../ui/i18n.js';
import { excerpt } from '../ui/quote.js';
import { explainable } from './work.js';
import { el, LABEL_CHARS } from '../ui/dom.js';

// A number's flight, the spread of the flights' starts, and the cell's light-up after them: 700 ms in all.
const FLIGHT_MS = 520;
const SPREAD_MS = 180;
const LIGHT_MS = 320;
const LIGHT_DELAY_MS = FLIGHT_MS + SPREAD_MS - LIGHT_MS;

const reduced = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

// The cell a step's arrival shows being made: in its first result (the last
// matrix of the first group with operands), on the row and column of the cell
// explained in the step before when they fit (the row goes on), else [0, 0].
export function arrivalCell(groups, catalog, from) {
  const group = groups.find((names) => names.length > 1 && explainable(names[names.length - 1]));
  if (!group) return null;
  const name = group[group.length - 1];
  const { data } = catalog[name];
  const fit = (i, count) => (Number.isInteger(i) && i < count ? i : 0);
  return { name, r: fit(from?.r, data.length), c: fit(from?.c, data[0].length) };
}

// "Q row 1 (我)", "V column 2 (d2)", "Scores[我, 爱]": what a mark covers, by its matrix's labels.
function markText(lang, { m, r, c }, catalog) {
  const { rowLabels, colLabels } = catalog[m];
  const label = (text) => excerpt(String(text), LABEL_CHARS);
  if (c === undefined) return translate(lang, 'flowRow', { name: m, n: r + 1, label: label(rowLabels[r]) });
  if (r === undefined) return translate(lang, 'flowColumn', { name: m, n: c + 1, label: label(colLabels[c]) });
  return `${m}[${label(rowLabels[r])}, ${label(colLabels[c])}]`;
}

// The sentence under a step's matrices for marks = explainCell's marks of
// `cell`: its sources (the row maximum of a softmax is not one) → the cell.
export function describeFlow(lang, marks, cell, catalog) {
  const sources = marks.filter((mark) => mark.kind !== 'max').map((mark) => markText(lang, mark, catalog));
  const target = markText(lang, { m: cell.name, r: cell.r, c: cell.c }, catalog);
  if (sources.length === 0) return target;
  const key = ['flowOne', 'flowTwo', 'flowThree'][Math.min(sources.length, 3) - 1];
  return translate(lang, key, { a: sources[0], b: sources[1], c: sources[2], target });
}

// Plays a step's arrival once its marks are painted: each source number
// (td.mark-feed) flies as a copy (ghostText(its text)) into the cell
// (td.mark-selected), which then lights up. When a heatmap takes part (more
// than TABLE_LIMIT rows or columns) no number flies: its marked rows and
// cells (a few boxes) fade in instead. Returns the animations started.
export function playFlow(li, ghostText) {
  if (reduced()) return [];
  const sources = [...li.querySelectorAll('td.mark-feed')];
  const target = li.querySelector('td.mark-selected');
  const boxes = [...li.querySelectorAll('.heat-mark')];
  const layer = el('div', 'flow-layer');
  layer.setAttribute('aria-hidden', 'true');
  li.append(layer);
  // read every position first, then write: one layout for the whole flight
  const origin = layer.getBoundingClientRect();
  const to = target && target.getBoundingClientRect();
  const from = boxes.length > 0 || !to ? [] : sources.map((td) => [td.textContent, td.getBoundingClientRect()]);
  const ghosts = from.map(([text, rect]) => {
    const ghost = el('span', 'flow-ghost', ghostText(text));
    ghost.style.minWidth = `${rect.width}px`;
    ghost.style.height = `${rect.height}px`;
    layer.append(ghost);
    return ghost;
  });
  // a ghost may be wider than its cell (÷ √d_k): all measured at once, centred on the cell
  const widths = ghosts.map((ghost) => ghost.offsetWidth);
  const animations = ghosts.map((ghost, i) => {
    const rect = from[i][1];
    const x0 = rect.left + rect.width / 2 - origin.left - widths[i] / 2;
    const y0 = rect.top - origin.top;
    const x1 = to.left + to.width / 2 - origin.left - widths[i] / 2;
    const y1 = to.top + to.height / 2 - origin.top - rect.height / 2;
    return ghost.animate([
      { transform: `translate(${x0}px, ${y0}px) scale(1)`, opacity: 0.95 },
      { transform: `translate(${(x0 + x1) / 2}px, ${(y0 + y1) / 2}px) scale(0.9)`, opacity: 0.95, offset: 0.6 },
      { transform: `translate(${x1}px, ${y1}px) scale(0.6)`, opacity: 0 },
    ], { duration: FLIGHT_MS, delay: ghosts.length > 1 ? (i * SPREAD_MS) / (ghosts.length - 1) : 0, easing: 'ease-in-out', fill: 'backwards' });
  });
  if (to) {
    const ring = el('span', 'flow-ring');
    Object.assign(ring.style, { width: `${to.width}px`, height: `${to.height}px` });
    layer.append(ring);
    const at = `translate(${to.left - origin.left}px, ${to.top - origin.top}px)`;
    animations.push(ring.animate([
      { transform: `${at} scale(1.6)`, opacity: 0 },
      { transform: `${at} scale(1)`, opacity: 1, offset: 0.7 },
      { transform: `${at} scale(1)`, opacity: 0 },
    ], { duration: LIGHT_MS, delay: ghosts.length > 0 ? LIGHT_DELAY_MS : 0, easing: 'ease-out', fill: 'backwards' }));
  }
  for (const box of boxes) {
    animations.push(box.animate([{ opacity: 0 }, { opacity: 1, offset: 0.4 }, { opacity: 0.3, offset: 0.7 }, { opacity: 1 }], { duration: FLIGHT_MS + SPREAD_MS }));
  }
  const done = () => layer.remove();
  Promise.all(animations.map((animation) => animation.finished)).then(done, done);
  return animations;
}
