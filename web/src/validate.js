// Checks everything the user typed before it reaches the engine, so each
// problem can be reported next to the field that caused it.
// Messages are descriptors {key, params} (see i18n.describe) so they can be
// shown in whichever language is current; rows and columns in them are 1-based.

import { tokenize } from './tokenize.js';
import { parseMatrix } from './parse.js';

export const MATRIX_FIELDS = ['x', 'wq', 'wk', 'wv'];

const PARSE_KEYS = {
  empty: 'errMatrixEmpty',
  empty_row: 'errEmptyRow',
  empty_cell: 'errEmptyCell',
  not_number: 'errNotNumber',
  not_finite: 'errNotFinite',
  ragged: 'errRagged',
};

// Row and column arrive 0-based; X's rows are named by their token as well.
function locate(field, row, column, tokens) {
  const params = {};
  if (row !== undefined && row !== null) {
    params.row = row + 1;
    if (field === 'x' && tokens[row] !== undefined) params.token = tokens[row];
  }
  if (column !== undefined && column !== null) params.col = column + 1;
  return params;
}

export function parseErrorMessage(field, error, tokens) {
  const params = locate(field, error.row, error.column, tokens);
  for (const name of ['text', 'count', 'expected']) {
    if (error[name] !== undefined) params[name] = error[name];
  }
  return { key: PARSE_KEYS[error.code], params };
}

export function validateInputs(texts) {
  const tokens = tokenize(texts.sentence);
  const errors = {};
  const matrices = {};

  if (tokens.length === 0) errors.sentence = { key: 'errSentenceEmpty', params: {} };

  for (const field of MATRIX_FIELDS) {
    const parsed = parseMatrix(texts[field]);
    if (parsed.ok) matrices[field] = parsed.rows;
    else errors[field] = parseErrorMessage(field, parsed.error, tokens);
  }

  const { x, wq, wk, wv } = matrices;
  if (x && tokens.length > 0 && x.length !== tokens.length) {
    errors.x = { key: 'errXRows', params: { rows: x.length, tokens: tokens.length } };
  }
  const dModel = x ? x[0].length : undefined;
  if (wq && dModel !== undefined && wq.length !== dModel) {
    errors.wq = { key: 'errWqRows', params: { rows: wq.length, expected: dModel } };
  }
  if (wq && wk && (wk.length !== wq.length || wk[0].length !== wq[0].length)) {
    errors.wk = {
      key: 'errWkShape',
      params: { rows: wk.length, cols: wk[0].length, expRows: wq.length, expCols: wq[0].length },
    };
  }
  if (wv && dModel !== undefined && wv.length !== dModel) {
    errors.wv = { key: 'errWvRows', params: { rows: wv.length, expected: dModel } };
  }

  const ok = Object.keys(errors).length === 0;
  return { ok, tokens, matrices: ok ? matrices : null, errors };
}

const OPERAND_NAMES = { x: 'X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', q: 'Q', k: 'K', v: 'V' };

const ENGINE_KEYS = {
  not_matrix: 'errEngineNotMatrix',
  empty: 'errMatrixEmpty',
  empty_row: 'errEmptyRow',
  ragged: 'errEngineRagged',
  not_number: 'errEngineNotNumber',
  not_finite: 'errEngineNotFinite',
  shape: 'errEngineShape',
  overflow: 'errOverflow',
};

// Maps an engine Error (code, operand, row, column) to the field it concerns
// and a message descriptor. Overflow names a result, not a field, so it goes
// to the general status line. Unknown codes fall back to the engine's own
// English message.
export function engineErrorMessage(error, tokens) {
  const field = MATRIX_FIELDS.includes(error.operand) ? error.operand : null;
  const key = ENGINE_KEYS[error.code];
  if (!key) return { field, message: { key: 'errEngine', params: { message: error.message } } };
  const name = OPERAND_NAMES[error.operand] || error.operand;
  return { field, message: { key, params: { ...locate(field, error.row, error.column, tokens), name } } };
}
