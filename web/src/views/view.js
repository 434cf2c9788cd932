// A matrix on screen: a real table with header cells while it is small enough
// to read, a canvas heatmap beyond TABLE_LIMIT rows or columns (n = 512 would
// be a quarter of a million DOM cells). Both colour cells by value, report
// the cell under the pointer or keyboard focus through onSelect(name, r, c)
// (a table's cell focused — tapped, clicked or reached with the keys — adds
// its <td>: onSelect(name, r, c, td), the cell to keep in view with its work;
// a heatmap's cell so chosen adds the heatmap's box, its mark inside),
// and show highlight marks from "show the work". update({data, masked},
// partial) writes new numbers of the same shape into the view in place (a
// drag's partial update: a table's cells in sight only; it returns whether
// any was left, see inSightFill). With `minus`
// (rows of the same shape) a view shows data − minus, element by element:
// a table from difference() (variant.js), a heatmap straight from both
// matrices, so that n = 4096 makes no third matrix of 16.7 M numbers.
import { translate } from '../ui/i18n.js';
import { formatNumber, fullNumber } from '../ui/format.js';
import { largestMagnitude, textColorFor, rgbCss, cellColor } from '../ui/color.js';
import { difference } from '../engine/variant.js';
import { el, headerRow, labelNode, setText, watchMore, matrixCaption, rovingGrid } from '../ui/dom.js';
import { TABLE_LIMIT } from '../ui/limits.js';
import { canvasView } from './heatmap.js';

// kind: 'signed' (diverging colours) or 'weights' (sequential, 0 to 1).
// scale (signed, optional; an update may change it): the |value| drawn at full
// colour, for matrices coloured on one scale together (the gradients of "How it
// learns"); by default each matrix's own largest. format(value, decimals)
// (optional): a cell's text, formatNumber's by default.
// interactive: cells can be selected (their arithmetic is shown).
// masked (rows × cols booleans, optional): cells drawn hatched as masked,
// written −∞ (before the softmax) or 0 (after). blanks (a Set of r * cols + c, optional; tables
// only): an exercise's cells still to fill in (blanks.js), written "?" without their number or colour,
// and left out of the signed colour scale (the others' shades would hint at their size).
export function createMatrixView(opts) {
  const rows = opts.data.length;
  const cols = rows > 0 ? opts.data[0].length : 0;
  const large = rows > TABLE_LIMIT || cols > TABLE_LIMIT;
  return large ? canvasView(opts, rows, cols) : tableView(opts, rows, cols);
}

