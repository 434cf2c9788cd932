// A matrix as a canvas heatmap (beyond TABLE_LIMIT, ui/limits.js): painted in
// slices between frames (paintOnce), binned beyond HEATMAP_PIXELS, walked with the
// pointer or the arrow keys (walkCells); also the heads' tiles (headTile) and the PNG export.

import { translate } from '../ui/i18n.js';
import { fullNumber } from '../ui/format.js';
import { colorTable, packRgba } from '../ui/color.js';
import { flatData, holdRows } from '../engine/rows.js';
import { el, matrixCaption, arrowMove, clampIndex } from '../ui/dom.js';
import { heatmapBin } from '../ui/limits.js';

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

// A head's small heatmap (the heads grid, How it learns's paused heads): weights painted once,
// rows × cols cells of `cell` CSS px; the cell under the pointer or walked to with the keys
// (walkCells, the box labelled `label`) is marked and read out below by says(r, c).
// Returns { box, readout }: the caller places them.
export function headTile({ weights, masked, rows, cols, cell, label, says }) {
  const canvas = el('canvas', 'head-canvas');
  paintOnce(canvas, { data: weights, kind: 'weights', masked, cell });
  canvas.setAttribute('aria-hidden', 'true');
  canvas.style.width = `${cols * cell}px`;
  canvas.style.height = `${rows * cell}px`;
  const mark = el('div', 'heat-mark mark-selected');
  mark.hidden = true;
  const box = el('div', 'head-box');
  box.append(canvas, mark);
  const readout = el('p', 'head-readout');
  readout.setAttribute('aria-live', 'polite');
  walkCells(box, canvas, rows, cols, label, (r, c) => {
    Object.assign(mark.style, { top: `${r * cell}px`, left: `${c * cell}px`, width: `${cell}px`, height: `${cell}px` });
    mark.hidden = false;
    readout.textContent = says(r, c);
  });
  return { box, readout };
}

// The heatmap is `cell` CSS pixels a cell (one a block when binned), or
// narrower when the width available is less. Marks are boxes laid over it in percentages.
export function canvasView(opts, rows, cols) {
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
  caption.append(...matrixCaption(name, label, rows, cols));
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
