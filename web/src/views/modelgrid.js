// A model's view (issue 36), like BertViz's model view: every layer × head of the model a state
// names, each a thumbnail of its weights (query tokens down, key tokens across; a role the
// models' index names under it), runModel()'s with a head switched off when one is (its later
// layers follow); the head open in the step by step marked. A thumbnail opens its head there
// (click, Enter, Space); the arrow keys move between them (ui/dom.js rovingGrid). Under the grid,
// the open head as lines (views/lines.js).
//   createModelGrid(lang, view) → { element, update(view) }: the thumbnails made once for a run
//   (its tokens and weights); update marks the head open and draws its lines again.
//   view: { tokens, weights: [layer][head] → (n, n) rows, masked: (n, n) booleans or null,
//           roles: [{ layer, head, role, description: {zh, en} }], current: { layer, head },
//           off: { layer, head } or null, decimals, onOpen(layer, head) }

import { translate } from '../ui/i18n.js';
import { excerpt } from '../ui/quote.js';
import { formatNumber } from '../ui/format.js';
import { el, rovingGrid } from '../ui/dom.js';
import { headTile } from './heatmap.js';
import { createLinesView } from './lines.js';

const THUMB_PX = 128; // a thumbnail's side, about (its cells whole pixels, at most 24 each) ...
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
// the box the one the arrows move between and Enter, Space or a click opens.
function thumbnail(lang, { tokens, weights, masked, roles, off }, layer, head, cell, decimals) {
  const t = (key, params) => translate(lang, key, params);
  const n = tokens.length;
  const role = roles.find((r) => r.layer === layer && r.head === head);
  const isOff = Boolean(off && off.layer === layer && off.head === head);
  const tile = el('div', `mv-tile${isOff ? ' off' : ''}`);
  tile.dataset.layer = layer;
  tile.dataset.head = head;
  const name = t('modelViewHead', { layer: layer + 1, head: head + 1 });
  const label = [name, role ? role.role : null, isOff ? t('modelViewIsOff') : null].filter(Boolean).join(', ');
  const w = weights[layer][head]; // (n, n)
  const { box, readout } = headTile({
    weights: w, masked, rows: n, cols: n, cell, label: t('modelViewTileLabel', { label, tokens: tokens.join(' ') }),
    says: (r, c) => t('headTileReadout', { query: tokens[r], key: tokens[c], value: formatNumber(w[r][c], decimals()) }),
  });
  box.classList.add('mv-box');
  box.setAttribute('role', 'button'); // (opens the head; the arrows move between the thumbnails)
  box.dataset.layer = layer;
  box.dataset.head = head;
  box.tabIndex = -1;
  box.title = [label, role ? role.description[lang] || role.description.en : null, tokens.join(' ')].filter(Boolean).join('\n');
  const top = el('span', 'mv-tile-top');
  top.append(el('span', 'mv-tile-name', name));
  if (isOff) top.append(el('span', 'mv-badge', t('modelViewIsOff')));
  const map = el('div', 'mv-map');
  map.style.setProperty('--cell', `${cell}px`);
  if (cell >= LABEL_CELL) map.append(el('span', 'mv-corner'), axis('mv-keys', tokens, true), axis('mv-queries', tokens, false), box);
  else {
    map.classList.add('unlabelled');
    map.append(box);
  }
  tile.append(top, map, el('span', role ? 'mv-role' : 'mv-role none', role ? role.role : t('modelViewNoRole')), readout);
  return tile;
}

export function createModelGrid(lang, view) {
  const t = (key, params) => translate(lang, key, params);
  const { tokens, weights } = view;
  const cell = cellPx(tokens.length);
  const element = el('section', 'panel model-view');
  element.setAttribute('aria-labelledby', 'model-view-title');
  const title = el('h3', 'model-view-title', t('modelViewTitle'));
  title.id = 'model-view-title';
  element.append(title, el('p', 'hint', t('modelViewHint')));
  if (view.off) element.append(el('p', 'hint mv-off-note', t(view.off.layer + 1 < weights.length ? 'modelViewOffNote' : 'modelViewOffLast', { layer: view.off.layer + 1, head: view.off.head + 1 })));
  const grid = el('div', 'mv-grid');
  let decimals = view.decimals; // the readouts', as shown
  const cells = []; // [layer][head] → its thumbnail's box (a shorter layer's row padded with its last, for the arrows)
  const most = Math.max(...weights.map((heads) => heads.length));
  weights.forEach((heads, layer) => {
    const row = el('div', 'mv-layer');
    row.setAttribute('role', 'group');
    const name = t('modelViewLayer', { layer: layer + 1 });
    row.setAttribute('aria-label', name);
    const tiles = el('div', 'mv-tiles');
    const list = heads.map((_, head) => thumbnail(lang, view, layer, head, cell, () => decimals));
    tiles.append(...list);
    row.append(el('span', 'mv-layer-name', name), tiles);
    grid.append(row);
    const boxes = list.map((tile) => tile.querySelector('.mv-box'));
    cells.push(Array.from({ length: most }, (_, h) => boxes[Math.min(h, boxes.length - 1)]));
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
  const lines = el('div', 'mv-lines');
  element.append(scroll, opened, lines);

  let shown = null; // the view marked
  const update = (next) => {
    const { current } = next;
    const changed = !shown || shown.current.layer !== current.layer || shown.current.head !== current.head;
    decimals = next.decimals;
    for (const tile of grid.querySelectorAll('.mv-tile')) {
      const here = Number(tile.dataset.layer) === current.layer && Number(tile.dataset.head) === current.head;
      tile.classList.toggle('current', here);
      const box = tile.querySelector('.mv-box');
      if (here) box.setAttribute('aria-current', 'true');
      else box.removeAttribute('aria-current');
    }
    const box = cells[current.layer]?.[current.head];
    const active = grid.getRootNode().activeElement; // (in a shadow root: its own)
    if (box && !(active && grid.contains(active))) roving.take(box); // (a focus in the grid stays where it is)
    if (changed && shown) opened.textContent = t('modelViewOpened', { layer: current.layer + 1, head: current.head + 1 });
    if (changed || shown.decimals !== next.decimals) {
      const caption = el('h4', 'mv-lines-title', t('modelViewLines', { layer: current.layer + 1, head: current.head + 1 }));
      const linesView = createLinesView({ lang, tokens, weights: weights[current.layer][current.head], decimals: next.decimals });
      linesView.querySelector('.lines-title')?.remove(); // (named by the caption: which head)
      lines.replaceChildren(caption, linesView);
    }
    shown = next;
  };
  update(view);
  return { element, update };
}
