// A model's view (issue 36), like BertViz's model view: every layer × head of the model a state
// names, each a thumbnail of its weights (query tokens down, key tokens across; a role the
// models' index names under it), runModel()'s with a head switched off when one is (its later
// layers follow); the head open in the step by step marked. A thumbnail opens its head there
// (click, Enter, Space); the arrow keys move between them (ui/dom.js rovingGrid). Under the grid,
// the open head as lines (views/lines.js).
//   createModelGrid(lang, view) → { element, update(next) }: the thumbnails made once for the
//   model's tokens; update(next) paints a new run's weights into them (only those that changed),
//   marks the head open and the head off, and moves the open head's lines, all in place.
//   view: { tokens, masked: (n, n) booleans or null, roles: [{ layer, head, role, description: {zh, en} }],
//           onOpen(layer, head), and as next: weights: [layer][head] → (n, n) rows,
//           current: { layer, head }, off: { layer, head } or null, decimals }

import { translate } from '../ui/i18n.js';
import { roleName } from '../ui/labels.js';
import { excerpt } from '../ui/quote.js';
import { formatNumber } from '../ui/format.js';
import { el, rovingGrid } from '../ui/dom.js';
import { headTile, paintOnce } from './heatmap.js';
import { createLinesView, updateLinesView } from './lines.js';

const THUMB_PX = 110; // a thumbnail's side, about (its cells whole pixels, at most 24 each) ...
const LABEL_CELL = 10; // ... but no cell smaller than this, so that the axes carry the tokens ...
const MOST_PX = 320; // ... up to this side; beyond it (over 32 tokens) smaller cells and no tokens on the axes
const SHORT = 4; // a token on an axis shows at most this many characters (its whole text in the label)

const cellPx = (n) => (n * LABEL_CELL <= MOST_PX ? Math.min(24, Math.max(LABEL_CELL, Math.floor(THUMB_PX / n))) : Math.max(1, Math.floor(MOST_PX / n)));

// The tokens along an axis, each cut to SHORT characters; across the top, one of more than one
// character is turned to run up its column.
function axis(className, tokens, turn) {
  const list = el('span', className);
  list.setAttribute('aria-hidden', 'true'); // the thumbnail's label names every token
  for (const token of tokens) {
    const shown = excerpt(token, SHORT);
    list.append(el('span', turn && Array.from(shown).length > 1 ? 'mv-token turned' : 'mv-token', shown));
  }
  return list;
}

// One head's thumbnail (headTile: painted once; the cell under the pointer read out under it),
// the box the one the arrows move between and Enter, Space or a click opens. shown() → the
// weights and decimals on screen (update() paints new weights into the same canvas).
function thumbnail(lang, { tokens, masked, roles }, layer, head, cell, shown) {
  const t = (key, params) => translate(lang, key, params);
  const n = tokens.length;
  const role = roles.find((r) => r.layer === layer && r.head === head);
  const tile = el('div', 'mv-tile');
  tile.dataset.layer = layer;
  tile.dataset.head = head;
  const name = t('modelViewHead', { layer: layer + 1, head: head + 1 });
  const weightsOf = () => shown().weights[layer][head]; // (n, n)
  const { box, readout } = headTile({
    weights: weightsOf(), masked, rows: n, cols: n, cell, label: '',
    says: (r, c) => t('headTileReadout', { query: tokens[r], key: tokens[c], value: formatNumber(weightsOf()[r][c], shown().decimals) }),
  });
  box.classList.add('mv-box');
  box.setAttribute('role', 'button'); // (opens the head; the arrows move between the thumbnails)
  box.dataset.layer = layer;
  box.dataset.head = head;
  box.tabIndex = -1;
  const top = el('span', 'mv-tile-top');
  const badge = el('span', 'mv-badge', t('modelViewIsOff'));
  top.append(el('span', 'mv-tile-name', name), badge);
  const map = el('div', 'mv-map');
  map.style.setProperty('--cell', `${cell}px`);
  if (cell >= LABEL_CELL) map.append(el('span', 'mv-corner'), axis('mv-keys', tokens, true), axis('mv-queries', tokens, false), box);
  else {
    map.classList.add('unlabelled');
    map.append(box);
  }
  tile.append(top, map, el('span', role ? 'mv-role' : 'mv-role none', role ? roleName(lang, role.role) : t('modelViewNoRole')), readout);
  const canvas = box.querySelector('canvas');
  if (n * cell > MOST_PX) {
    // (over 320 tokens: drawn MOST_PX wide, a cell less than a pixel; the readout still finds the cell)
    Object.assign(canvas.style, { width: `${MOST_PX}px`, height: `${MOST_PX}px` });
    box.classList.add('scaled');
  }
  let painted = weightsOf();
  // marked off (or not), its label saying so; new weights painted when they differ from the ones shown
  const mark = (isOff) => {
    tile.classList.toggle('off', isOff);
    badge.hidden = !isOff;
    const label = [name, role ? roleName(lang, role.role) : null, isOff ? t('modelViewIsOff') : null].filter(Boolean).join(', ');
    box.setAttribute('aria-label', t('modelViewTileLabel', { label, tokens: tokens.join(' ') }));
    box.title = [label, role ? role.description[lang] || role.description.en : null, tokens.join(' ')].filter(Boolean).join('\n');
    const w = weightsOf();
    if (w !== painted && w.some((row, r) => row.some((v, c) => v !== painted[r][c]))) paintOnce(canvas, { data: w, kind: 'weights', masked, cell });
    painted = w;
  };
  return { tile, box, mark };
}

