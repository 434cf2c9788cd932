// The state's schema: the complete state of what is on screen, as one JSON-able object: the
// inputs of the engine plus what the view shows (step, head, language, decimals). It is what
// the URL hash holds (link.js), what the custom element's `state` property and change event
// give, what embed.html's postMessage interface sends and what "export the state as JSON"
// writes (json.js).
//
//   { version: 1, tokens, x, heads: [{ wq, wk, wv, bq?, bk?, bv? }, …], wo?, bo?, context?: { tokens, x },
//     <each option of options.js, by its key>,
//     view: { step, head, lang, decimals }, learn?: { goal, target?, lr?, trainX? } }
// bq, bk, bv: a head's biases (arrays of d_k, d_k, d_v numbers); bo: the output's, d_model numbers,
// only with wo (Q = X·W_Q + b_Q, output = concat·W_O + b_O).
// learn: the goal of "How it learns" (learn.js): 'previous', 'self', 'animal'
// or 'custom' with its n_q × n_k target; the trained weights are the heads' own.
//
// Numbers are float64 written in their shortest round-trip form, so a link
// restores every input bit for bit.

import { quote, excerpt } from '../ui/quote.js';
import { MIN_DECIMALS, MAX_DECIMALS, DEFAULT_DECIMALS } from '../ui/format.js';
import { LANGUAGES } from '../ui/i18n.js';
import { GOALS, LEARNING_RATES, availableGoals } from './learnmath.js';
import { OPTION_KEYS, optionsProblem, filledOptions } from './options.js';

export const STATE_VERSION = 1;
const TOP_KEYS = ['version', 'tokens', 'x', 'heads', 'wo', 'bo', 'context', ...OPTION_KEYS, 'view', 'learn'];
export const BIASES = ['bq', 'bk', 'bv'];
const LEARN_KEYS = ['goal', 'target', 'lr', 'trainX'];
const VIEW_KEYS = ['step', 'head', 'lang', 'decimals'];

const field = (name, problem, params = {}) => ({ key: 'errStateField', params: { field: name, problem: { key: problem, params } } });
// A state that does not read: {ok: false, message} with the detail of what is wrong.
export const refused = (detail) => ({ ok: false, message: { key: 'errState', params: { detail } } });
const fail = refused;

// The engine's limit on tokens (rows of x or context), and the page's on dimensions, heads
// and a token's length. A token is a word or a piece of one: longer labels (a megabyte
// "token" in a link) would take seconds to lay out in every table, on every path.
export const MAX_TOKENS = 4096;
export const MIN_DIM = 1;
export const MAX_DIM = 64;
export const MAX_HEADS = 8;
export const MAX_TOKEN_CHARS = 100;

// What is wrong with a matrix, naming the row and column (1-based), or null.
// A value is quoted cut short, its contents unvisited (quote.js).
export function matrixProblem(m) {
  if (!Array.isArray(m) || m.length === 0) return { key: 'probMatrix', params: {} };
  for (let r = 0; r < m.length; r++) {
    const row = m[r];
    if (!Array.isArray(row) || row.length === 0) return { key: 'probMatrixRow', params: { row: r + 1 } };
    if (row.length !== m[0].length) return { key: 'probMatrixRagged', params: { row: r + 1, count: row.length, expected: m[0].length } };
    for (let c = 0; c < row.length; c++) {
      const v = row[c];
      if (typeof v !== 'number' || !Number.isFinite(v)) return { key: 'probMatrixCell', params: { row: r + 1, col: c + 1, text: quote(v) } };
    }
  }
  return null;
}
const isMatrix = (m) => matrixProblem(m) === null;

// What is wrong with a bias of `length` numbers, or null.
function biasProblem(b, length) {
  if (!Array.isArray(b) || b.length === 0) return { key: 'probBias', params: { length } };
  for (let c = 0; c < b.length; c++) {
    if (typeof b[c] !== 'number' || !Number.isFinite(b[c])) return { key: 'probBiasCell', params: { col: c + 1, text: quote(b[c]) } };
  }
  return b.length === length ? null : { key: 'probBiasLength', params: { count: b.length, length } };
}

// What is wrong with a token list, or null.
function tokensProblem(t) {
  if (!Array.isArray(t) || t.length === 0) return { key: 'probTokens', params: {} };
  if (t.length > MAX_TOKENS) return { key: 'probTooMany', params: { count: t.length, max: MAX_TOKENS } };
  const bad = t.findIndex((s) => typeof s !== 'string' || s.trim() === '');
  if (bad >= 0) return { key: 'probToken', params: { n: bad + 1 } };
  const long = t.findIndex((s) => s.length > MAX_TOKEN_CHARS);
  return long >= 0 ? { key: 'probTokenLong', params: { n: long + 1, length: t[long].length, max: MAX_TOKEN_CHARS } } : null;
}
const matrixField = (name, m) => ({ key: 'errStateField', params: { field: name, problem: matrixProblem(m) } });
const tokensField = (name, t) => ({ key: 'errStateField', params: { field: name, problem: tokensProblem(t) } });
const shape = (m) => [m.length, m[0].length];

