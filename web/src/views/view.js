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
import { cellColor, largestMagnitude, textColorFor, rgbCss, colorTable, packRgba } from '../ui/color.js';
import { flatData, holdRows } from '../engine/rows.js';
import { difference } from '../engine/variant.js';
import { el, headerRow, labelNode, setText, watchMore } from '../ui/dom.js';

export const TABLE_LIMIT = 24;

// kind: 'signed' (diverging colours) or 'weights' (sequential, 0 to 1).
// scale (signed, optional; an update may change it): the |value| drawn at full
// colour, for matrices coloured on one scale together (the gradients of "How it
// learns"); by default each matrix's own largest. format(value, decimals)
// (optional): a cell's text, formatNumber's by default.
// interactive: cells can be selected (their arithmetic is shown).
// masked (rows × cols booleans, optional): cells drawn hatched as masked,
// written −∞ (before the softmax) or 0 (after).
export function createMatrixView(opts) {
  const rows = opts.data.length;
  const cols = rows > 0 ? opts.data[0].length : 0;
  const large = rows > TABLE_LIMIT || cols > TABLE_LIMIT;
  return large ? canvasView(opts, rows, cols) : tableView(opts, rows, cols);
}

function captionNodes(name, label, rows, cols) {
  return [el('span', 'matrix-name', name), el('span', 'matrix-label', label || ''), el('span', 'matrix-shape', `${rows} × ${cols}`)];
}

