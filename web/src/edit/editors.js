// The input editors: the token chips and a grid of cells per matrix, each
// with a text box for pasting the whole matrix (CSV, TSV or JSON). A grid is
// rebuilt only when its shape or labels change, so typing never loses focus.

import { translate } from '../ui/i18n.js';
import { el, headerRow, labelNode, setText, setAttr, skippableOnceLaidOut, LABEL_CHARS } from '../ui/dom.js';
import { TABLE_LIMIT } from '../ui/limits.js';
import { isBlock } from '../io/parse.js';
import { makeScrubbable } from './scrub.js';

// Token chips: each an editable text field, a padding switch (when the
// sentence gives the keys: `padding` is then one boolean per token, else
// null) and a remove button. handlers: {onEdit(i, text), onRemove(i), onTogglePad(i)}.
// Chips are added and removed at the end as the sentence grows or shrinks
// (typing at n = 512 does not rebuild 512 chips), and at most CHIP_LIMIT are
// shown: beyond it a note says how many more there are.
export const CHIP_LIMIT = 512;

export function renderTokenEditor(list, lang, tokens, handlers, padding = null) {
  const key = `${lang}|${padding !== null}`;
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren();
    chipsWritten.delete(list);
  }
  // the same chips as written last (an edit of X at n = 512 re-read 512 chips: 2.5 ms)
  const last = chipsWritten.get(list);
  if (last && sameList(last.tokens, tokens) && sameList(last.padding, padding)) return;
  chipsWritten.set(list, { tokens: [...tokens], padding: padding && [...padding] });
  const shown = Math.min(tokens.length, CHIP_LIMIT);
  const chips = list.querySelectorAll('li.token');
  for (let i = shown; i < chips.length; i++) chips[i].remove();
  if (chips.length < shown) {
    const more = list.querySelector('li.token-more');
    const added = tokens.slice(chips.length, shown).map((token, k) => tokenChip(lang, token, chips.length + k, handlers, padding !== null));
    if (more) more.before(...added);
    else list.append(...added);
  }
  const hidden = tokens.length - shown;
  let more = list.querySelector('li.token-more');
  if (hidden > 0) {
    if (!more) {
      more = el('li', 'token-more hint');
      list.append(more);
    }
    more.textContent = translate(lang, 'tokensNotShown', { n: hidden });
  } else if (more) {
    more.remove();
  }
  const inputs = list.querySelectorAll('input');
  const pads = list.querySelectorAll('.token-pad');
  const removes = list.querySelectorAll('.token-remove');
  for (let i = 0; i < shown; i++) {
    const token = tokens[i];
    if (inputs[i].value !== token) inputs[i].value = token;
    const size = chipSize(token);
    if (inputs[i].size !== size) inputs[i].size = size;
    if (removes[i].disabled !== (tokens.length === 1)) removes[i].disabled = tokens.length === 1;
    if (padding === null) continue;
    setAttr(pads[i], 'aria-pressed', padding[i] ? 'true' : 'false');
    pads[i].closest('.token').classList.toggle('is-pad', padding[i]);
  }
}

// What a token list's chips show, as renderTokenEditor wrote it: {tokens, padding}
// (forgotten when a chip is typed in: its text is then the person's).
const chipsWritten = new WeakMap();
const sameList = (a, b) => a === b || (a !== null && b !== null && a.length === b.length && a.every((v, i) => v === b[i]));

// A chip fits its token up to LABEL_CHARS characters (a longer one scrolls inside it).
const chipSize = (token) => Math.max(2, Array.from(token.slice(0, 2 * LABEL_CHARS)).slice(0, LABEL_CHARS).length + 1);

function tokenChip(lang, token, i, handlers, withPadding) {
  const li = el('li', 'token');
  const input = el('input', 'token-input');
  input.type = 'text';
  input.value = token;
  input.size = chipSize(token);
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.setAttribute('aria-label', translate(lang, 'tokenN', { n: i + 1 }));
  input.addEventListener('input', () => {
    chipsWritten.delete(li.parentElement);
    handlers.onEdit(i, input.value);
  });
  const parts = [el('span', 'token-index', String(i + 1)), input];
  if (withPadding) {
    const pad = el('button', 'token-pad', translate(lang, 'padShort'));
    pad.type = 'button';
    pad.title = translate(lang, 'padTitle');
    pad.setAttribute('aria-label', translate(lang, 'padTokenN', { n: i + 1 }));
    pad.addEventListener('click', () => handlers.onTogglePad(i));
    parts.push(pad);
  }
  const remove = el('button', 'token-remove', '×');
  remove.type = 'button';
  remove.setAttribute('aria-label', translate(lang, 'removeTokenN', { n: i + 1 }));
  remove.addEventListener('click', () => handlers.onRemove(i));
  li.append(...parts, remove);
  return li;
}

// What a small editor's grid shows: {texts: the text written in each input,
// row by row; bad: the input marked invalid, or null}.
const gridWritten = new WeakMap();

