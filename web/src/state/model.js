// The inputs as the user edits them: tokens, dimensions, the options of the
// attention variant and the text of every cell of every matrix. Cell texts
// live in "stores" that may be larger than the current shape, so shrinking
// d_model and growing it back (typing 16 goes through 1) loses nothing;
// missing cells read as "0".
// Matrix fields: 'x', 'wq', 'wk', 'wv' (head 1), 'wq.1', 'wk.1', 'wv.1' (head
// 2, and so on), 'wo' (W_O) and 'c' (the second sentence's vectors); with biases, 'bq', 'bk',
// 'bv' (head 1; 'bq.1', … head 2) and 'bo': one-row matrices (1 × d_k, d_k, d_v, d_model).
// Messages are descriptors {key, params} (see i18n.describe); rows and columns
// in them are 1-based.

import { parseNumber, MAX_CELL_CHARS } from '../io/parse.js';
import { excerpt } from '../ui/quote.js';
import { sameMatrix } from './history.js';
import { STATE_VERSION, MAX_TOKENS, MIN_DIM, MAX_DIM, MAX_HEADS, MAX_TOKEN_CHARS, BIASES } from './schema.js';
import { OPTIONS, OPTION_KEYS, editedValue } from './options.js';
import { followTokens } from './vectors.js';
const BASE_NAMES = { x: 'X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', wo: 'W_O', c: 'C', bq: 'b_Q', bk: 'b_K', bv: 'b_V', bo: 'b_O' };

// The editor's options: the structure (heads, W_O asked for, a second sentence) and each
// option of options.js but the key padding (the tokens' marks, model.padding) as edited
// (temperature: the text of its field).
const EDITED = OPTIONS.filter((o) => o.key !== 'keyPadding');
export const DEFAULT_OPTIONS = {
  heads: 1, useWo: false, cross: false, biases: false, ...Object.fromEntries(EDITED.map((o) => [o.key, editedValue(o.key, o.default)])),
};

export const headField = (base, head) => (head === 0 ? base : `${base}.${head}`);

// {base: 'wq', head: 1} for 'wq.1'.
export function splitField(field) {
  const [base, head] = field.split('.');
  return { base, head: head === undefined ? 0 : Number(head) };
}

export const fieldName = (field) => BASE_NAMES[splitField(field).base];

export const usesWo = (model) => model.options.heads > 1 || model.options.useWo;

// The fields the current options use, in reading order.
export function activeFields(model) {
  const fields = ['x'];
  if (model.options.cross) fields.push('c');
  const bases = model.options.biases ? ['wq', 'bq', 'wk', 'bk', 'wv', 'bv'] : ['wq', 'wk', 'wv'];
  for (let h = 0; h < model.options.heads; h++) fields.push(...bases.map((base) => headField(base, h)));
  if (usesWo(model)) fields.push('wo');
  if (usesWo(model) && model.options.biases) fields.push('bo');
  return fields;
}

export function shapeOf(field, model) {
  const { dModel, dk, dv, dCtx } = model.dims;
  const { base } = splitField(field);
  if (base === 'x') return [model.tokens.length, dModel];
  if (base === 'c') return [model.contextTokens.length, dCtx];
  if (base === 'wo') return [model.options.heads * dv, dModel];
  if (base === 'bo') return [1, dModel];
  if (base.startsWith('b')) return [1, base === 'bv' ? dv : dk];
  const rows = base !== 'wq' && model.options.cross ? dCtx : dModel;
  return [rows, base === 'wv' ? dv : dk];
}

// Each store row's last parse: {texts, values} (texts at the shape read).
// A row whose texts are unchanged gives the same values array again, so
// reading X of 4096 × 64 after one edit parses one row, not 262 144 cells.
const parsedRows = new WeakMap();

export function cellText(store, r, c) {
  const row = store && store[r];
  return row && row[c] !== undefined ? row[c] : '0';
}

export function setCell(store, r, c, text) {
  while (store.length <= r) store.push([]);
  const row = store[r];
  while (row.length < c) row.push('0');
  row[c] = text;
}

