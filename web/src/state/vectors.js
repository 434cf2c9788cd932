// The vectors of tokens that have none: a sentence given without X (an
// element's `sentence` alone) or a token typed on the page. Each distinct token
// gets a made-up vector derived from its text, so the same token always gets
// the same vector (in every browser, in every sentence), never zero and never
// the vector of whatever token sat in that row before. They carry no meaning:
// the element says so (madeUpTokens) until vectors of one's own replace them.

import { mulberry32 } from '../io/random.js';

// Salts tried when two distinct tokens of one sentence would get the same
// vector (likely at d_model = 2); a row is made up when it is one of these.
const SALTS = 8;

// FNV-1a (32-bit) over the UTF-16 units of the text, then the salt.
function hash(text, salt) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ salt, 0x01000193) >>> 0;
}

// `width` entries, each ±0.10 … ±1.00 with two decimals (never 0): easy to read and to retype.
export function tokenVector(token, width, salt = 0) {
  const next = mulberry32(hash(token, salt));
  const row = new Array(width);
  for (let c = 0; c < width; c++) {
    const size = 10 + Math.floor(next() * 91); // 10 … 100 hundredths
    row[c] = (next() < 0.5 ? -size : size) / 100;
  }
  return row;
}

const sameRow = (a, b) => a.length === b.length && a.every((v, i) => Number(v) === b[i]);

// Whether `row` (numbers, or their texts) is the made-up vector of `token`.
export function isMadeUp(token, row) {
  const first = Math.abs(Number(row[0]));
  if (!(first >= 0.1 && first <= 1) || Math.abs(first * 100 - Math.round(first * 100)) > 1e-9) return false; // a quick no
  for (let salt = 0; salt < SALTS; salt++) if (sameRow(row, tokenVector(token, row.length, salt))) return true;
  return false;
}

// The rows of `tokens`, when the tokens were `before` with the rows `rows`
// (numbers, or the editor's texts): the k-th copy of a token keeps the row of
// its k-th copy before; a further copy takes the row of its first copy; a
// token that was not there takes its row in `remembered` (token → row: the
// editor remembers the rows of tokens typed away, so that retyping them brings
// their vectors back), else a made-up one of `width` entries, distinct from
// every other token's row. `made(numbers)` gives a made-up row in the rows' form;
// `copy(row)` a copy, for a row used twice (the editor's rows are edited in place).
export function followTokens(tokens, before, rows, { width, remembered = new Map(), made = (numbers) => numbers, copy = (row) => row.slice() }) {
  const copies = new Map(); // token → its rows before, in order
  before.forEach((token, i) => {
    if (rows[i] === undefined) return;
    if (!copies.has(token)) copies.set(token, []);
    copies.get(token).push(rows[i]);
  });
  const used = new Set();
  const seen = new Map(); // token → how many copies placed so far
  const out = new Array(tokens.length);
  const missing = [];
  tokens.forEach((token, i) => {
    const k = seen.get(token) || 0;
    seen.set(token, k + 1);
    const own = copies.get(token);
    let row = own ? own[k] || own[0] : remembered.get(token);
    if (row === undefined) {
      missing.push(i);
      return;
    }
    if (used.has(row)) row = copy(row);
    used.add(row);
    out[i] = row;
  });
  if (missing.length === 0) return out;
  // the rows other tokens hold, by their numbers: a made-up row must differ from each
  const key = (row) => Array.from(row.slice(0, width), Number).join(',');
  const taken = new Map();
  tokens.forEach((token, i) => {
    if (out[i] !== undefined) taken.set(key(out[i]), token);
  });
  const madeFor = new Map();
  for (const i of missing) {
    const token = tokens[i];
    let numbers = madeFor.get(token);
    if (!numbers) {
      numbers = tokenVector(token, width);
      for (let salt = 1; salt < SALTS && taken.has(key(numbers)) && taken.get(key(numbers)) !== token; salt++) numbers = tokenVector(token, width, salt);
      taken.set(key(numbers), token);
      madeFor.set(token, numbers);
      out[i] = made(numbers);
    } else {
      out[i] = made(numbers.slice());
    }
  }
  return out;
}

// The distinct tokens of a state whose vectors (rows of X, or of the context's) are made up, in order.
const madeUpCache = new WeakMap(); // x → {tokens, made}
export function madeUpTokens(state) {
  const of = (tokens, x) => {
    const cached = madeUpCache.get(x);
    if (cached && cached.tokens === tokens) return cached.made;
    const made = [...new Set(tokens.filter((token, i) => x[i] && isMadeUp(token, x[i])))];
    madeUpCache.set(x, { tokens, made });
    return made;
  };
  const query = of(state.tokens, state.x);
  return state.context ? [...new Set([...query, ...of(state.context.tokens, state.context.x)])] : query;
}
