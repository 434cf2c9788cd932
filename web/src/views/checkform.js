// "Check my answer": under a step's work, the learner types the value they computed for the cell
// explained (or its whole row) and reads whether it is right to the decimals written, the likely
// mistake, and that computation's value next to the right one. ctx.check(cell, value) is the
// element's check() (element/check.js), which also sends the `answer` event.

import { translate } from '../ui/i18n.js';
import { el } from '../ui/dom.js';
import { formatCompact } from '../ui/format.js';
import { matrixCatalog } from './catalog.js';

const MATRICES = { Q: 'q', K: 'k', V: 'v', Scores: 'scores', Scaled: 'scaled', Weights: 'weights', Output: 'output' };
let forms = 0; // ids of the inputs, one per form made

// The cell of check() a matrix shown as `name` holds at (r, c), or null when it is none checked.
export function checkedCell(name, r, c, ctx) {
  const several = ctx.options.heads > 1 || ctx.options.usesWo;
  const head = /^head_(\d+)$/.exec(name);
  if (head) return { matrix: 'output', row: r, column: c, head: Number(head[1]) - 1 };
  const matrix = MATRICES[name];
  if (!matrix) return null;
  if (matrix === 'output') return { matrix, row: r, column: c };
  return { matrix, row: r, column: c, ...(several ? { head: ctx.head } : {}) };
}

// The words of a refusal of check() (a bad number, a row of the wrong length), in lang.
export function refusal(lang, error, text) {
  if (error.code === 'not_number' || error.code === 'not_finite') {
    return translate(lang, 'exerciseNotNumber', { text: /“(.*)”/.exec(error.message)?.[1] ?? text });
  }
  if (error.code === 'row_length') {
    const [, n, given] = /has (\d+) values; (\d+) given/.exec(error.message) || [];
    return translate(lang, 'exerciseRowLength', { n, got: given });
  }
  throw error;
}

export function createCheckForm() {
  const id = `check-${++forms}`;
  const form = el('form', 'check-answer');
  const label = el('label', 'check-label');
  label.htmlFor = id;
  const input = el('input', 'check-input');
  Object.assign(input, { id, type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false });
  const submit = el('button', 'check-submit');
  submit.type = 'submit';
  const result = el('div', 'check-result');
  result.setAttribute('role', 'status');
  const row = el('div', 'check-row');
  row.append(input, submit);
  form.append(label, row, result);
  form.hidden = true;
  let shown = null; // { ctx, cell, name, r, c }
  let last = null; // the last check's { value, outcome } for this cell, shown again on a render

  const render = () => {
    const { ctx, name, r, c } = shown;
    const t = (key, params) => translate(ctx.lang, key, params);
    const entry = matrixCatalog(ctx)[name];
    const rowLabel = entry.rowLabels[r] ?? String(r + 1);
    form.setAttribute('aria-label', t('exerciseCheckTitle'));
    label.textContent = t('exerciseCheckLabel', { cell: `${name}[${rowLabel}, ${entry.colLabels[c]}]`, row: `${name}[${rowLabel}, :]` });
    submit.textContent = t('exerciseCheckButton');
    result.replaceChildren(...(last ? outcomeNodes(ctx.lang, last) : []));
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!shown) return;
    const text = input.value.trim();
    const { ctx, cell } = shown;
    if (text === '') {
      last = { message: translate(ctx.lang, 'exerciseCheckEmpty') };
    } else {
      const many = /\S\s+\S|;/.test(text) || (/,/.test(text) && /\./.test(text));
      const asked = many ? { matrix: cell.matrix, row: cell.row, ...(cell.head === undefined ? {} : { head: cell.head }) } : cell;
      try {
        last = { outcome: ctx.check(asked, text), text };
      } catch (error) {
        last = { message: refusal(ctx.lang, error, text) };
      }
    }
    render();
  });

  return {
    element: form,
    // The cell explained now (name as the step shows it), or hidden when it is none checked.
    // blank: an exercise's cell still to fill in, checked under "Fill in" instead (exercise.js).
    show(ctx, name, r, c, blank = false) {
      const cell = ctx.check && !blank && Number.isFinite(matrixCatalog(ctx)[name]?.data[r]?.[c]) ? checkedCell(name, r, c, ctx) : null;
      // the same cell of the same numbers keeps what was typed and its verdict
      const same = shown && cell && shown.name === name && shown.r === r && shown.c === c && shown.ctx.full === ctx.full;
      if (!same) {
        input.value = '';
        last = null;
      }
      shown = cell ? { ctx, cell, name, r, c } : null;
      form.hidden = !cell;
      if (cell) render();
    },
  };
}

// The verdict, then, when wrong, the likely computation's value beside the right one (a row: each cell's).
// withhold: an exercise's blank still to fill in: the right value is not said (its hints give it).
export function outcomeNodes(lang, { message, outcome, text }, { withhold = false } = {}) {
  const t = (key, params) => translate(lang, key, params);
  if (message) return [el('p', 'check-verdict check-refused', message)];
  const verdict = el('p', `check-verdict ${outcome.correct ? 'check-right' : 'check-wrong'}`, outcome[withhold ? 'withheld' : 'explanation'][lang]);
  const nodes = [verdict];
  if (outcome.cells) {
    const list = el('ol', 'check-cells');
    for (const one of outcome.cells) {
      const item = el('li', one.correct ? 'check-right' : 'check-wrong', `${formatCompact(one.value, 12)} ${one.correct ? '✓' : '✗'}`);
      item.setAttribute('aria-label', `${formatCompact(one.value, 12)}: ${t(one.correct ? 'exerciseCellRight' : 'exerciseCellWrong')}`);
      list.append(item);
    }
    nodes.push(list);
  }
  const first = outcome.cells ? outcome.cells.find((one) => !one.correct) : outcome;
  if (first && !first.correct) {
    const table = el('table', 'check-compare');
    const line = (head, value, className) => {
      const tr = el('tr', className);
      tr.append(el('th', '', head), el('td', '', value));
      table.append(tr);
    };
    line(t('exerciseYours'), outcome.cells ? formatCompact(first.value, 12) : text, 'check-yours');
    if (first.mistake) line(t('exerciseLikely', { name: t(`mistake_${first.mistake}`) }), formatCompact(first.wrong, 8), 'check-likely');
    if (!withhold) line(t('exerciseRight'), formatCompact(first.expected, 8), 'check-expected');
    nodes.push(table);
    if (!first.mistake) nodes.push(el('p', 'check-note', t('exerciseUnexplained')));
  }
  return nodes;
}