function tableView(opts, rows, cols) {
  const { lang, name, label, rowLabels, colLabels, corner = '', kind, decimals, rowSums, interactive, onSelect, masked, format = formatNumber } = opts;
  let scale = opts.scale || null;
  let blanks = opts.blanks || null;
  const shown = (next) => (next.minus ? difference(next.minus, next.data) : next.data);
  const data = shown(opts);
  const table = el('table', `matrix ${kind}`);
  table.dataset.matrix = name;
  const caption = el('caption');
  caption.append(...matrixCaption(name, label, rows, cols));
  table.append(caption);

  const headRow = headerRow(colLabels, { corner, className: 'col-label' });
  if (rowSums) {
    const th = el('th', 'col-label sum', translate(lang, 'rowSum'));
    th.scope = 'col';
    headRow.append(th);
  }
  const head = el('thead');
  head.append(headRow);

  const body = el('tbody');
  const cells = [];
  const sums = [];
  data.forEach((row, r) => {
    const tr = el('tr');
    const th = labelNode('th', 'row-label', rowLabels[r]);
    th.scope = 'row';
    tr.append(th);
    const cellRow = [];
    row.forEach((value, c) => {
      const td = el('td', 'num');
      td.dataset.r = r;
      td.dataset.c = c;
      if (interactive) td.tabIndex = r === 0 && c === 0 ? 0 : -1;
      tr.append(td);
      cellRow.push(td);
    });
    if (rowSums) {
      sums.push(el('td', 'num sum'));
      tr.append(sums[r]);
    }
    body.append(tr);
    cells.push(cellRow);
  });
  table.append(head, body);
  // Writes the numbers; a cell or sum whose text and colour stay is not touched.
  // What each cell shows is remembered here (reading it back from the DOM costs
  // more than writing it): written[r * cols + c] = [text, full, masked, background, color].
  // A cell's full number is its data-value; the title (the tooltip) is given to
  // the cell pointed at or focused alone: a change of any element's title makes the
  // browser compute its style again (the UA's abbr[title] rule), 5 of the ~15 ms
  // a frame took when a drag at n = 16 rewrote 512 cells.
  const written = [];
  let titled = null; // the cell with a title
  const write = (td, k, text, full, isMasked, backgroundCss, color) => {
    const last = written[k] || (written[k] = []);
    if (last[0] !== text) setText(td, last[0] = text);
    if (last[1] !== full) {
      td.dataset.value = last[1] = full;
      if (td === titled) td.title = full;
    }
    if (last[2] !== isMasked) td.classList.toggle('masked', (last[2] = isMasked));
    if (last[3] !== backgroundCss) td.style.backgroundColor = last[3] = backgroundCss;
    if (last[4] !== color) td.style.color = last[4] = color;
  };
  // A cell whose value, mask and colour scale stay is skipped before its text
  // and colour are worked out (a dragged temperature changes a few of the
  // matrices shown: the others are read, not formatted again). inSight(r, c):
  // the cells to write (others are forgotten in `seen`, to be written later);
  // returns whether any was left.
  const seen = [];
  let seenMagnitude = null;
  const fill = (values, mask, inSight = null) => {
    const magnitude = kind === 'signed' ? scale || largestMagnitude(values, blanks) : 1; // blanks: not of the scale
    const sameScale = magnitude === seenMagnitude;
    seenMagnitude = magnitude;
    let left = false;
    values.forEach((row, r) => {
      row.forEach((value, c) => {
        const k = r * cols + c;
        if (inSight && !inSight(r, c)) {
          seen[k] = undefined;
          left = true;
          return;
        }
        const isMasked = Boolean(mask && mask[r][c]);
        const blank = Boolean(blanks && blanks.has(k));
        if (sameScale && seen[k] !== undefined && Object.is(seen[k][0], value) && seen[k][1] === isMasked && seen[k][2] === blank) return;
        seen[k] = [value, isMasked, blank];
        cells[r][c].classList.toggle('blank', blank);
        if (blank) {
          write(cells[r][c], k, '?', '', false, '', '');
          return;
        }
        const text = isMasked && value === -Infinity ? '−∞' : (isMasked ? formatCompactZero : format)(value, decimals);
        const background = isMasked ? null : cellColor(kind, value, magnitude);
        const color = background ? textColorFor(background) : '';
        write(cells[r][c], k, text, fullNumber(value), isMasked, background ? rgbCss(background) : '', color);
      });
      const rowBlank = blanks && row.some((_, c) => blanks.has(r * cols + c));
      if (rowSums && (!inSight || inSight(r, -1))) setText(sums[r], rowBlank ? '?' : formatNumber(row.reduce((a, b) => a + b, 0), decimals));
    });
    return left;
  };
  fill(data, masked);

  const giveTitle = (event) => {
    const td = event.target instanceof HTMLElement ? event.target.closest('td[data-value]') : null;
    if (!td || td === titled) return;
    titled?.removeAttribute('title');
    titled = td;
    td.title = td.dataset.value;
  };
  table.addEventListener('mouseover', giveTitle);
  table.addEventListener('focusin', giveTitle);

  const element = el('div', 'matrix-view matrix-scroll');
  // Focusable when its cells are not, so that keyboard users can scroll it.
  if (!interactive) element.tabIndex = 0;
  // a labelled group, not a region landmark: the host page's landmarks are its own
  element.setAttribute('role', 'group');
  element.setAttribute('aria-label', translate(lang, 'matrixCaption', { name, rows, cols }));
  element.append(table);
  watchMore(element); // wider than its box (11 columns on a phone): the hidden end fades

  if (interactive) {
    const cellOf = (target) => (target instanceof HTMLElement ? target.closest('td[data-r]') : null);
    const select = (td, focused) => onSelect(name, Number(td.dataset.r), Number(td.dataset.c), ...(focused ? [td] : []));
    table.addEventListener('mouseover', (event) => {
      const td = cellOf(event.target);
      if (td) select(td, false);
    });
    // roving tabindex: the last focused cell (by the keys, a tap or a click) is the one Tab comes back to
    const roving = rovingGrid(cells);
    table.addEventListener('focusin', (event) => {
      const td = cellOf(event.target);
      if (!td) return;
      roving.take(td);
      select(td, true);
    });
    table.addEventListener('keydown', (event) => {
      const td = cellOf(event.target);
      if (!td || !roving.moveFocus(Number(td.dataset.r), Number(td.dataset.c), event.key)) return;
      event.preventDefault();
      event.stopPropagation();
    });
  }

  const sight = inSightFill(fill, element, body.children, [...headRow.children].slice(1, cols + 1));
  let marked = [];
  return {
    name,
    element,
    update(next, partial = false) {
      if ('scale' in next) scale = next.scale || null;
      blanks = next.blanks || null;
      return sight.fill(shown(next), next.masked, partial);
    },
    hold: sight.hold,
    setMarks(marks) {
      for (const [td, cls] of marked) td.classList.remove(cls);
      marked = [];
      for (const mark of marks) {
        const cls = `mark-${mark.kind || 'feed'}`;
        for (let r = 0; r < rows; r++) {
          if (mark.r !== undefined && mark.r !== r) continue;
          for (let c = 0; c < cols; c++) {
            if (mark.c !== undefined && mark.c !== c) continue;
            cells[r][c].classList.add(cls);
            marked.push([cells[r][c], cls]);
          }
        }
      }
    },
  };
}