// Texts of numbers. Each row's numbers are also remembered as its parse (see
// readMatrix), so a matrix applied, loaded or filled is not parsed again: at
// n = 512 that is 32 768 cells. String(v) reads back as v, −0 (written "0") as 0.
// Texts repeat (a random fill has 201 different numbers in 262 144 cells at
// n = 4096), so each matrix converts each distinct number once.
export function textsFromNumbers(matrix) {
  const known = new Map();
  const textOf = (v) => {
    let text = known.get(v);
    if (text === undefined) {
      text = String(v);
      known.set(v, text);
    }
    return text;
  };
  return keptTexts(matrix.map((row) => {
    const texts = new Array(row.length);
    for (let c = 0; c < row.length; c++) texts[c] = textOf(row[c]);
    return texts;
  }), matrix);
}

// The texts of a matrix, with its numbers (the texts' parse) remembered.
// (Plain loops: with every() and Array.from's callback, X of 512 × 64 took ~4 ms of an edit.)
function keptTexts(texts, matrix) {
  for (let r = 0; r < texts.length; r++) {
    const values = matrix[r];
    const copy = new Array(values.length);
    let finite = true;
    for (let c = 0; c < values.length && finite; c++) {
      finite = Number.isFinite(values[c]);
      copy[c] = values[c] + 0;
    }
    if (finite) parsedRows.set(texts[r], { texts: texts[r].slice(), values: copy });
  }
  return texts;
}

export function createModel({ tokens, x, wq, wk, wv }) {
  return {
    tokens: [...tokens],
    padding: tokens.map(() => false),
    contextTokens: [],
    contextPadding: [],
    dims: { dModel: x[0].length, dk: wq[0].length, dv: wv[0].length, dCtx: x[0].length },
    cells: { x: textsFromNumbers(x), wq: textsFromNumbers(wq), wk: textsFromNumbers(wk), wv: textsFromNumbers(wv) },
    options: { ...DEFAULT_OPTIONS },
    // the rows of X and C of tokens typed away, by token (setTokens): retyped, a token gets its row back
    remembered: { x: new Map(), c: new Map() },
  };
}

// Row and column arrive 0-based; the rows of X and C are named by their token as well.
export function locate(field, row, column, tokens) {
  const params = {};
  if (row !== undefined && row !== null) {
    params.row = row + 1;
    if ((field === 'x' || field === 'c') && tokens[row] !== undefined) params.token = excerpt(tokens[row]);
  }
  if (column !== undefined && column !== null) params.col = column + 1;
  return params;
}

const CELL_KEYS = {
  empty_cell: 'errCellEmpty', not_number: 'errNotNumber', not_finite: 'errNotFinite', decimal_comma: 'errDecimalComma', too_long: 'errCellLong',
};

export const CELL_CODES = Object.keys(CELL_KEYS);

// The message for a cell that parseNumber() refused: where it is (0-based
// row and column), its text cut short and its length.
export function cellMessage(field, { code, row, column, text, length }, tokens) {
  const params = { ...locate(field, row, column, tokens), text: excerpt(text) };
  if (code === 'too_long') Object.assign(params, { length, max: MAX_CELL_CHARS });
  return { key: CELL_KEYS[code], params };
}


// Whether a row's texts at `cols` columns are those parsed (a plain loop: 262 144
// cells of X at n = 4096 are compared on every read).
function sameTexts(parsed, row, cols) {
  if (parsed.length !== cols) return false;
  for (let c = 0; c < cols; c++) if (parsed[c] !== (row[c] === undefined ? '0' : row[c])) return false;
  return true;
}

