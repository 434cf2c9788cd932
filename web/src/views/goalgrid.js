// The learn step's goal grid (learn.js). settings() gives the learner's settings
// (its target), changeSettings(change) changes them; refs.fillGrid is set to
// write a target into the cells.

import { translate } from '../ui/i18n.js';
import { formatCompact } from '../ui/format.js';
import { cellColor, rgbCss, textColorFor } from '../ui/color.js';
import { el, headerRow, labelNode, watchMore, rovingGrid } from '../ui/dom.js';
import { pickCell, addWeight, clearRow } from '../state/learnmath.js';

// The goal on a grid: one row per query, one column per key, each row a
// distribution (or free). A click or Enter/Space makes the cell its row's
// target; Shift+click or + adds weight to it; Delete clears the row;
// dragging paints one cell per row; the arrow keys move.
export function goalGrid(ctx, refs, { settings, changeSettings }) {
  const t = (key, params) => translate(ctx.lang, key, params);
  const table = el('table', 'matrix weights goal-grid');
  table.setAttribute('role', 'grid');
  table.setAttribute('aria-label', t('learnGridLabel'));
  const caption = el('caption');
  caption.append(el('span', 'matrix-name', t('learnGoalName')), el('span', 'matrix-label', t('learnGridCaption')));
  const head = el('thead');
  head.append(headerRow(ctx.keyTokens, { corner: t('queryKeyCorner'), className: 'col-label' }));
  const body = el('tbody');
  const cells = ctx.tokens.map((token, r) => {
    const tr = el('tr');
    const th = labelNode('th', 'row-label', token);
    th.scope = 'row';
    tr.append(th);
    const row = ctx.keyTokens.map((_, c) => {
      const td = el('td', 'num goal-cell');
      td.setAttribute('role', 'gridcell');
      td.dataset.r = r;
      td.dataset.c = c;
      td.tabIndex = r === 0 && c === 0 ? 0 : -1;
      tr.append(td);
      return td;
    });
    body.append(tr);
    return row;
  });
  table.append(caption, head, body);
  const paint = (r, c, add) => {
    const s = settings();
    changeSettings({ goal: 'custom', target: add ? addWeight(s.target, r, c) : pickCell(s.target, r, c) });
  };
  const cellOf = (target) => (target instanceof Element ? target.closest('td[data-r]') : null);
  let dragging = false;
  table.addEventListener('pointerdown', (event) => {
    const td = cellOf(event.target);
    if (!td) return;
    event.preventDefault();
    dragging = !event.shiftKey;
    td.focus();
    paint(Number(td.dataset.r), Number(td.dataset.c), event.shiftKey);
  });
  table.addEventListener('pointerover', (event) => {
    const td = cellOf(event.target);
    if (!dragging || !td || !(event.buttons & 1)) return;
    const r = Number(td.dataset.r);
    const c = Number(td.dataset.c);
    if (settings().target[r][c] !== 1) paint(r, c, false);
  });
  const endDrag = () => { dragging = false; };
  table.addEventListener('pointerup', endDrag);
  table.addEventListener('pointerleave', endDrag);
  const roving = rovingGrid(cells);
  table.addEventListener('keydown', (event) => {
    const td = cellOf(event.target);
    if (!td) return;
    const r = Number(td.dataset.r);
    const c = Number(td.dataset.c);
    // the arrows move the focus (roving: the cell they reach is the one Tab comes back to)
    if (event.key === 'Enter' || event.key === ' ') paint(r, c, false);
    else if (event.key === '+' || event.key === '=') paint(r, c, true);
    else if (event.key === 'Delete' || event.key === 'Backspace') changeSettings({ goal: 'custom', target: clearRow(settings().target, r) });
    else if (!roving.moveFocus(r, c, event.key)) return;
    event.preventDefault();
    event.stopPropagation();
  });
  let filled = null; // the target the cells show, as JSON
  const fill = (target) => {
    const key = JSON.stringify(target);
    if (key === filled) return;
    filled = key;
    target.forEach((row, r) => {
      const free = row.every((v) => v === 0);
      row.forEach((v, c) => {
        const td = cells[r][c];
        const text = free ? '·' : v === 0 ? '' : formatCompact(v, 2);
        if (td.textContent !== text) td.textContent = text;
        const color = !free && v > 0 ? cellColor('weights', v, 1) : null;
        td.style.backgroundColor = color ? rgbCss(color) : '';
        td.style.color = color ? textColorFor(color) : '';
        td.classList.toggle('free', free);
        td.setAttribute('aria-label', t(free ? 'learnCellFree' : 'learnCell', {
          query: ctx.tokens[r], key: ctx.keyTokens[c], value: formatCompact(v, 4),
        }));
      });
    });
  };
  refs.fillGrid = fill;
  return { element: scrollBox(table, t('learnGridLabel')) };
}

function scrollBox(table, label) {
  const box = el('div', 'matrix-view matrix-scroll');
  box.setAttribute('role', 'group'); // as view.js's matrices: no landmark
  box.setAttribute('aria-label', label);
  box.append(table);
  watchMore(box);
  return box;
}