// One matrix editor. spec: {field, id (the editor's, e.g. 'wq' for every
// head's W_Q), name, lang, rowLabels, colLabels, texts (rows × cols
// strings), badCell ([r, c] or null)}. handlers: {onCell(r, c,
// text), onPaste(r, c, text) → true when it took the pasted block (parse.js's
// isBlock), onApply(text), onHold(true/false) around a number's drag (scrub.js)}.
export function renderMatrixEditor(container, spec, handlers) {
  const { field, name, lang, rowLabels, colLabels, badCell } = spec;
  const rows = rowLabels.length;
  const cols = colLabels.length;
  const large = rows > TABLE_LIMIT || cols > TABLE_LIMIT;
  const key = [field, lang, rows, cols, large, ...rowLabels].join('\u0001');
  const built = container.dataset.key !== key;
  if (built) {
    container.dataset.key = key;
    buildEditor(container, spec, handlers, large);
    skippableOnceLaidOut([container]); // skipped off screen at its new size (style.css)
    gridWritten.set(container, { texts: [], bad: null, inputs: [...container.querySelectorAll('.grid input')] });
  }
  setText(container.querySelector('.grid-shape'), `${rows} × ${cols}`);
  if (!large) {
    const { texts } = spec;
    const written = gridWritten.get(container);
    const { inputs, texts: shown } = written;
    // only a cell whose text changed is read and written (reading 1 024 inputs'
    // values cost a drag's every move); a typed text is the model's already, and left as it is
    for (let r = 0, i = 0; r < rows; r++) {
      const row = texts[r];
      for (let c = 0; c < cols; c++, i++) {
        const text = row[c];
        if (shown[i] === text) continue;
        shown[i] = text;
        if (inputs[i].value !== text) inputs[i].value = text;
      }
    }
    const bad = badCell && inputs[badCell[0] * cols + badCell[1]];
    if (written.bad !== bad) {
      written.bad?.removeAttribute('aria-invalid');
      bad?.setAttribute('aria-invalid', 'true');
      written.bad = bad;
    }
  }
  const area = container.querySelector('details textarea');
  latestSpec.set(area, spec);
  if (built) showSoon(area);
  else if (!waiting.has(area)) showText(area);
  setAttr(container, 'data-field', field);
  setAttr(container, 'data-name', name);
}

// The text box shows the current matrix unless the user is writing in it
// (it holds something other than what was last shown or applied there).
// Its text is made only while the box is open (spec.texts may be a getter:
// X of 4096 × 64 is 262 144 cells), and only when a cell differs from the
// texts last shown (megabytes of text take seconds to lay out; joining
// three 64 × 64 matrices on every edit, milliseconds).
const latestSpec = new WeakMap(); // textarea → the spec last rendered
const shown = new WeakMap(); // textarea → {texts, text}: the matrix it last showed, as written there

function showText(area) {
  waiting.delete(area);
  if (!area.closest('details').open || document.activeElement === area) return;
  const { texts } = latestSpec.get(area);
  const last = shown.get(area);
  // a new box holds nothing until shown, unless the user wrote in it first
  if (last ? sameTexts(last.texts, texts) || area.value !== last.text : area.value !== '') return;
  area.value = matrixText(texts);
  shown.set(area, { texts: snapshot(texts), text: area.value });
}

// A text box just built (another head's W_Q, W_K, W_V; a new shape) is
// written in a frame of its own, one box a frame, empty meanwhile: laying out
// a 64 × 64 matrix's text takes the browser 15–30 ms, and a head switch
// wrote three at once.
const waiting = new Set(); // text boxes built and not yet written, in order
let nextWrite = 0; // the frame or task that writes the next one

function showSoon(area) {
  waiting.add(area);
  if (!nextWrite) writeNext();
}

function writeNext() {
  nextWrite = requestAnimationFrame(() => {
    nextWrite = setTimeout(() => {
      nextWrite = 0;
      const [area] = waiting;
      if (!area) return;
      if (area.isConnected) showText(area);
      else waiting.delete(area); // replaced before its turn
      if (waiting.size > 0) writeNext();
    }, 0);
  });
}

// The texts may be the model's own rows, edited in place later.
const snapshot = (texts) => texts.map((row) => row.slice());

function sameTexts(a, b) {
  if (a.length !== b.length) return false;
  for (let r = 0; r < a.length; r++) {
    const x = a[r];
    const y = b[r];
    if (x.length !== y.length) return false;
    for (let c = 0; c < x.length; c++) if (x[c] !== y[c]) return false;
  }
  return true;
}

// A text box's matrix: a row a line, each column right-aligned with spaces.
// Not tabs: each tab starts a text run of its own, and a 64 × 64 matrix with
// tabs took the browser 45 ms to lay out and paint, with spaces 10 (a copy
// from the box puts tabs back: copyAsCells).
function matrixText(texts) {
  const widths = [];
  for (const row of texts) for (let c = 0; c < row.length; c++) widths[c] = Math.max(widths[c] ?? 0, row[c].length);
  return texts.map((row) => row.map((text, c) => text.padStart(widths[c])).join('  ')).join('\n');
}