export function createModelGrid(lang, view) {
  const t = (key, params) => translate(lang, key, params);
  const { tokens } = view;
  const layers = view.weights.length;
  const cell = cellPx(tokens.length);
  const element = el('section', 'panel model-view');
  element.setAttribute('aria-labelledby', 'model-view-title');
  const title = el('h3', 'model-view-title', t('modelViewTitle'));
  title.id = 'model-view-title';
  const offNote = el('p', 'hint mv-off-note');
  element.append(title, el('p', 'hint', t('modelViewHint')), offNote);
  const grid = el('div', 'mv-grid');
  let shown = view; // the view on screen (the thumbnails' weights and readouts read it)
  const thumbnails = [];
  const cells = []; // [layer][head] → its thumbnail's box (a shorter layer's row padded with its last, for the arrows)
  const most = Math.max(...view.weights.map((heads) => heads.length));
  view.weights.forEach((heads, layer) => {
    const row = el('div', 'mv-layer');
    row.setAttribute('role', 'group');
    const name = t('modelViewLayer', { layer: layer + 1 });
    row.setAttribute('aria-label', name);
    const tiles = el('div', 'mv-tiles');
    const list = heads.map((_, head) => thumbnail(lang, view, layer, head, cell, () => shown));
    tiles.append(...list.map((one) => one.tile));
    row.append(el('span', 'mv-layer-name', name), tiles);
    grid.append(row);
    thumbnails.push(...list);
    cells.push(Array.from({ length: most }, (_, h) => list[Math.min(h, list.length - 1)].box));
  });
  const roving = rovingGrid(cells);
  const open = (node) => view.onOpen(Number(node.dataset.layer), Number(node.dataset.head));
  // (captured: the arrows move between the thumbnails, not through a thumbnail's cells)
  grid.addEventListener('keydown', (event) => {
    const box = event.target.closest('.mv-box');
    if (!box) return;
    if (event.key === 'Enter' || event.key === ' ') open(box);
    else if (!roving.moveFocus(Number(box.dataset.layer), Number(box.dataset.head), event.key)) return;
    event.preventDefault();
    event.stopPropagation();
  }, true);
  grid.addEventListener('focusin', (event) => {
    const box = event.target.closest('.mv-box');
    if (box) roving.take(box);
  });
  grid.addEventListener('click', (event) => {
    const tile = event.target.closest('.mv-tile');
    if (tile) open(tile);
  });
  const scroll = el('div', 'mv-scroll');
  scroll.append(grid);
  const opened = el('p', 'mv-opened');
  opened.setAttribute('aria-live', 'polite');
  const caption = el('h4', 'mv-lines-title');
  const lines = el('div', 'mv-lines');
  element.append(scroll, opened, caption, lines);

  let marked = null; // { current, off, decimals } as marked last
  // The view's weights (a new run: the head off changed), the head open and the decimals, in place.
  const update = (next) => {
    shown = next;
    const { current, off } = next;
    const moved = !marked || marked.current.layer !== current.layer || marked.current.head !== current.head;
    for (const { tile, box, mark } of thumbnails) {
      const layer = Number(tile.dataset.layer);
      const head = Number(tile.dataset.head);
      mark(Boolean(off && off.layer === layer && off.head === head));
      const here = layer === current.layer && head === current.head;
      tile.classList.toggle('current', here);
      if (here) box.setAttribute('aria-current', 'true');
      else box.removeAttribute('aria-current');
    }
    offNote.hidden = !off;
    offNote.textContent = off ? t(off.layer + 1 < layers ? 'modelViewOffNote' : 'modelViewOffLast', { layer: off.layer + 1, head: off.head + 1 }) : '';
    const box = cells[current.layer]?.[current.head];
    const active = grid.getRootNode().activeElement; // (in a shadow root: its own)
    if (box && !(active && grid.contains(active))) roving.take(box); // (a focus in the grid stays where it is)
    if (moved && marked) opened.textContent = t('modelViewOpened', { layer: current.layer + 1, head: current.head + 1 });
    caption.textContent = t('modelViewLines', { layer: current.layer + 1, head: current.head + 1 });
    // the open head as lines: its new weights moved in place (same tokens), drawn anew for other decimals
    const headWeights = next.weights[current.layer][current.head];
    if (!marked || marked.decimals !== next.decimals || !updateLinesView(lines.firstChild, headWeights)) {
      const linesView = createLinesView({ lang, tokens, weights: headWeights, decimals: next.decimals });
      linesView.querySelector('.lines-title')?.remove(); // (named by the caption: which head)
      lines.replaceChildren(linesView);
    }
    marked = { current, off, decimals: next.decimals };
  };
  update(view);
  return { element, update };
}