// The numbers of one matrix at its current shape, or the first bad cell.
export function readMatrix(model, field) {
  const [rows, cols] = shapeOf(field, model);
  const store = model.cells[field];
  const tokens = field === 'c' ? model.contextTokens : model.tokens;
  const data = [];
  for (let r = 0; r < rows; r++) {
    const storeRow = store && store[r];
    const cached = storeRow && parsedRows.get(storeRow);
    if (cached && sameTexts(cached.texts, storeRow, cols)) {
      data.push(cached.values);
      continue;
    }
    const texts = new Array(cols);
    const values = new Array(cols);
    for (let c = 0; c < cols; c++) {
      texts[c] = cellText(store, r, c);
      const text = texts[c].trim();
      const parsed = parseNumber(text);
      if (!parsed.ok) {
        const message = cellMessage(field, { code: parsed.code, row: r, column: c, text, length: text.length }, tokens);
        return { ok: false, row: r, column: c, message };
      }
      values[c] = parsed.value;
    }
    if (storeRow) parsedRows.set(storeRow, { texts, values });
    data.push(values);
  }
  return { ok: true, data };
}

export function tokenErrors(tokens) {
  if (tokens.length === 0) return { key: 'errSentenceEmpty', params: {} };
  if (tokens.length > MAX_TOKENS) return { key: 'errTooManyTokens', params: { n: tokens.length, max: MAX_TOKENS } };
  const blank = tokens.findIndex((t) => t.trim() === '');
  if (blank >= 0) return { key: 'errTokenEmpty', params: { n: blank + 1 } };
  const long = tokens.findIndex((t) => t.length > MAX_TOKEN_CHARS);
  if (long >= 0) return { key: 'errTokenLong', params: { n: long + 1, length: tokens[long].length, max: MAX_TOKEN_CHARS } };
  return null;
}

// Temperature: a finite number above 0 (0,5 gets its own message).
export function parseTemperature(text) {
  const parsed = parseNumber(text.trim());
  if (parsed.ok && parsed.value > 0) return { ok: true, value: parsed.value };
  return { ok: false, message: { key: parsed.code === 'decimal_comma' ? 'errTemperatureComma' : 'errTemperature', params: {} } };
}

// Everything the engine needs, or the errors by field ('tokens', 'x', ...).
// errors[field] = {message, row, column} so a grid can mark the bad cell.
// options: the parsed options (temperature a number, the key padding).
export function readModel(model) {
  const errors = {};
  const tokenError = tokenErrors(model.tokens);
  if (tokenError) errors.tokens = { message: tokenError };
  if (model.options.cross) {
    const contextError = tokenErrors(model.contextTokens);
    if (contextError) errors.contextTokens = { message: contextError };
  }
  const temperature = parseTemperature(model.options.temperature);
  if (!temperature.ok) errors.temperature = { message: temperature.message };
  const matrices = {};
  for (const field of activeFields(model)) {
    const read = readMatrix(model, field);
    if (read.ok) matrices[field] = read.data;
    else errors[field] = read;
  }
  const ok = Object.keys(errors).length === 0;
  if (!ok) return { ok, matrices: null, options: null, errors };
  const { heads, cross, biases } = model.options;
  const options = {
    heads, cross, biases, usesWo: usesWo(model), ...Object.fromEntries(EDITED.map((o) => [o.key, model.options[o.key]])),
    temperature: temperature.value, keyPadding: [...(cross ? model.contextPadding : model.padding)],
  };
  return { ok, matrices, options, errors };
}

export function parseDim(text) {
  const value = Number(text.trim());
  if (text.trim() !== '' && Number.isInteger(value) && value >= MIN_DIM && value <= MAX_DIM) return { ok: true, value };
  return { ok: false, message: { key: 'errDim', params: { min: MIN_DIM, max: MAX_DIM } } };
}

export function parseHeads(text) {
  const value = Number(text.trim());
  if (text.trim() !== '' && Number.isInteger(value) && value >= 1 && value <= MAX_HEADS) return { ok: true, value };
  return { ok: false, message: { key: 'errHeads', params: { max: MAX_HEADS } } };
}