// Checks everything the engine would, and the view; returns {ok, state}
// (a normalised copy: defaults filled in) or {ok: false, message}. Every
// field's type is checked before its contents are read, and a value in a
// message is quoted (quote.js): an array nested 10 000 deep anywhere costs
// one test, never a recursion, and no input makes this throw.
export function validateState(input) {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return fail({ key: 'errStateJson', params: {} });
  if (input.version !== STATE_VERSION) return fail({ key: 'errStateVersion', params: { version: quote(input.version), supported: STATE_VERSION } });
  for (const key of Object.keys(input)) if (!TOP_KEYS.includes(key)) return fail(field(excerpt(key), 'probUnknown'));
  if (tokensProblem(input.tokens)) return fail(tokensField('tokens', input.tokens));
  for (const name of ['x', 'wo']) {
    if (input[name] !== undefined && !isMatrix(input[name])) return fail(matrixField(name, input[name]));
  }
  if (input.x === undefined) return fail(field('x', 'probMissing'));
  const n = input.tokens.length;
  const [xRows, dModel] = shape(input.x);
  if (xRows !== n) return fail(field('x', 'probRows', { rows: xRows, tokens: n }));
  let keys = { n, d: dModel };
  if (input.context !== undefined) {
    const c = input.context;
    if (!c || typeof c !== 'object' || Array.isArray(c)) return fail(field('context', 'probContext'));
    for (const key of Object.keys(c)) if (key !== 'tokens' && key !== 'x') return fail(field(`context.${excerpt(key)}`, 'probUnknown'));
    if (tokensProblem(c.tokens)) return fail(tokensField('context.tokens', c.tokens));
    if (!isMatrix(c.x)) return fail(matrixField('context.x', c.x));
    if (c.x.length !== c.tokens.length) return fail(field('context.x', 'probRows', { rows: c.x.length, tokens: c.tokens.length }));
    keys = { n: c.tokens.length, d: c.x[0].length };
  }
  const heads = input.heads;
  if (!Array.isArray(heads) || heads.length < 1 || heads.length > MAX_HEADS
    || !heads.every((h) => h && typeof h === 'object' && ['wq', 'wk', 'wv'].every((w) => w in h))) {
    return fail(field('heads', 'probHeads', { max: MAX_HEADS }));
  }
  const dk = isMatrix(heads[0].wq) ? heads[0].wq[0].length : 0;
  const dv = isMatrix(heads[0].wv) ? heads[0].wv[0].length : 0;
  for (let h = 0; h < heads.length; h++) {
    const expected = { wq: [dModel, dk], wk: [keys.d, dk], wv: [keys.d, dv] };
    for (const w of ['wq', 'wk', 'wv']) {
      const name = `heads[${h}].${w}`;
      if (!isMatrix(heads[h][w])) return fail(matrixField(name, heads[h][w]));
      const [rows, cols] = shape(heads[h][w]);
      if (rows !== expected[w][0] || cols !== expected[w][1]) {
        return fail(field(name, 'probShape', { rows, cols, expected: `${expected[w][0]} × ${expected[w][1]}` }));
      }
    }
  }
  for (let h = 0; h < heads.length; h++) {
    for (const b of BIASES) {
      const problem = heads[h][b] === undefined ? null : biasProblem(heads[h][b], b === 'bv' ? dv : dk);
      if (problem) return fail({ key: 'errStateField', params: { field: `heads[${h}].${b}`, problem } });
    }
  }
  for (const d of [dModel, keys.d, dk, dv]) if (d > MAX_DIM) return fail(field('x', 'probDim', { max: MAX_DIM }));
  if (input.wo !== undefined) {
    const [rows, cols] = shape(input.wo);
    if (rows !== heads.length * dv || cols !== dModel) {
      return fail(field('wo', 'probShape', { rows, cols, expected: `${heads.length * dv} × ${dModel}` }));
    }
  }
  if (input.bo !== undefined) {
    if (input.wo === undefined) return fail(field('bo', 'probBoNeedsWo'));
    const problem = biasProblem(input.bo, dModel);
    if (problem) return fail({ key: 'errStateField', params: { field: 'bo', problem } });
  }
  const optionProblem = optionsProblem(input, keys.n);
  if (optionProblem) return fail({ key: 'errStateField', params: { field: optionProblem[0], problem: optionProblem[1] } });
  const view = input.view ?? {};
  if (typeof view !== 'object' || Array.isArray(view)) return fail(field('view', 'probView'));
  for (const key of Object.keys(view)) if (!VIEW_KEYS.includes(key)) return fail(field(`view.${excerpt(key)}`, 'probUnknown'));
  if (view.step !== undefined && (typeof view.step !== 'string' || !/^[a-z]{1,16}$/.test(view.step))) return fail(field('view.step', 'probStep'));
  if (view.lang !== undefined && !LANGUAGES.includes(view.lang)) return fail(field('view.lang', 'probOneOf', { list: LANGUAGES.join(', ') }));
  const integer = (v, min, max) => Number.isInteger(v) && v >= min && v <= max;
  if (view.head !== undefined && !integer(view.head, 0, heads.length - 1)) return fail(field('view.head', 'probInteger', { min: 0, max: heads.length - 1 }));
  if (view.decimals !== undefined && !integer(view.decimals, MIN_DECIMALS, MAX_DECIMALS)) {
    return fail(field('view.decimals', 'probInteger', { min: MIN_DECIMALS, max: MAX_DECIMALS }));
  }
  const learn = input.learn === undefined ? null : learnProblem(input.learn, input.tokens, input.context ? input.context.tokens : input.tokens, Boolean(input.context));
  if (learn) return fail(learn);
  const state = {
    version: STATE_VERSION,
    tokens: [...input.tokens],
    x: copy(input.x),
    heads: heads.map((h) => ({ wq: copy(h.wq), wk: copy(h.wk), wv: copy(h.wv), ...copyBiases(h, BIASES) })),
    ...(input.wo !== undefined ? { wo: copy(input.wo) } : {}),
    ...copyBiases(input, ['bo']),
    ...(input.context !== undefined ? { context: { tokens: [...input.context.tokens], x: copy(input.context.x) } } : {}),
    ...filledOptions(input, keys.n),
    view: {
      step: view.step ?? 'input', head: view.head ?? 0, lang: view.lang ?? 'zh', decimals: view.decimals ?? DEFAULT_DECIMALS,
    },
    ...(input.learn !== undefined ? { learn: copyLearn(input.learn) } : {}),
  };
  return { ok: true, state };
}

