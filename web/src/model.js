// The inputs as the user edits them: tokens, dimensions, and the text of
// every cell of X, W_Q, W_K and W_V. Cell texts live in "stores" that may be
// larger than the current shape, so shrinking d_model and growing it back
// (typing 16 goes through 1) loses nothing; missing cells read as "0".
// Messages are descriptors {key, params} (see i18n.describe); rows and columns
// in them are 1-based.

import { parseNumber } from './parse.js';

export const MATRIX_FIELDS = ['x', 'wq', 'wk', 'wv'];
export const MIN_DIM = 1;
export const MAX_DIM = 64;
export const FIELD_NAMES = { x: 'X', wq: 'W_Q', wk: 'W_K', wv: 'W_V' };

export function shapeOf(field, n, { dModel, dk, dv }) {
  if (field === 'x') return [n, dModel];
  return [dModel, field === 'wv' ? dv : dk];
}

export function cellText(store, r, c) {
  const row = store[r];
  return row && row[c] !== undefined ? row[c] : '0';
}

export function setCell(store, r, c, text) {
  while (store.length <= r) store.push([]);
  const row = store[r];
  while (row.length < c) row.push('0');
  row[c] = text;
}

export function textsFromNumbers(matrix) {
  return matrix.map((row) => row.map((v) => String(v)));
}

export function createModel({ tokens, x, wq, wk, wv }) {
  return {
    tokens: [...tokens],
    dims: { dModel: x[0].length, dk: wq[0].length, dv: wv[0].length },
    cells: { x: textsFromNumbers(x), wq: textsFromNumbers(wq), wk: textsFromNumbers(wk), wv: textsFromNumbers(wv) },
  };
}

// Row and column arrive 0-based; X's rows are named by their token as well.
export function locate(field, row, column, tokens) {
  const params = {};
  if (row !== undefined && row !== null) {
    params.row = row + 1;
    if (field === 'x' && tokens[row] !== undefined) params.token = tokens[row];
  }
  if (column !== undefined && column !== null) params.col = column + 1;
  return params;
}

const CELL_KEYS = { empty_cell: 'errCellEmpty', not_number: 'errNotNumber', not_finite: 'errNotFinite' };

// The numbers of one matrix at its current shape, or the first bad cell.
export function readMatrix(model, field) {
  const [rows, cols] = shapeOf(field, model.tokens.length, model.dims);
  const store = model.cells[field];
  const data = [];
  for (let r = 0; r < rows; r++) {
    const row = new Array(cols);
    for (let c = 0; c < cols; c++) {
      const text = cellText(store, r, c).trim();
      const parsed = parseNumber(text);
      if (!parsed.ok) {
        const params = { ...locate(field, r, c, model.tokens), text };
        return { ok: false, row: r, column: c, message: { key: CELL_KEYS[parsed.code], params } };
      }
      row[c] = parsed.value;
    }
    data.push(row);
  }
  return { ok: true, data };
}

export function tokenErrors(tokens) {
  if (tokens.length === 0) return { key: 'errSentenceEmpty', params: {} };
  const blank = tokens.findIndex((t) => t.trim() === '');
  if (blank >= 0) return { key: 'errTokenEmpty', params: { n: blank + 1 } };
  return null;
}

// Everything the engine needs, or the errors by field ('tokens', 'x', ...).
// errors[field] = {message, row, column} so a grid can mark the bad cell.
export function readModel(model) {
  const errors = {};
  const tokenError = tokenErrors(model.tokens);
  if (tokenError) errors.tokens = { message: tokenError };
  const matrices = {};
  for (const field of MATRIX_FIELDS) {
    const read = readMatrix(model, field);
    if (read.ok) matrices[field] = read.data;
    else errors[field] = read;
  }
  const ok = Object.keys(errors).length === 0;
  return { ok, matrices: ok ? matrices : null, errors };
}

export function parseDim(text) {
  const value = Number(text.trim());
  if (text.trim() !== '' && Number.isInteger(value) && value >= MIN_DIM && value <= MAX_DIM) return { ok: true, value };
  return { ok: false, message: { key: 'errDim', params: { min: MIN_DIM, max: MAX_DIM } } };
}

// A whole matrix typed or pasted as text replaces the field; its width sets
// the dimension it stands for (X: d_model; W_Q, W_K: d_k; W_V: d_v) while
// its height must fit what it is multiplied with. Returns an error
// descriptor, or null once applied.
export function applyMatrix(model, field, rows) {
  const height = rows.length;
  const width = rows[0].length;
  const n = model.tokens.length;
  if (width > MAX_DIM) return { key: 'errTooWide', params: { cols: width, max: MAX_DIM } };
  if (field === 'x' && height !== n) return { key: 'errXRows', params: { rows: height, tokens: n } };
  if (field !== 'x' && height !== model.dims.dModel) {
    return { key: 'errWRows', params: { name: FIELD_NAMES[field], rows: height, expected: model.dims.dModel } };
  }
  model.cells[field] = textsFromNumbers(rows);
  if (field === 'x') model.dims.dModel = width;
  else if (field === 'wv') model.dims.dv = width;
  else model.dims.dk = width;
  return null;
}

// Writes a pasted block into a grid starting at (r0, c0); what falls outside
// the current shape is left out, as spreadsheets do.
export function pasteBlock(model, field, r0, c0, rows) {
  const [height, width] = shapeOf(field, model.tokens.length, model.dims);
  for (let r = 0; r < rows.length && r0 + r < height; r++) {
    for (let c = 0; c < rows[r].length && c0 + c < width; c++) {
      setCell(model.cells[field], r0 + r, c0 + c, String(rows[r][c]));
    }
  }
}

export function setTokens(model, tokens) {
  model.tokens = [...tokens];
}

export function removeToken(model, i) {
  model.tokens.splice(i, 1);
  model.cells.x.splice(i, 1);
}

export function addToken(model, token) {
  model.tokens.push(token);
}

// The tutorial's inputs, whatever the tokens are called.
export function sameNumbers(a, b) {
  return a.length === b.length && a.every((row, r) => row.length === b[r].length && row.every((v, c) => v === b[r][c]));
}
