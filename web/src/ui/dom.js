// DOM helpers. Everything is built with createElement/textContent: user text
// never goes through HTML parsing.

import { excerpt } from './quote.js';

// Tokens label rows and columns: one longer than LABEL_CHARS shows cut, with
// '…', and keeps its whole text as the title (on pointing) and the
// accessible name.
export const LABEL_CHARS = 24;

export function labelNode(tag, className, text) {
  const shown = excerpt(text, LABEL_CHARS);
  const node = el(tag, className, shown);
  if (shown !== text) {
    node.title = text;
    node.setAttribute('aria-label', text);
  }
  return node;
}

// Writes that change nothing are skipped: the same text written again still
// replaces the text node, and the page lays itself out again on every move of a
// drag. A node holding one text node gets the new text in that node: replacing
// it (textContent) costs twice the script and about twice the layout (1 024
// table cells in Chromium: 3.3 + 24.5 ms against 1.6 + 13.6 ms).
export function setText(node, text) {
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === 3 /* Node.TEXT_NODE */) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}

export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A table's header row: the corner cell (a plain cell when it has no words: an empty
// header names nothing), then one column header (scope=col) per label.
export function headerRow(colLabels, { corner = '', className = '' } = {}) {
  const row = el('tr');
  row.append(el(corner ? 'th' : 'td', 'corner', corner));
  for (const label of colLabels) {
    const th = labelNode('th', className, label);
    th.scope = 'col';
    row.append(th);
  }
  return row;
}

// A matrix's caption (a table's <caption>, a heatmap's line above it): its name, label and shape.
export function matrixCaption(name, label, rows, cols) {
  return [el('span', 'matrix-name', name), el('span', 'matrix-label', label || ''), el('span', 'matrix-shape', `${rows} × ${cols}`)];
}

export function button(text, onClick, className = '') {
  const node = el('button', className, text);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

// Sets which buttons of a group (Previous, Next, …; Undo, Redo) are disabled.
// A focused button that disables itself hands its focus to the first one left
// enabled, which would otherwise fall to the body. entries: [[button, disabled], …]
export function setDisabled(entries) {
  const focused = entries.some(([node, disabled]) => disabled && node.getRootNode().activeElement === node);
  for (const [node, disabled] of entries) if (!disabled) node.disabled = false;
  if (focused) entries.find(([, disabled]) => !disabled)?.[0].focus();
  for (const [node, disabled] of entries) if (disabled) node.disabled = true;
}

// Saves a blob as a file named `name` (a download).
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

// A promise settled in a task of its own, next in line: between slices of long
// work the page renders and answers input. Not setTimeout(0): nested, it waits
// 4 ms or more each time (1.6 s over the 360 slices of a CSV export at n = 4096).
let channel = null;
const queued = [];
export function nextTask() {
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => { setTimeout(resolve, 0); });
  if (channel === null) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const resolve = queued.shift();
      if (queued.length === 0) channel.port1.unref?.(); // node (tests): an idle port does not keep the process alive
      resolve();
    };
  }
  return new Promise((resolve) => {
    queued.push(resolve);
    channel.port1.ref?.();
    channel.port2.postMessage(null);
  });
}

// A promise settled in a task after the next frame, or after `most` ms when no
// frame comes (a hidden tab draws none).
export function afterFrame(most = 100) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, most);
    requestAnimationFrame(() => setTimeout(() => {
      clearTimeout(timer);
      resolve();
    }, 0));
  });
}

// Marks each node `skippable` (style.css: content-visibility: auto, at the size it
// was last laid out) once it has been laid out, and again after each call (a
// node whose content changed its size: skipped, it would keep the old size),
// if `when(node)` then still holds. Skipped before that, a node would stand in at
// a guessed or stale size, and what follows it would move when it came into view.
let laidOut = null;
const calls = new WeakMap(); // node → the latest call it waits for ({when})
export function skippableOnceLaidOut(nodes, when = () => true) {
  laidOut ||= new ResizeObserver((entries) => {
    for (const { target, contentRect } of entries) {
      if (contentRect.height === 0) continue; // not laid out yet (a closed panel, a hidden section)
      laidOut.unobserve(target);
      const call = calls.get(target);
      requestAnimationFrame(() => {
        if (calls.get(target) !== call) return; // called again, or stopped, since
        calls.delete(target);
        if (call.when(target)) target.classList.add('skippable');
      });
    }
  });
  for (const node of nodes) {
    node.classList.remove('skippable');
    calls.set(node, { when });
    laidOut.observe(node);
  }
}