// During a drag (a partial update) a table writes only its rows near the
// viewport and its columns near its own box's scrolled-to part: at n = 16
// with one step shown, ~9 of the Scaled table's 16 rows and 9 of its 16
// columns are on screen, and laying out the text of a changed cell is most of
// a move's frame (~20 µs a cell here). The rows and columns are watched from
// when the drag is pressed (hold(true); else from its first partial update,
// unknown ones written meanwhile) to the next full update, which writes every
// cell, or to its release without one (hold(false)); a row or column that
// comes near meanwhile is written then. fill(values, mask, inSight) is the
// table's; returns {fill(values, mask, partial), which returns whether any
// cell was left, and hold(on)}.
const SIGHT_MARGIN = 40; // px: about a row, written before it is scrolled to
function inSightFill(fill, box, rows, colHeads) {
  let near = null; // {rows: [bool | undefined], cols: [...]}
  let observers = [];
  let waiting = null; // [values, mask] of the last partial fill
  const inSight = (r, c) => near.rows[r] !== false && (c < 0 || near.cols[c] !== false);
  const watch = (targets, side, options) => {
    const index = new Map([...targets].map((target, i) => [target, i]));
    const watching = near;
    const observer = new IntersectionObserver((entries) => {
      if (near !== watching) return; // a report queued before the drag ended
      let came = false;
      for (const entry of entries) {
        const i = index.get(entry.target);
        came ||= entry.isIntersecting && near[side][i] === false;
        near[side][i] = entry.isIntersecting;
      }
      if (came && waiting) fill(...waiting, inSight);
    }, options);
    for (const target of targets) observer.observe(target);
    observers.push(observer);
  };
  const start = () => {
    if (near) return;
    near = { rows: [], cols: [] };
    watch(rows, 'rows', { rootMargin: `${SIGHT_MARGIN}px 0px` });
    watch(colHeads, 'cols', { root: box, rootMargin: `0px ${SIGHT_MARGIN}px` });
  };
  const stop = () => {
    for (const observer of observers) observer.disconnect();
    observers = [];
    near = null;
    waiting = null;
  };
  return {
    fill(values, mask, partial) {
      if (!partial) {
        stop();
        return fill(values, mask);
      }
      start();
      waiting = [values, mask];
      return fill(values, mask, inSight);
    },
    // (let go: the cells left wait for the full update that follows)
    hold: (on) => (on ? start() : stop()),
  };
}

// A masked weight is exactly 0: written "0", not "0.0000", so it does not read as a small number.
const formatCompactZero = (value, decimals) => (value === 0 ? '0' : formatNumber(value, decimals));