// A copy of numbers and spaces from a text box carries a tab between cells, as
// a spreadsheet's copy does, so it pastes into a spreadsheet's cells; parse.js
// reads it as before. Anything else (commas, JSON, a word) is copied as it is.
const NUMBERS_AND_SPACES = /^[\d.eE+\- \n]*$/;

function copyAsCells(event) {
  const area = event.currentTarget;
  const text = area.value.slice(area.selectionStart, area.selectionEnd);
  if (!event.clipboardData || !text.includes(' ') || !NUMBERS_AND_SPACES.test(text)) return;
  const cells = text.split('\n').map((line) => line.trim().split(/ +/).join('\t')).join('\n');
  event.clipboardData.setData('text/plain', cells);
  event.preventDefault();
}

// Matrices up to this many cells open their text box at once (a grid's or
// X of 64 × 64); larger ones when the user opens it.
const OPEN_TEXT_CELLS = 64 * 64;

function buildEditor(container, spec, handlers, large) {
  const { id, name, lang, rowLabels, colLabels } = spec;
  const t = (key, params) => translate(lang, key, params);
  const nodes = [];
  if (large) {
    nodes.push(el('p', 'hint', t('gridTooLarge', { max: TABLE_LIMIT })));
  } else {
    const table = el('table', 'grid');
    const caption = el('caption', 'visually-hidden', t('gridCaption', { name }));
    const headRow = headerRow(colLabels);
    const head = el('thead');
    head.append(headRow);
    const body = el('tbody');
    rowLabels.forEach((rowLabel, r) => {
      const tr = el('tr');
      const th = labelNode('th', '', rowLabel);
      th.scope = 'row';
      tr.append(th);
      colLabels.forEach((colLabel, c) => {
        const td = el('td');
        const input = el('input');
        input.type = 'text';
        input.inputMode = 'decimal';
        input.autocomplete = 'off';
        input.spellcheck = false;
        input.dataset.r = r;
        input.dataset.c = c;
        input.setAttribute('aria-label', `${name}[${rowLabel}, ${colLabel}]`);
        input.addEventListener('input', () => handlers.onCell(r, c, input.value));
        // a block of cells goes to onPaste; one number (0,5 included) is the cell's own text
        input.addEventListener('paste', (event) => {
          const text = event.clipboardData ? event.clipboardData.getData('text/plain') : '';
          if (isBlock(text) && handlers.onPaste(r, c, text)) event.preventDefault();
        });
        td.append(input);
        tr.append(td);
      });
      body.append(tr);
    });
    table.append(caption, head, body);
    // Up/Down/Enter move between rows, as in a spreadsheet (Alt+Up/Down step the number: scrub.js).
    table.addEventListener('keydown', (event) => {
      const input = event.target;
      if (!(input instanceof HTMLInputElement) || event.altKey) return;
      const step = { ArrowUp: -1, ArrowDown: 1, Enter: event.shiftKey ? -1 : 1 }[event.key];
      if (step === undefined) return;
      const next = table.querySelector(`input[data-r="${Number(input.dataset.r) + step}"][data-c="${input.dataset.c}"]`);
      event.preventDefault();
      if (next) next.focus();
    });
    makeScrubbable(table, { onCell: handlers.onCell, onHold: handlers.onHold });
    const scroll = el('div', 'grid-scroll');
    scroll.append(table);
    nodes.push(scroll);
  }

  const details = el('details', 'paste');
  if (large && rowLabels.length * colLabels.length <= OPEN_TEXT_CELLS) details.open = true;
  const summary = el('summary', '', t('pasteSummary'));
  const areaId = `${id}-text`;
  const label = el('label', 'visually-hidden', t('pasteLabel', { name }));
  label.htmlFor = areaId;
  const area = el('textarea');
  area.id = areaId;
  area.rows = 4;
  area.wrap = 'off';
  area.spellcheck = false;
  area.addEventListener('copy', copyAsCells);
  // (setting `open` above fires a toggle too, later: a box waiting for its turn stays waiting)
  details.addEventListener('toggle', () => {
    if (!waiting.has(area)) showText(area);
  });
  const apply = el('button', 'apply', t('pasteApply'));
  apply.type = 'button';
  apply.addEventListener('click', () => {
    if (!handlers.onApply(area.value)) return;
    // the box holds the applied matrix already: not written again (only its formatting may differ)
    shown.set(area, { texts: snapshot(latestSpec.get(area).texts), text: area.value });
  });
  details.append(summary, el('p', 'hint', t('pasteHint')), label, area, apply);
  nodes.push(details);
  container.querySelector('.grid-body').replaceChildren(...nodes);
}