function tableView(opts, rows, cols) {
  const { lang, name, label, rowLabels, colLabels, corner = '', kind, decimals, rowSums, interactive, onSelect, masked, format = formatNumber } = opts;
  let scale = opts.scale || null;
  const shown = (next) => (next.minus ? difference(next.minus, next.data) : next.data);
  const data = shown(opts);
  const table = el('table', `matrix ${kind}`);
  table.dataset.matrix = name;
  const caption = el('caption');
  caption.append(...captionNodes(name, label, rows, cols));
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
    const magnitude = kind === 'signed' ? scale || largestMagnitude(values) : 1;
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
        if (sameScale && seen[k] !== undefined && Object.is(seen[k][0], value) && seen[k][1] === isMasked) return;
        seen[k] = [value, isMasked];
        const text = isMasked && value === -Infinity ? '−∞' : (isMasked ? formatCompactZero : format)(value, decimals);
        const background = isMasked ? null : cellColor(kind, value, magnitude);
        const color = background ? textColorFor(background) : '';
        write(cells[r][c], k, text, fullNumber(value), isMasked, background ? rgbCss(background) : '', color);
      });
      if (rowSums && (!inSight || inSight(r, -1))) setText(sums[r], formatNumber(row.reduce((a, b) => a + b, 0), decimals));
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
    table.addEventListener('focusin', (event) => {
      const td = cellOf(event.target);
      if (!td) return;
      // roving tabindex: the last focused cell is the one Tab comes back to
      for (const row of cells) for (const cell of row) cell.tabIndex = -1;
      td.tabIndex = 0;
      select(td, true);
    });
    table.addEventListener('keydown', (event) => {
      const td = cellOf(event.target);
      const move = td && arrowMove(event.key);
      if (!move) return;
      event.preventDefault();
      event.stopPropagation();
      const r = clampIndex(Number(td.dataset.r) + move[0], rows);
      const c = clampIndex(Number(td.dataset.c) + move[1], cols);
      cells[r][c].focus();
    });
  }

  const sight = inSightFill(fill, element, body.children, [...headRow.children].slice(1, cols + 1));
  let marked = [];
  return {
    name,
    element,
    update(next, partial = false) {
      if ('scale' in next) scale = next.scale || null;
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

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
const arrowMove = (key) => ARROWS[key];
const clampIndex = (i, count) => Math.min(count - 1, Math.max(0, i));

// A heatmap's cells under the pointer (hover, or a tap), or walked with the
// arrow keys once `box` has focus (labelled `label`): show(r, c, chosen) on each
// new cell, chosen when pressed (a tap, a click) or reached with the keys, and again
// on a press of the cell shown. Returns a function giving the cell shown, [r, c], or null.
export function walkCells(box, canvas, rows, cols, label, show) {
  let cursor = null;
  const go = (r, c, chosen = false) => {
    if (!chosen && cursor && cursor[0] === r && cursor[1] === c) return;
    cursor = [r, c];
    show(r, c, chosen);
  };
  const atPointer = (event) => {
    const rect = canvas.getBoundingClientRect();
    go(clampIndex(Math.floor(((event.clientY - rect.top) / rect.height) * rows), rows),
      clampIndex(Math.floor(((event.clientX - rect.left) / rect.width) * cols), cols), event.type === 'pointerdown');
  };
  box.addEventListener('pointermove', atPointer);
  box.addEventListener('pointerdown', atPointer);
  box.tabIndex = 0;
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', label);
  box.addEventListener('focus', () => {
    if (!cursor) go(0, 0);
  });
  box.addEventListener('keydown', (event) => {
    const move = arrowMove(event.key);
    if (!move) return;
    event.preventDefault();
    event.stopPropagation();
    const [r, c] = cursor || [0, 0];
    go(clampIndex(r + move[0], rows), clampIndex(c + move[1], cols), true);
  });
  return () => cursor;
}

const MASKED_LIGHT = packRgba([200, 200, 200]);
const MASKED_DARK = packRgba([140, 140, 140]);

// At most this many canvas pixels a side on screen: beyond it (n > 512) each
// pixel shows the mean of a block of cells, [rows, cols] = heatmapBin(...), so
// n = 4096 paints a quarter of a million pixels, not 16 million. The heatmap's
// box is at most 660 CSS px wide in the page's layouts (325 at 1280 px), so the
// browser's scaling dropped most pixels of a larger picture unseen, and every
// canvas changed is copied for the compositor on the next frame (in Chromium's
// software compositor here 17–35 ms a 1024² picture, 1–7 ms a 512² one). The
// PNG export (tools.js) is this picture scaled up.
export const HEATMAP_PIXELS = 512;

export const heatmapBin = (rows, cols) => [Math.ceil(rows / HEATMAP_PIXELS), Math.ceil(cols / HEATMAP_PIXELS)];

// Paints a matrix on a canvas: one pixel per cell (or per block of cells, see
// heatmapBin), which CSS scales up with sharp edges. Masked cells are grey with
// diagonal hatching (a block only when all its cells are masked; the mean is of
// the others); the stripes need room, so with masked cells the canvas has
// `cell` pixels a cell. Reads the rows' typed array directly when they are row
// views (rows.js); with `minus`, each value is data's less minus's, the same
// float64 subtraction as difference(), so the picture is the same bits as one
// of the difference matrix. Also the heads' thumbnails and the PNG export use it.
export function paintHeatmap(canvas, options) {
  const steps = heatmapSteps(canvas, options);
  while (!steps.next().done);
}

// Cells read between two yields of heatmapSteps: a few ms of work.
const STEP_CELLS = 1 << 18;

// What heatmapSteps yields (binned heatmaps) when the next step writes the canvas.
const WRITE = 'write';

// The per-cell loops of heatmapSteps are plain functions: in a generator V8 ran
// them 2–3 times slower (a 512² picture: 3.4 against 1.4 ms in node).

// The largest finite |value| (less subtracted when given) of cells [from, end),
// or `largest` if none is larger.
function largestOfCells(values, less, from, end, largest) {
  for (let k = from; k < end; k++) {
    const v = Math.abs(less === null ? values[k] : values[k] - less[k]);
    if (v > largest && v !== Infinity) largest = v;
  }
  return largest;
}

// pixels[at + k] = the colour of values[k] (less[k] subtracted when given), for
// every k not masked (mask[k] === 0) and, with counts, of a block holding
// cells (each value a block's sum, divided by its count). The table entry
// nearest v (rounding t + 0.5 down once t is known non-negative: the same as
// Math.round, and cheaper); non-finite values get the middle colour.
function colorCells(values, less, mask, { pixels: colors, scale, offset, last }, pixels, at = 0, counts = null) {
  const middle = colors[Math.round(offset)];
  for (let k = 0; k < values.length; k++) {
    if ((mask !== null && mask[k] !== 0) || (counts !== null && counts[k] === 0)) continue;
    let v = less === null ? values[k] : values[k] - less[k];
    if (counts !== null) v /= counts[k];
    if (v - v !== 0) { // ±Infinity or NaN
      pixels[at + k] = middle;
      continue;
    }
    const t = v * scale + offset;
    pixels[at + k] = colors[t <= 0 ? 0 : t >= last ? last : (t + 0.5) | 0];
  }
}

// sums[x], counts[x]: the sum and the count of the unmasked cells (less
// subtracted when given) of block x in row y of a binned picture, block x
// holding columns [x * binCols, (x + 1) * binCols) of rows [y * binRows, (y + 1) * binRows).
function blockRow({ values, less, mask, rows, cols, binRows, binCols }, y, sums, counts) {
  sums.fill(0);
  counts.fill(0);
  for (let r = y * binRows; r < Math.min(rows, (y + 1) * binRows); r++) {
    for (let x = 0, k = r * cols; x < sums.length; x++) {
      const end = Math.min(k + binCols, (r + 1) * cols);
      let sum = 0;
      let count = 0;
      if (mask === null && less === null) {
        for (count = end - k; k < end; k++) sum += values[k];
      } else if (mask === null) {
        for (count = end - k; k < end; k++) sum += values[k] - less[k];
      } else {
        for (; k < end; k++) {
          if (mask[k] === 0) {
            sum += less === null ? values[k] : values[k] - less[k];
            count++;
          }
        }
      }
      sums[x] += sum;
      counts[x] += count;
    }
  }
}

// paintHeatmap's work as a generator that yields every STEP_CELLS cells or
// so (binned heatmaps only: up to 512² cells it runs in one go), the canvas
// changed only at the end, so that a large heatmap can be painted in slices
// (paintOnce) while the last picture stays on screen.
function* heatmapSteps(canvas, { data, minus = null, kind, masked, cell, scale = null }) {
  const rows = data.length;
  const cols = data[0].length;
  const values = flatData(data);
  const less = minus ? flatData(minus) : null;
  const mask = masked ? flatData(masked) : null;
  const [binRows, binCols] = heatmapBin(rows, cols);
  const binned = binRows * binCols > 1;
  // image: (height, width), one pixel per cell or block
  const width = Math.ceil(cols / binCols);
  const height = Math.ceil(rows / binRows);
  const image = new ImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  // [x, y] of wholly masked cells, listed only where they can be drawn cell-sized (unbinned)
  const stripes = !binned && cell > 1;
  const hatched = [];
  const hatch = (x, y) => {
    pixels[y * width + x] = hatchColor(x, y);
    if (stripes) hatched.push([x, y]);
  };
  let largest = kind === 'signed' && scale ? scale : 1;
  if (kind === 'signed' && !scale) {
    // the largest finite |value| (masked scores, −∞, do not count), a slice at a time
    largest = 0;
    const step = binned ? STEP_CELLS : values.length;
    for (let from = 0; from < values.length; from += step) {
      largest = largestOfCells(values, less, from, Math.min(values.length, from + step), largest);
      if (binned) yield;
    }
  }
  const table = colorTable(kind, largest);
  if (!binned) {
    colorCells(values, less, mask, table, pixels);
    for (let k = 0; mask !== null && k < values.length; k++) if (mask[k] !== 0) hatch(k % cols, (k / cols) | 0);
  } else {
    const sums = new Float64Array(width);
    const counts = new Uint32Array(width);
    const blocks = { values, less, mask, rows, cols, binRows, binCols };
    let read = 0; // cells since the last yield
    for (let y = 0; y < height; y++) {
      blockRow(blocks, y, sums, counts);
      // pixels of row y: its blocks' means, or hatching where a block has no unmasked cell
      colorCells(sums, null, null, table, pixels, y * width, counts);
      for (let x = 0; x < width; x++) if (counts[x] === 0) hatch(x, y);
      read += binRows * cols;
      if (read >= STEP_CELLS) {
        read = 0;
        yield;
      }
    }
    yield WRITE;
  }
  const context = canvas.getContext('2d');
  const size = hatched.length > 0 ? cell : 1;
  canvas.width = width * size;
  canvas.height = height * size;
  if (size === 1) {
    context.putImageData(image, 0, 0);
    return;
  }
  const small = scratchCanvas(width, height);
  small.getContext('2d').putImageData(image, 0, 0);
  context.imageSmoothingEnabled = false; // whole pixels: each cell a sharp square
  context.drawImage(small, 0, 0, width * size, height * size);
  context.beginPath();
  for (const [x, y] of hatched) context.rect(x * size, y * size, size, size);
  context.fillStyle = hatchPattern(context);
  context.fill();
}

// The canvas a small image is put on before it is scaled up (reused).
let scratch = null;
function scratchCanvas(width, height) {
  scratch = scratch || document.createElement('canvas');
  scratch.width = width;
  scratch.height = height;
  return scratch;
}

// Masked cells: grey diagonal stripes, pixel (x, y) dark where (x + y) % 6 < 2;
// the pattern is anchored at the canvas origin, so stripes run on across cells.
const hatchColor = (x, y) => ((x + y) % 6 < 2 ? MASKED_DARK : MASKED_LIGHT);

function hatchPattern(context) {
  const tile = new ImageData(6, 6);
  const pixels = new Uint32Array(tile.data.buffer);
  for (let y = 0; y < 6; y++) for (let x = 0; x < 6; x++) pixels[y * 6 + x] = hatchColor(x, y);
  const source = document.createElement('canvas');
  source.width = 6;
  source.height = 6;
  source.getContext('2d').putImageData(tile, 0, 0);
  return context.createPattern(source, 'repeat');
}

// The last heatmaps painted of each matrix (by identity, one per look: the
// After and Difference of a comparison both read the weights): the same result
// shown again (in two steps of the overview, after a step change or a
// language switch, a comparison built again) is copied from it, not painted again. A binned (large)
// heatmap is painted in slices of about SLICE_MS, one task each, so that the
// page never stops for long (16.7 M cells at n = 4096); meanwhile its canvas
// has data-painting (tests and the bench wait for it), keeps its last picture,
// and a newer paint of the same canvas replaces the unfinished one. The
// heads' thumbnails (steps.js) use it too.
const painted = new WeakMap(); // data → [{data, minus, kind, masked, cell, canvas}]
const painting = new WeakMap(); // canvas → {data, minus, kind, masked, cell, steps}
const showing = new WeakMap(); // canvas → the look it shows (an entry of painted)
const SLICE_MS = 12; // and one step more (STEP_CELLS): ~15–20 ms of CPU a slice

const sameLook = (a, b) => a.data === b.data && a.minus === b.minus && a.kind === b.kind && a.masked === b.masked && a.cell === b.cell && a.scale === b.scale;

// A finished painting of `look` on `canvas`, kept while that canvas shows it.
function keep(look, canvas) {
  const entry = { ...look, canvas };
  delete entry.steps;
  const looks = (painted.get(look.data) || []).filter((other) => !sameLook(other, look) && showing.get(other.canvas) === other);
  painted.set(look.data, [...looks, entry]);
  showing.set(canvas, entry);
}

// A sliced painting's job ends (done, replaced, or its canvas gone): what it read is let go.
function stopPainting(canvas) {
  painting.get(canvas)?.release();
  painting.delete(canvas);
  canvas.removeAttribute('data-painting');
}

export function paintOnce(canvas, { data, minus = null, kind, masked = null, cell, scale = null }) {
  const wanted = { data, minus, kind, masked, cell, scale };
  const job = painting.get(canvas);
  if (job && sameLook(job, wanted)) return; // on its way
  const last = (painted.get(data) || []).find((look) => sameLook(look, wanted) && showing.get(look.canvas) === look);
  if (last) {
    stopPainting(canvas);
    if (last.canvas === canvas) return; // showing it already (resizing would clear it)
    canvas.width = last.canvas.width;
    canvas.height = last.canvas.height;
    canvas.getContext('2d').drawImage(last.canvas, 0, 0);
    showing.set(canvas, last);
    return;
  }
  const [binRows, binCols] = heatmapBin(data.length, data[0].length);
  if (binRows * binCols === 1) {
    stopPainting(canvas);
    paintHeatmap(canvas, wanted);
    keep(wanted, canvas);
    return;
  }
  stopPainting(canvas);
  const steps = heatmapSteps(canvas, wanted);
  let atWrite = false; // the next step writes the canvas
  // the matrices it reads are held until it ends (rows.js holdRows): not given back to the worker meanwhile
  const holds = [data, minus, masked].filter(Boolean).map(holdRows);
  painting.set(canvas, { ...wanted, steps, release: () => holds.forEach((release) => release()) });
  canvas.setAttribute('data-painting', '');
  const slice = () => {
    if (painting.get(canvas)?.steps !== steps) return; // replaced by a newer paint
    if (!canvas.isConnected) { // no longer shown: not worth finishing
      stopPainting(canvas);
      return;
    }
    const start = performance.now();
    while (performance.now() - start < SLICE_MS) {
      if (atWrite) {
        if (writtenThisFrame) {
          requestAnimationFrame(() => setTimeout(slice, 0));
          return;
        }
        writtenThisFrame = true;
        requestAnimationFrame(() => { writtenThisFrame = false; });
      }
      const { done, value } = steps.next();
      if (done) {
        stopPainting(canvas);
        keep(wanted, canvas);
        return;
      }
      atWrite = value === WRITE;
    }
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0); // after the render that made the canvas has put it on the page
}

// A binned heatmap's picture is written into its canvas (the step after heatmapSteps
// yields WRITE) only between frames no other one was written in: the browser
// copies each canvas changed since the last frame for the compositor (1–7 ms a
// 512 × 512 picture in traces here, 17–35 ms a 1024²), and three or four finishing
// together (the steps of another head) made one long frame. Meanwhile it waits for the next frame.
let writtenThisFrame = false;

// The heatmap is `cell` CSS pixels a cell (one a block when binned), or
// narrower when the width available is less. Marks are boxes laid over it in percentages.
function canvasView(opts, rows, cols) {
  const { lang, name, label, rowLabels, colLabels, kind, interactive, onSelect } = opts;
  let { data, minus } = opts;
  let scale = opts.scale || null;
  const cell = Math.max(1, Math.min(12, Math.floor(640 / Math.max(rows, cols))));
  const canvas = el('canvas', 'heat-canvas');
  canvas.dataset.matrix = name;
  paintOnce(canvas, { data, minus, kind, masked: opts.masked, cell, scale });

  const description = translate(lang, 'canvasDescription', { name, rows, cols });
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', description);
  const overlay = el('div', 'heat-overlay');
  const box = el('div', 'heat-box');
  // a tall, narrow matrix (X of 4096 × 64) is drawn at most 4 times as tall as wide, its cells flattened
  box.style.aspectRatio = `${cols} / ${Math.min(rows, 4 * cols)}`;
  const [binRows, binCols] = heatmapBin(rows, cols);
  const binned = binRows * binCols > 1;
  box.style.maxWidth = `${Math.max(binned ? Math.ceil(cols / binCols) : cols * cell, 240)}px`;
  box.append(canvas, overlay);

  const caption = el('p', 'heat-caption');
  caption.append(...captionNodes(name, label, rows, cols));
  const hint = el('p', 'heat-hint', translate(lang, interactive ? 'canvasHintInteractive' : 'canvasHint'));
  if (binned) hint.textContent += ` ${translate(lang, 'canvasBinned', { rows: binRows, cols: binCols })}`;
  const readout = el('p', 'heat-readout');
  readout.setAttribute('aria-live', 'polite');

  const element = el('div', 'matrix-view matrix-canvas');
  // as wide as its heatmap at most, so that its hint wraps there and does not widen the column
  element.style.maxWidth = box.style.maxWidth;
  element.dataset.matrix = name;
  element.append(caption, hint, box, readout);

  const readOut = (r, c) => {
    const value = minus ? data[r][c] - minus[r][c] : data[r][c];
    const text = value === -Infinity ? '−∞' : fullNumber(value);
    readout.textContent = `${name}[${rowLabels[r]}, ${colLabels[c]}] = ${text}`;
  };
  const cursor = walkCells(box, canvas, rows, cols, description, (r, c, chosen) => {
    readOut(r, c);
    if (interactive) onSelect(name, r, c, ...(chosen ? [box] : []));
  });

  const place = (node, r0, r1, c0, c1) => {
    node.style.top = `${(r0 / rows) * 100}%`;
    node.style.height = `${((r1 - r0) / rows) * 100}%`;
    node.style.left = `${(c0 / cols) * 100}%`;
    node.style.width = `${((c1 - c0) / cols) * 100}%`;
  };
  return {
    name,
    element,
    update(next) {
      ({ data, minus } = next);
      if ('scale' in next) scale = next.scale || null;
      paintOnce(canvas, { data, minus, kind, masked: next.masked, cell, scale });
      if (cursor()) readOut(...cursor());
    },
    hold() {}, // a heatmap is painted whole, in slices (paintOnce)
    setMarks(marks) {
      overlay.replaceChildren(...marks.map((mark) => {
        const node = el('div', `heat-mark mark-${mark.kind || 'feed'}`);
        const [r0, r1] = mark.r === undefined ? [0, rows] : [mark.r, mark.r + 1];
        const [c0, c1] = mark.c === undefined ? [0, cols] : [mark.c, mark.c + 1];
        place(node, r0, r1, c0, c1);
        return node;
      }));
    },
  };
}
