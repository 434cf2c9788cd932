// Parses a matrix typed as text: one row per line, numbers separated by
// spaces, tabs or commas (ASCII or full-width), so rows pasted from a
// spreadsheet or typed with a Chinese keyboard both work. A line with a tab
// (a spreadsheet's copy) is split at its tabs only: "1,5\t2,5" from a
// spreadsheet that writes decimal commas is two cells, each refused with
// "use a point for decimals", never four numbers.
// Returns {ok: true, rows, texts} (texts: each cell as typed; not for JSON) or
// {ok: false, error: {code, row, column, ...}} with 0-based row and column,
// like the engine's errors; a cell's text in an error is cut short (quote.js).
// Every pattern here is linear in its text (no two parts of one can match
// the same characters), and a cell is refused unread beyond MAX_CELL_CHARS.

import { excerpt, quote } from '../ui/quote.js';

// No number needs more: float64's shortest texts take at most 24 characters.
export const MAX_CELL_CHARS = 100;

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;
// 0,5 or 1.234,5 or 1,234: digits with a comma, as zh/eu locales and thousands separators write them
const COMMA_NUMBER = /^[+-]?[\d.]*[,，][\d.,，]*$/;
const SEPARATOR = /\s*[,，]\s*|\s+/u;

// {ok, value} or {ok: false, code}: code is 'empty_cell', 'too_long',
// 'not_finite', 'decimal_comma' or 'not_number'.
export function parseNumber(text) {
  if (text.length > MAX_CELL_CHARS) return { ok: false, code: 'too_long' };
  // A minus sign pasted from a document (U+2212) means the same as '-' (the usual cell has none).
  const normalised = text.includes('\u2212') ? text.replace(/\u2212/g, '-') : text;
  if (NUMBER.test(normalised)) {
    const value = Number(normalised);
    return Number.isFinite(value) ? { ok: true, value } : { ok: false, code: 'not_finite' };
  }
  if (NON_FINITE.test(normalised)) return { ok: false, code: 'not_finite' };
  if (COMMA_NUMBER.test(normalised) && /\d/.test(normalised)) return { ok: false, code: 'decimal_comma' };
  return { ok: false, code: text === '' ? 'empty_cell' : 'not_number' };
}

// Text pasted into one cell that is a block of cells (more than one number,
// or JSON), not that cell's own text: "0,5" is the cell's (a decimal comma,
// which parseNumber explains), "0,5\t1" or "1, 2" a block.
export function isBlock(text) {
  const trimmed = text.trim();
  return /[\s,，[]/.test(trimmed) && parseNumber(trimmed).code !== 'decimal_comma';
}

// The lines of the last matrix read: text (trimmed) → {row, cells}, frozen.
// Applying X's text of 512 lines after one was edited parses that line, not
// 32 768 cells (8 ms of the edit). Callers get copies. Only the last text's
// lines are kept: they hold on to that text, no older one.
let lastLines = new Map();

function readLine(line, seen) {
  let known = lastLines.get(line);
  if (!known) {
    const cells = line.includes('\t') ? line.split('\t').map((cell) => cell.trim()) : line.split(SEPARATOR);
    const row = new Array(cells.length);
    for (let c = 0; c < cells.length; c++) {
      const parsed = parseNumber(cells[c]);
      if (!parsed.ok) return { ok: false, column: c, parsed, cells };
      row[c] = parsed.value;
    }
    known = { row, cells };
  }
  seen.set(line, known);
  return { ok: true, row: known.row.slice(), cells: known.cells.slice() };
}

export function parseMatrix(text) {
  const lines = text.split(/\r\n|\r|\n/);
  // Trailing blank lines (a final newline) are not rows; blank lines before
  // the last row are, so row numbers always match line numbers.
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) return { ok: false, error: { code: 'empty' } };

  const rows = [];
  const texts = []; // each cell as typed: what the matrix's cells then show
  const seen = new Map(); // the lines read, for the next call (lastLines)
  for (let r = 0; r < lines.length; r++) {
    const line = lines[r].trim().replace(/[,，]$/u, '');
    if (line === '') return { ok: false, error: { code: 'empty_row', row: r } };
    const read = readLine(line, seen);
    if (!read.ok) {
      const { parsed, column, cells } = read;
      const error = { code: parsed.code, row: r, column, text: excerpt(cells[column]) };
      return { ok: false, error: parsed.code === 'too_long' ? { ...error, length: cells[column].length } : error };
    }
    const { row, cells } = read;
    if (r > 0 && row.length !== rows[0].length) {
      return { ok: false, error: { code: 'ragged', row: r, count: row.length, expected: rows[0].length } };
    }
    rows.push(row);
    texts.push(cells);
  }
  lastLines = seen;
  return { ok: true, rows, texts };
}

// A whole matrix pasted or typed as text: JSON (an array of rows of numbers)
// when it starts with '[', otherwise CSV, TSV or space-separated lines.
export function parseMatrixText(text) {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return parseMatrix(text);
  let value;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { ok: false, error: { code: 'json' } };
  }
  if (!Array.isArray(value) || value.length === 0) return { ok: false, error: { code: 'json_shape' } };
  for (let r = 0; r < value.length; r++) {
    const row = value[r];
    if (!Array.isArray(row) || row.length === 0) return { ok: false, error: { code: 'json_shape' } };
    for (let c = 0; c < row.length; c++) {
      if (typeof row[c] !== 'number') {
        return { ok: false, error: { code: 'not_number', row: r, column: c, text: quote(row[c]) } };
      }
      // JSON has no NaN or Infinity, but 1e400 reads as Infinity.
      if (!Number.isFinite(row[c])) return { ok: false, error: { code: 'not_finite', row: r, column: c, text: String(row[c]) } };
    }
    if (r > 0 && row.length !== value[0].length) {
      return { ok: false, error: { code: 'ragged', row: r, count: row.length, expected: value[0].length } };
    }
  }
  return { ok: true, rows: value };
}
