// "Fill in": a step's blanks (blanks.js) listed under its matrices, each with its answer box, a
// Check button (ctx.check: element/check.js, the `answer` event) and hints in order: the formula
// of the cell, then show-the-work of another cell of the same matrix, then the answer. A right
// value, or the answer shown, fills the cell in (ctx.onExercise: the element renders again).
// One panel per step, kept across renders: what the reader typed and read stays.

import { translate } from '../ui/i18n.js';
import { el, button } from '../ui/dom.js';
import { formatNumber } from '../ui/format.js';
import { explainCell } from './work.js';
import { matrixCatalog } from './catalog.js';
import { exerciseOf, withoutBlanks, blankText, MATRIX_NAMES } from './blanks.js';
import { checkedCell, outcomeNodes, refusal } from './checkform.js';

const HINTS = 3; // the formula, another cell's work, the answer
const MAX_LISTED = 24; // blanks listed in one step; the rest wait for these
let panels = 0;

export function createExercisePanel() {
  const id = ++panels;
  const section = el('section', 'exercise');
  section.hidden = true;
  const title = el('h4', 'exercise-title');
  title.id = `exercise-title-${id}`;
  section.setAttribute('aria-labelledby', title.id);
  const intro = el('p', 'exercise-intro');
  const count = el('p', 'exercise-count');
  count.setAttribute('role', 'status');
  const list = el('ol', 'exercise-cells');
  section.append(title, intro, count, list);
  const rows = new Map(); // cell key → its row's nodes, kept while the cell is listed
  let current = null; // { ctx, exercise, names }

  const hintLines = (ctx, name, r, c, level) => {
    const t = (key, params) => translate(ctx.lang, key, params);
    const lines = [];
    const shown = withoutBlanks(ctx);
    if (level >= 1) lines.push([t('exerciseHintFormula'), blankText(explainCell(name, r, c, shown).lines[0])]);
    const other = current.exercise.progress.others.get(`${name}:${r}:${c}`);
    if (level >= 2 && other) {
      const work = explainCell(name, other.r, other.c, shown).lines.map(blankText);
      lines.push([t(other.blank ? 'exerciseHintOtherBlank' : 'exerciseHintOther', { cell: cellName(ctx, name, other.r, other.c) }), ...work]);
    }
    return lines;
  };

  const renderRow = (row) => {
    const { ctx, exercise } = current;
    const t = (key, params) => translate(ctx.lang, key, params);
    const { name, r, c, key } = row;
    const given = exercise.progress.given.get(key);
    const level = exercise.progress.hints.get(key) || 0;
    row.label.textContent = cellName(ctx, name, r, c);
    row.check.textContent = t('exerciseCheckButton');
    row.hint.textContent = level >= HINTS - 1 ? t('exerciseHintAnswer') : t('exerciseHintNext', { n: level + 1, total: HINTS });
    const wasFocused = row.hint.getRootNode().activeElement === row.hint;
    row.hint.disabled = level >= HINTS || given !== undefined;
    if (wasFocused && row.hint.disabled) row.input.focus(); // a button that disables itself hands its focus on
    row.item.classList.toggle('exercise-done', given !== undefined);
    const nodes = [];
    for (const [lead, ...lines] of hintLines(ctx, name, r, c, Math.min(level, HINTS - 1))) {
      const block = el('div', 'exercise-hint');
      block.append(el('p', 'exercise-hint-lead', lead), ...lines.map((line) => el('p', 'work-line', line)));
      nodes.push(block);
    }
    if (given === 'shown') {
      const value = matrixCatalog(ctx)[name].data[r][c];
      nodes.push(el('p', 'exercise-answer', t('exerciseAnswerShown', { cell: cellName(ctx, name, r, c), value: formatNumber(value, ctx.decimals), full: value.toPrecision(8) })));
    }
    if (row.last) nodes.push(...outcomeNodes(ctx.lang, row.last, { withhold: given === undefined }));
    row.result.replaceChildren(...nodes);
  };

  const give = (row, what) => {
    current.exercise.progress.given.set(row.key, what);
    current.ctx.onExercise?.();
  };

  const makeRow = (name, r, c, key) => {
    const item = el('li', 'exercise-cell');
    const form = el('form', 'exercise-form');
    const label = el('label', 'exercise-label');
    const input = el('input', 'exercise-input');
    const inputId = `exercise-${id}-${key.replace(/[^a-z0-9]+/gi, '-')}`;
    Object.assign(input, { id: inputId, type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false });
    label.htmlFor = inputId;
    const check = el('button', 'exercise-check');
    check.type = 'submit';
    const row = { name, r, c, key, item, label, input, check, last: null };
    row.hint = button('', () => {
      const { progress } = current.exercise;
      const level = (progress.hints.get(key) || 0) + 1;
      progress.hints.set(key, level);
      if (level >= HINTS) {
        give(row, 'shown');
        return;
      }
      if (level === 2) {
        // another cell's work: one not asked if there is one, else a blank given for it
        const other = otherCell(current.exercise, name, r, c, current.ctx);
        progress.others.set(`${name}:${r}:${c}`, other);
        if (other?.blank) {
          progress.given.set(current.exercise.keyOf(name, other.r, other.c), 'shown');
          current.ctx.onExercise?.();
          return;
        }
      }
      renderRow(row);
    }, 'exercise-hint-button');
    row.result = el('div', 'exercise-result');
    row.result.setAttribute('aria-live', 'polite');
    form.append(label, input, check, row.hint);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const { ctx } = current;
      const text = input.value.trim();
      if (text === '') row.last = { message: translate(ctx.lang, 'exerciseCheckEmpty') };
      else {
        try {
          row.last = { outcome: ctx.check(checkedCell(name, r, c, ctx), text), text };
        } catch (error) {
          row.last = { message: refusal(ctx.lang, error, text) };
        }
      }
      if (row.last.outcome?.correct && !current.exercise.progress.given.has(key)) give(row, 'solved');
      else renderRow(row);
    });
    item.append(form, row.result);
    return row;
  };

  return {
    element: section,
    // The step's matrices (names as shown): its blanks listed, or the panel hidden without any.
    update(ctx, names) {
      const exercise = exerciseOf(ctx);
      const asks = (name) => exercise.items.some((item) => MATRIX_NAMES[item.matrix] === name);
      const mine = exercise ? names.filter((name, i) => names.indexOf(name) === i && asks(name)) : [];
      section.hidden = mine.length === 0;
      if (section.hidden) return;
      const t = (key, params) => translate(ctx.lang, key, params);
      current = { ctx, exercise, names: mine };
      title.textContent = t('exerciseTitle');
      const large = mine.filter((name) => exercise.large(name));
      const outside = exercise.outside.filter((text) => mine.some((name) => MATRIX_NAMES[text.replace(/\[.*$/, '')] === name));
      intro.textContent = [
        t('exerciseIntro'),
        ...(large.length > 0 ? [t('exerciseTooLarge', { names: large.join(', ') })] : []),
        ...(outside.length > 0 ? [t('exerciseOutside', { list: outside.join(', ') })] : []),
      ].join(ctx.lang === 'zh' ? '' : ' ');
      const cells = mine.filter((name) => !exercise.large(name)).flatMap((name) => exercise.cells(name).map(({ r, c }) => ({ name, r, c, key: exercise.keyOf(name, r, c) })));
      const done = cells.filter((cell) => exercise.progress.given.has(cell.key)).length;
      count.textContent = t('exerciseCount', { count: done, n: cells.length });
      // in the matrix's order; beyond MAX_LISTED the blanks first
      const blanksFirst = cells.length > MAX_LISTED ? [...cells.filter((cell) => !exercise.progress.given.has(cell.key)), ...cells.filter((cell) => exercise.progress.given.has(cell.key))] : cells;
      const listed = blanksFirst.slice(0, MAX_LISTED);
      for (const key of [...rows.keys()]) if (!listed.some((cell) => cell.key === key)) rows.delete(key);
      const ordered = cells.filter((cell) => listed.includes(cell)).map((cell) => {
        if (!rows.has(cell.key)) rows.set(cell.key, makeRow(cell.name, cell.r, cell.c, cell.key));
        return rows.get(cell.key);
      });
      for (const row of ordered) renderRow(row);
      const focused = section.contains(section.getRootNode().activeElement) ? section.getRootNode().activeElement : null;
      list.replaceChildren(...ordered.map((row) => row.item));
      if (focused && !focused.isConnected) list.querySelector('input')?.focus();
      else if (focused && focused !== section.getRootNode().activeElement) focused.focus();
    },
  };
}