// A whole matrix typed or pasted as text replaces the field; its width sets
// the dimension it stands for (X: d_model; C: d_context; W_Q, W_K: d_k;
// W_V: d_v) while its height must fit what it is multiplied with. W_O's
// shape is fixed by the others. Its cells then hold `texts` (the numbers as the user
// typed them, parsed into `rows`) or, without them, the shortest text of each number.
// Returns an error descriptor, or null once applied.
export function applyMatrix(model, field, rows, texts) {
  const height = rows.length;
  const width = rows[0].length;
  const { base } = splitField(field);
  const [expectedRows, expectedCols] = shapeOf(field, model);
  if (width > MAX_DIM) return { key: 'errTooWide', params: { cols: width, max: MAX_DIM } };
  if (base === 'x' && height !== expectedRows) return { key: 'errXRows', params: { rows: height, tokens: expectedRows } };
  if (base === 'c' && height !== expectedRows) return { key: 'errCRows', params: { rows: height, tokens: expectedRows } };
  if (base === 'wo' && (height !== expectedRows || width !== expectedCols)) {
    return { key: 'errWoShape', params: { rows: height, cols: width, expected: expectedRows, dModel: expectedCols } };
  }
  if (base.startsWith('b') && (height !== 1 || width !== expectedCols)) {
    return { key: 'errBiasShape', params: { name: fieldName(field), rows: height, cols: width, expected: expectedCols } };
  }
  if (base.startsWith('w') && base !== 'wo' && height !== expectedRows) {
    const key = base !== 'wq' && model.options.cross ? 'errWRowsContext' : 'errWRows';
    return { key, params: { name: fieldName(field), rows: height, expected: expectedRows } };
  }
  model.cells[field] = texts ? keptTexts(texts, rows) : textsFromNumbers(rows);
  if (base === 'x') model.dims.dModel = width;
  else if (base === 'c') model.dims.dCtx = width;
  else if (base === 'wv') model.dims.dv = width;
  else if (base !== 'wo' && !base.startsWith('b')) model.dims.dk = width; // a bias's width is checked above
  return null;
}

// Writes a pasted block into a grid starting at (r0, c0); what falls outside
// the current shape is left out, as spreadsheets do.
export function pasteBlock(model, field, r0, c0, rows) {
  const [height, width] = shapeOf(field, model);
  model.cells[field] ||= [];
  for (let r = 0; r < rows.length && r0 + r < height; r++) {
    for (let c = 0; c < rows[r].length && c0 + c < width; c++) {
      setCell(model.cells[field], r0 + r, c0 + c, String(rows[r][c]));
    }
  }
}

// A token list and its padding marks, for the query sentence or the second one.
const sentence = (model, which) => (which === 'context'
  ? { tokens: 'contextTokens', padding: 'contextPadding', field: 'c' }
  : { tokens: 'tokens', padding: 'padding', field: 'x' });

// A row of X (or C) belongs to its token, not to its place: a token kept
// keeps its row wherever it moves, a token typed anew gets the row it had
// before (remembered) or a made-up one (vectors.js), never the row of the
// token that sat there.
export function setTokens(model, tokens, which = 'query') {
  const s = sentence(model, which);
  const before = model[s.tokens];
  const rows = model.cells[s.field] || [];
  const remembered = model.remembered[s.field];
  for (let i = Math.min(before.length, rows.length) - 1; i >= 0; i--) if (rows[i]) remembered.set(before[i], rows[i]); // a token's first copy wins
  const width = s.field === 'c' ? model.dims.dCtx : model.dims.dModel;
  // more tokens than are allowed are refused (tokenErrors): no rows are made for them
  model.cells[s.field] = tokens.length > MAX_TOKENS ? []
    : followTokens(tokens, before, rows, { width, remembered, made: (numbers) => textsFromNumbers([numbers])[0] });
  model[s.tokens] = [...tokens];
  model[s.padding] = tokens.map((_, i) => model[s.padding][i] === true);
}

export function removeToken(model, i, which = 'query') {
  const s = sentence(model, which);
  model[s.tokens].splice(i, 1);
  model[s.padding].splice(i, 1);
  model.cells[s.field]?.splice(i, 1);
}