// What is wrong with a state's `learn` field (a field descriptor), or null.
// A custom target is n_q × n_k, each row a distribution or all 0 (no goal).
const ROW_SUM_TOLERANCE = 1e-9;
function learnProblem(learn, tokens, keyTokens, cross) {
  if (!learn || typeof learn !== 'object' || Array.isArray(learn)) return field('learn', 'probLearn');
  for (const key of Object.keys(learn)) if (!LEARN_KEYS.includes(key)) return field(`learn.${excerpt(key)}`, 'probUnknown');
  if (typeof learn.goal !== 'string' || !GOALS.includes(learn.goal)) return field('learn.goal', 'probOneOf', { list: GOALS.join(', ') });
  const goals = availableGoals(tokens, keyTokens, cross);
  if (!goals.includes(learn.goal)) return field('learn.goal', 'probLearnGoal', { name: learn.goal, list: goals.join(', ') });
  if (learn.target !== undefined) {
    if (learn.goal !== 'custom') return field('learn.target', 'probLearnTargetOnly');
    if (!isMatrix(learn.target)) return matrixField('learn.target', learn.target);
    const wrong = { rows: tokens.length, cols: keyTokens.length };
    if (learn.target.length !== tokens.length || learn.target[0].length !== keyTokens.length) return field('learn.target', 'probLearnTarget', wrong);
    for (const row of learn.target) {
      const sum = row.reduce((a, b) => a + b, 0);
      if (row.some((v) => v < 0 || v > 1) || (sum !== 0 && Math.abs(sum - 1) > ROW_SUM_TOLERANCE)) return field('learn.target', 'probLearnTarget', wrong);
    }
  }
  if (learn.lr !== undefined && !LEARNING_RATES.includes(learn.lr)) return field('learn.lr', 'probOneOf', { list: LEARNING_RATES.join(', ') });
  if (learn.trainX !== undefined && typeof learn.trainX !== 'boolean') return field('learn.trainX', 'probBoolean');
  return null;
}

// The state with its `learn` field kept only as far as it still applies (the
// tokens edited since: a custom target of the old shape, or "it → animal"
// without "animal"): for states this code makes, before they are shared.
export function fitLearn(state) {
  if (state.learn === undefined || tokensProblem(state.tokens)) return state;
  if (state.context && (typeof state.context !== 'object' || tokensProblem(state.context.tokens))) return state;
  const keyTokens = state.context ? state.context.tokens : state.tokens;
  const fits = (learn) => learnProblem(learn, state.tokens, keyTokens, Boolean(state.context)) === null;
  const { learn, ...rest } = state;
  if (fits(learn)) return state;
  if (learn && typeof learn === 'object' && !Array.isArray(learn)) {
    const untargeted = { ...learn };
    delete untargeted.target;
    if (fits(untargeted)) return { ...rest, learn: untargeted };
  }
  return rest;
}

const copyLearn = (learn) => ({
  goal: learn.goal, ...(learn.target ? { target: copy(learn.target) } : {}), ...(learn.lr !== undefined ? { lr: learn.lr } : {}),
  ...(learn.trainX !== undefined ? { trainX: learn.trainX } : {}),
});

const copy = (m) => m.map((row) => Array.from(row));
const copyBiases = (from, names) => Object.fromEntries(names.filter((b) => from[b] !== undefined).map((b) => [b, [...from[b]]]));
