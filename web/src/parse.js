// Parses a matrix typed as text: one row per line, numbers separated by
// spaces, tabs or commas (ASCII or full-width), so rows pasted from a
// spreadsheet or typed with a Chinese keyboard both work.
// Returns {ok: true, rows, texts} (texts: each cell as typed; not for JSON) or
// {ok: false, error: {code, row, column, ...}} with 0-based row and column,
// like the engine's errors.

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;
const SEPARATOR = /\s*[,，]\s*|\s+/u;

export function parseNumber(text) {
  // the usual cell, a plain decimal number, costs one test
  if (NUMBER.test(text)) {
    const value = Number(text);
    if (Number.isFinite(value)) return { ok: true, value };
  }
  // A minus sign pasted from a document (U+2212) means the same as '-'.
  const normalised = text.replace(/\u2212/g, '-');
  if (NON_FINITE.test(normalised)) return { ok: false, code: 'not_finite' };
  if (!NUMBER.test(normalised)) return { ok: false, code: text === '' ? 'empty_cell' : 'not_number' };
  const value = Number(normalised);
  if (!Number.isFinite(value)) return { ok: false, code: 'not_finite' };
  return { ok: true, value };
}

export function parseMatrix(text) {
  const lines = text.split(/\r\n|\r|\n/);
  // Trailing blank lines (a final newline) are not rows; blank lines before
  // the last row are, so row numbers always match line numbers.
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) return { ok: false, error: { code: 'empty' } };

  const rows = [];
  const texts = []; // each cell as typed: what the matrix's cells then show
  for (let r = 0; r < lines.length; r++) {
    const line = lines[r].trim().replace(/[,，]$/u, '');
    if (line === '') return { ok: false, error: { code: 'empty_row', row: r } };
    const cells = line.split(SEPARATOR);
    const row = new Array(cells.length);
    for (let c = 0; c < cells.length; c++) {
      const parsed = parseNumber(cells[c]);
      if (!parsed.ok) return { ok: false, error: { code: parsed.code, row: r, column: c, text: cells[c] } };
      row[c] = parsed.value;
    }
    if (r > 0 && row.length !== rows[0].length) {
      return { ok: false, error: { code: 'ragged', row: r, count: row.length, expected: rows[0].length } };
    }
    rows.push(row);
    texts.push(cells);
  }
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
        return { ok: false, error: { code: 'not_number', row: r, column: c, text: JSON.stringify(row[c]).slice(0, 40) } };
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