export function addToken(model, token, which = 'query') {
  setTokens(model, [...model[sentence(model, which).tokens], token], which);
}

export function togglePadding(model, i, which = 'query') {
  const s = sentence(model, which);
  model[s.padding][i] = !model[s.padding][i];
}

// The tutorial's inputs, whatever the tokens are called.
export const sameNumbers = (a, b) => a.length === b.length && sameMatrix(a, b);

// ---- between the state (schema.js) and the editable model ----

export function modelFromState(state) {
  const [first] = state.heads;
  const model = createModel({ tokens: state.tokens, x: state.x, wq: first.wq, wk: first.wk, wv: first.wv });
  state.heads.forEach((head, h) => {
    for (const w of ['wq', 'wk', 'wv']) model.cells[headField(w, h)] = textsFromNumbers(head[w]);
    for (const b of BIASES) if (head[b]) model.cells[headField(b, h)] = textsFromNumbers([head[b]]);
  });
  if (state.wo) model.cells.wo = textsFromNumbers(state.wo);
  if (state.bo) model.cells.bo = textsFromNumbers([state.bo]);
  Object.assign(model.options, {
    heads: state.heads.length, useWo: Boolean(state.wo), cross: Boolean(state.context), biases: hasBiases(state),
    ...Object.fromEntries(EDITED.map((o) => [o.key, editedValue(o.key, state[o.key])])),
  });
  if (state.context) {
    model.contextTokens = [...state.context.tokens];
    model.contextPadding = [...state.keyPadding];
    model.cells.c = textsFromNumbers(state.context.x);
    model.dims.dCtx = state.context.x[0].length;
  } else {
    model.padding = [...state.keyPadding];
  }
  return model;
}

// Whether a state has a bias anywhere.
export const hasBiases = (state) => state.bo !== undefined || state.heads.some((head) => BIASES.some((b) => head[b] !== undefined));

// The biases among matrices (one-row matrices by field) as a head's fields (arrays of numbers).
export function headBiases(matrices, h) {
  return Object.fromEntries(BIASES.filter((b) => matrices[headField(b, h)]).map((b) => [b, matrices[headField(b, h)][0]]));
}

// readModel()'s numbers and options, plus the view, as a state.
export function stateFromRead(tokens, contextTokens, matrices, options, view) {
  return {
    version: STATE_VERSION,
    tokens: [...tokens],
    x: matrices.x,
    heads: Array.from({ length: options.heads }, (_, h) => ({
      wq: matrices[headField('wq', h)], wk: matrices[headField('wk', h)], wv: matrices[headField('wv', h)], ...headBiases(matrices, h),
    })),
    ...(options.usesWo ? { wo: matrices.wo } : {}),
    ...(options.usesWo && matrices.bo ? { bo: matrices.bo[0] } : {}),
    ...(options.cross ? { context: { tokens: [...contextTokens], x: matrices.c } } : {}),
    ...Object.fromEntries(OPTION_KEYS.map((key) => [key, options[key]])),
    keyPadding: [...options.keyPadding],
    view: { ...view },
  };
}

// The matrices by model field and readModel()-style options of a state, for
// variant.js's engineInput().
export function readState(state) {
  const matrices = { x: state.x };
  state.heads.forEach((head, h) => {
    for (const w of ['wq', 'wk', 'wv']) matrices[headField(w, h)] = head[w];
    for (const b of BIASES) if (head[b]) matrices[headField(b, h)] = [head[b]];
  });
  if (state.wo) matrices.wo = state.wo;
  if (state.bo) matrices.bo = [state.bo];
  if (state.context) matrices.c = state.context.x;
  const options = {
    heads: state.heads.length, usesWo: Boolean(state.wo), cross: Boolean(state.context), biases: hasBiases(state),
    ...Object.fromEntries(OPTION_KEYS.map((key) => [key, state[key]])), keyPadding: [...state.keyPadding],
  };
  return { matrices, options };
}