// The node is laid out always (no longer skippable, nor waiting to be).
export function stopSkipping(node) {
  laidOut?.unobserve(node);
  calls.delete(node);
  node.classList.remove('skippable');
}

// fn(node) on every resize of each node given to the function returned, from one ResizeObserver
// for them all, which lets go of a node once it has left the document (none without ResizeObserver).
function onResizes(fn) {
  let observer = null;
  return (node) => {
    if (typeof ResizeObserver !== 'function') return;
    observer ||= new ResizeObserver((entries) => {
      for (const { target } of entries) {
        if (target.isConnected) fn(target);
        else observer.unobserve(target);
      }
    });
    observer.observe(node);
  };
}

// A box that scrolls sideways says which of its ends have more out of sight: data-more is
// '', 'left', 'right' or 'both' (the CSS fades those ends). markMore(box) measures once (call
// it when the layout is clean: a frame, a scroll); watchMore(box) keeps it so on scrolls and
// resizes (one ResizeObserver for all, which lets go of a box once it leaves the document).
export function markMore(box) {
  const left = box.scrollLeft > 1;
  const right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
  const more = left && right ? 'both' : left ? 'left' : right ? 'right' : '';
  if (box.dataset.more !== more) box.dataset.more = more;
}

// An arrow between two matrices of a group that wraps (flex-wrap) points at the one after it:
// → while that one sits on the arrow's line, ↓ (data-down, a CSS rotation) once it has wrapped
// below. A rotation does not change the layout, so turning the arrow never moves anything.
// One ResizeObserver for all groups; the arrows are the group's children of class op-to.
function pointArrows(group) {
  for (const arrow of group.querySelectorAll(':scope > .op-to')) {
    const next = arrow.nextElementSibling;
    if (!next) continue;
    const down = next.getBoundingClientRect().top >= arrow.getBoundingClientRect().bottom - 1;
    if (down !== arrow.hasAttribute('data-down')) arrow.toggleAttribute('data-down', down);
  }
}
const arrowsOnResize = onResizes(pointArrows);
export function flowArrow(group) {
  const arrow = el('span', 'op op-to', '→');
  arrow.setAttribute('aria-hidden', 'true');
  arrowsOnResize(group);
  return arrow;
}

const moreOnResize = onResizes(markMore);
export function watchMore(box) {
  box.dataset.more = '';
  box.addEventListener('scroll', () => markMore(box), { passive: true });
  moreOnResize(box);
}

// The arrow keys as a move of [rows, cols] in a grid: a heatmap's cells (walkCells) and a
// table's (rovingGrid).
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
export const arrowMove = (key) => ARROWS[key];
export const clampIndex = (i, count) => Math.min(count - 1, Math.max(0, i));

// Roving focus in a grid of cells (rows of them, cells[r][c]): one cell is the one Tab comes
// back to (tabindex 0, the others -1). take(cell) makes `cell` that one; moveFocus(r, c, key)
// takes and focuses the cell an arrow key leads to from r, c (within the grid) and returns
// whether `key` was an arrow.
export function rovingGrid(cells) {
  const take = (cell) => {
    for (const row of cells) for (const other of row) other.tabIndex = -1;
    cell.tabIndex = 0;
  };
  const moveFocus = (r, c, key) => {
    const move = arrowMove(key);
    if (!move) return false;
    const cell = cells[clampIndex(r + move[0], cells.length)][clampIndex(c + move[1], cells[0].length)];
    take(cell);
    cell.focus();
    return true;
  };
  return { take, moveFocus };
}