// The cell's name as the steps write it: Weights[我, 爱].
export function cellName(ctx, name, r, c) {
  const entry = matrixCatalog(ctx)[name];
  return `${name}[${entry.rowLabels[r] ?? r + 1}, ${entry.colLabels[c] ?? c + 1}]`;
}

// Another cell of the same matrix for hint 2, nearest in the same row, then in the others: one
// not in the exercise, else another blank not yet given (blank: its work gives it away, so it
// is filled in too); null when there is none.
function otherCell(exercise, name, r, c, ctx) {
  const data = matrixCatalog(ctx)[name].data;
  const asked = new Set(exercise.cells(name).map((cell) => `${cell.r}:${cell.c}`));
  const order = [];
  for (let dr = 0; dr < data.length; dr++) {
    for (const rr of dr === 0 ? [r] : [r - dr, r + dr]) {
      if (rr < 0 || rr >= data.length) continue;
      for (let cc = 0; cc < data[0].length; cc++) order.push({ r: rr, c: cc, d: dr * data[0].length + Math.abs(cc - c) });
    }
  }
  order.sort((a, b) => a.d - b.d);
  const finite = order.filter((cell) => (cell.r !== r || cell.c !== c) && Number.isFinite(data[cell.r][cell.c]));
  const free = finite.find((cell) => !asked.has(`${cell.r}:${cell.c}`));
  if (free) return { r: free.r, c: free.c, blank: false };
  const blank = finite.find((cell) => !exercise.progress.given.has(exercise.keyOf(name, cell.r, cell.c)));
  return blank ? { r: blank.r, c: blank.c, blank: true } : null;
}
