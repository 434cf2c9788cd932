// el.check(cell, value): a learner's value for one cell, or for a whole row, checked against the
// state on screen (engine/check.js names the likely mistake), and the `answer` event it sends.
//
//   cell: { matrix, row, column?, head? } (0-based; matrix as compute() names its results)
//   value: one cell's text or number; without `column`, the row's values: an array, or one
//   text of numbers apart by spaces, semicolons or commas ("0.34, 0.33, 0.33")
//   → { cell, correct, expected, value, mistake, wrong, explanation: { zh, en }, withheld: { zh, en } }
//   (withheld: the explanation without the right value, as an exercise's blank shows it); a row's also
//   has `cells` (each cell's result), expected and value are then arrays.

import { checkAnswer, CHECKED_MATRICES } from '../engine/check.js';
import { engineInput } from '../engine/variant.js';
import { readState } from '../state/model.js';
import { translate, LANGUAGES } from '../ui/i18n.js';

function argumentError(code, message) {
  return Object.assign(new TypeError(message), { code });
}

// The numbers of a row typed as one text: commas separate unless they are the only decimal mark
// ("0,34 0,33": decimal commas apart by spaces).
export function splitRow(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return [];
  const commasSeparate = /[.]/.test(trimmed) || /,\s/.test(trimmed) || !/\s|;/.test(trimmed);
  return trimmed.split(commasSeparate ? /[\s;,]+/ : /[\s;]+/).filter(Boolean);
}

// A row's result: right when every cell is; the mistake the first wrong cell's, said first.
function rowResult(cells, cell) {
  const wrong = cells.filter((c) => !c.correct);
  const first = wrong[0];
  const correct = wrong.length === 0;
  const said = (field) => Object.fromEntries(LANGUAGES.map((lang) => {
    const lead = translate(lang, correct ? 'exerciseRowRight' : 'exerciseRowWrong', { n: cells.length, wrong: wrong.length });
    return [lang, correct ? lead : `${lead}${lang === 'zh' ? '' : ' '}${first[field][lang]}`];
  }));
  return {
    cell, correct, expected: cells.map((c) => c.expected), value: cells.map((c) => c.value),
    mistake: first ? first.mistake : null, wrong: first ? first.wrong : null, explanation: said('explanation'), withheld: said('withheld'), cells,
  };
}

// host: { engine(), state() }; the engine not loaded yet is an error (await el.ready first).
export function checkCell(host, cell, value) {
  if (!cell || typeof cell !== 'object') throw argumentError('bad_cell', 'check(cell, value): cell must be an object { matrix, row, column, head }');
  const { matrix, row, column, head } = cell;
  if (!CHECKED_MATRICES.includes(matrix)) throw argumentError('unknown_matrix', `check(): matrix must be one of ${CHECKED_MATRICES.join(', ')}`);
  const engine = host.engine();
  if (!engine) throw Object.assign(new Error('check(): the engine has not loaded yet (await el.ready)'), { code: 'not_ready' });
  const state = host.state();
  const { matrices, options } = readState(state);
  const input = engineInput(matrices, options);
  const tokens = { queries: state.tokens, keys: state.context ? state.context.tokens : state.tokens };
  const one = (j, typed) => {
    const at = { matrix, row, column: j, ...(head === undefined ? {} : { head }) };
    return { cell: at, ...checkAnswer(engine, input, at, typed, { tokens }) };
  };
  if (column !== undefined) return one(column, value);
  const typed = Array.isArray(value) ? value : splitRow(value);
  const width = rowWidth(engine, input, cell);
  if (typed.length !== width) {
    throw Object.assign(new RangeError(`check(): a row of ${matrix} has ${width} values; ${typed.length} given`), { code: 'row_length' });
  }
  return rowResult(typed.map((v, j) => one(j, v)), { matrix, row, ...(head === undefined ? {} : { head }) });
}

// The number of columns of the matrix (checkAnswer checks the row, and the head again).
function rowWidth(engine, input, { matrix, head }) {
  const result = engine.compute(input);
  const heads = result.heads || [result];
  const h = head ?? 0;
  if (!Number.isInteger(h) || h < 0 || h >= heads.length) throw Object.assign(new RangeError(`check(): head must be an integer in [0, ${heads.length})`), { code: 'range' });
  const several = Boolean(input.heads && (input.heads.length > 1 || input.wo));
  const values = matrix === 'output' && several && head === undefined ? result.output : heads[h][matrix];
  return values[0].length;
}
