// The worksheet: the example on screen as an A4 handout to compute by hand, in the page's
// language. The inputs with their numbers, each step's formula and a blank grid of the result's
// shape (its rows and columns labelled; masked cells given: −∞ before the softmax, 0 after),
// then the answer key on a page of its own (style.css @media print). Of the head in view, with
// the heads' combined output when there are several or W_O.
//   renderWorksheet({ lang, state, result }) → <section> (result(): the element's `result`, asked for only when the sheet fits)

import { translate } from '../ui/i18n.js';
import { el } from '../ui/dom.js';
import { formatNumber, formatCompact } from '../ui/format.js';
import { dimLabels } from '../ui/labels.js';
import { readState } from '../state/model.js';

export const WORKSHEET_LIMIT = 12; // rows or columns of a grid that still fits A4 to write in

// One matrix as a table: its numbers (values) or blank cells (null), masked cells given.
// compact: the inputs, written as given (1, 0.5), not to the decimals of the results
function grid(caption, rowLabels, colLabels, rows, cols, { values = null, masked = null, after = false, decimals = 4, compact = false } = {}) {
  const table = el('table', `ws-grid${values ? ' ws-filled' : ''}`);
  table.append(el('caption', 'ws-caption', `${caption} (${rows} × ${cols})`));
  const head = el('tr');
  head.append(el('td', 'ws-corner'));
  for (const label of colLabels) {
    const th = el('th', 'ws-col', label);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (let r = 0; r < rows; r++) {
    const tr = el('tr');
    const th = el('th', 'ws-row', rowLabels[r]);
    th.scope = 'row';
    tr.append(th);
    for (let c = 0; c < cols; c++) {
      const isMasked = Boolean(masked && masked[r][c]);
      const text = isMasked ? (after ? '0' : '−∞') : values ? (compact ? formatCompact : formatNumber)(values[r][c], decimals) : '';
      tr.append(el('td', isMasked ? 'ws-cell ws-masked' : 'ws-cell', text));
    }
    body.append(tr);
  }
  table.append(thead, body);
  return table;
}

export function renderWorksheet({ lang, state, result: resultOf }) {
  const t = (key, params) => translate(lang, key, params);
  const section = el('section', 'worksheet');
  section.id = 'worksheet';
  section.lang = lang === 'zh' ? 'zh-CN' : 'en';
  if (!state) return section;
  const { options } = readState(state);
  const h = Math.min(state.view.head, state.heads.length - 1);
  const queries = state.tokens;
  const keys = state.context ? state.context.tokens : state.tokens;
  const { wq, wk, wv } = state.heads[h];
  const several = options.heads > 1 || options.usesWo;
  // (the sizes from the state: the result, a copy, is asked for only when the sheet fits; at
  // 4096 tokens that copy is hundreds of MB, made again on every change)
  const outputWidth = options.usesWo ? state.wo[0].length : state.heads.reduce((sum, one) => sum + one.wv[0].length, 0);
  const sizes = [queries.length, keys.length, state.x[0].length, wq[0].length, wv[0].length, ...(several ? [outputWidth] : [])];
  section.append(el('h1', 'ws-title', t('worksheetTitle')));
  if (sizes.some((n) => n > WORKSHEET_LIMIT)) {
    section.append(el('p', 'ws-note', t('worksheetTooLarge', { max: WORKSHEET_LIMIT })));
    return section;
  }
  const result = resultOf();
  if (!result) return section;
  const head = result.heads[h];
  const x = result.xWithPe || state.x;
  const c = state.context ? result.contextWithPe || state.context.x : x;
  const decimals = state.view.decimals;
  section.append(
    el('p', 'ws-example', t('worksheetExample', { tokens: queries.join(' ') }) + (options.heads > 1 ? ` · ${t('headN', { n: h + 1 })}` : '')),
    el('p', 'ws-name', t('worksheetName')),
    el('p', 'ws-note', t('worksheetNote', { places: decimals })),
  );
  const dims = (m) => dimLabels(m[0].length);
  // [title, formula, caption, row labels, col labels, values, masked, after softmax]
  const masked = result.masked;
  const steps = [
    [t('stepProjectTitle'), t('stepProjectFormula'), 'Q', queries, dims(head.q), head.q],
    [null, null, 'K', keys, dims(head.k), head.k],
    [null, null, 'V', keys, dims(head.v), head.v],
    [t('stepScoresTitle'), t('stepScoresFormula'), 'Scores', queries, keys, head.scores],
    [t('stepScaleTitle'), t('stepScaleFormula'), 'Scaled', queries, keys, head.scaled, masked],
    [t('stepSoftmaxTitle'), t('stepSoftmaxFormula'), 'Weights', queries, keys, head.weights, masked, true],
    [t('stepOutputTitle'), t('stepOutputFormula'), several ? `head_${h + 1}` : 'Output', queries, dims(head.output), head.output],
    ...(several ? [[t('worksheetCombined'), options.usesWo ? 'Output = Concat(head_1 … head_h)·W_O' : 'Output = Concat(head_1 … head_h)', 'Output', queries, dims(result.output), result.output]] : []),
  ];
  const inputs = el('div', 'ws-part ws-inputs');
  inputs.append(el('h2', 'ws-heading', t('worksheetInputs')));
  const given = (name, m, rowLabels = dimLabels(m.length)) => grid(name, rowLabels, dims(m), m.length, m[0].length, { values: m, decimals: 8, compact: true });
  inputs.append(given(result.xWithPe ? 'X + PE' : 'X', x, queries));
  if (state.context) inputs.append(given(result.contextWithPe ? 'C + PE' : 'C', c, keys));
  inputs.append(given('W_Q', wq), given('W_K', wk), given('W_V', wv));
  if (several && state.wo) inputs.append(given('W_O', state.wo));
  section.append(inputs);

  const part = (filled) => {
    const nodes = [];
    let n = 0;
    let block = null;
    for (const [title, formula, caption, rowLabels, colLabels, values, mask, after] of steps) {
      if (title) {
        n += 1;
        block = el('div', 'ws-step');
        block.append(el('h3', 'ws-step-title', t('worksheetStep', { n, name: title })));
        if (formula) block.append(el('p', 'ws-formula', formula));
        nodes.push(block);
      }
      block.append(grid(caption, rowLabels, colLabels, values.length, values[0].length, { values: filled ? values : null, masked: mask, after, decimals }));
    }
    return nodes;
  };
  const work = el('div', 'ws-part ws-work');
  work.append(...part(false));
  const answers = el('div', 'ws-part ws-answers');
  answers.append(el('h2', 'ws-heading', t('worksheetAnswers')), el('p', 'ws-note', t('worksheetAnswersNote', { places: decimals })), ...part(true));
  section.append(work, answers);
  return section;
}
