// The complete state of what is on screen, as one JSON-able object: the
// inputs of the engine plus what the view shows (step, head, language,
// decimals). It is what the URL hash holds, what the custom element's
// `state` property and change event give, what embed.html's postMessage
// interface sends and what "export the state as JSON" writes.
//
//   { version: 1, tokens, x, heads: [{ wq, wk, wv }, …], wo?, context?: { tokens, x },
//     causal, keyPadding, scaleBySqrtDk, temperature, positionalEncoding,
//     view: { step, head, lang, decimals }, learn?: { goal, target?, lr?, trainX? } }
// learn: the goal of "How it learns" (learn.js): 'previous', 'self', 'animal'
// or 'custom' with its n_q × n_k target; the trained weights are the heads' own.
//
// Numbers are float64 written in their shortest round-trip form, so a link
// restores every input bit for bit. In the hash: `av1.` + base64url(UTF-8 JSON).

import { createModel, headField, textsFromNumbers, MAX_DIM, MAX_HEADS, MAX_TOKEN_CHARS } from './model.js';
import { nextTask } from '../ui/dom.js';
import { excerpt, quote } from '../ui/quote.js';
import { MIN_DECIMALS, MAX_DECIMALS, DEFAULT_DECIMALS } from '../ui/format.js';
import { LANGUAGES } from '../ui/i18n.js';
import { TUTORIAL } from './presets.js';
import { GOALS, LEARNING_RATES, availableGoals } from './learnmath.js';

export const STATE_VERSION = 1;
const HASH_PREFIX = `av${STATE_VERSION}.`;
const TOP_KEYS = ['version', 'tokens', 'x', 'heads', 'wo', 'context', 'causal', 'keyPadding', 'scaleBySqrtDk',
  'temperature', 'positionalEncoding', 'view', 'learn'];
const LEARN_KEYS = ['goal', 'target', 'lr', 'trainX'];
const VIEW_KEYS = ['step', 'head', 'lang', 'decimals'];

export function tutorialState(lang = 'zh') {
  return {
    version: STATE_VERSION,
    tokens: ['我', '爱', '你'],
    x: TUTORIAL.x,
    heads: [{ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }],
    causal: false,
    keyPadding: [false, false, false],
    scaleBySqrtDk: true,
    temperature: 1,
    positionalEncoding: false,
    view: { step: 'input', head: 0, lang, decimals: DEFAULT_DECIMALS },
  };
}

const field = (name, problem, params = {}) => ({ key: 'errStateField', params: { field: name, problem: { key: problem, params } } });
const fail = (detail) => ({ ok: false, message: { key: 'errState', params: { detail } } });

// The engine's limit on tokens (rows of x or context); the page's own
// limits on dimensions and heads are model.js's.
export const MAX_TOKENS = 4096;

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
  for (const d of [dModel, keys.d, dk, dv]) if (d > MAX_DIM) return fail(field('x', 'probDim', { max: MAX_DIM }));
  if (input.wo !== undefined) {
    const [rows, cols] = shape(input.wo);
    if (rows !== heads.length * dv || cols !== dModel) {
      return fail(field('wo', 'probShape', { rows, cols, expected: `${heads.length * dv} × ${dModel}` }));
    }
  }
  for (const name of ['causal', 'scaleBySqrtDk', 'positionalEncoding']) {
    if (input[name] !== undefined && typeof input[name] !== 'boolean') return fail(field(name, 'probBoolean'));
  }
  const keyPadding = input.keyPadding ?? Array(keys.n).fill(false);
  if (!Array.isArray(keyPadding) || keyPadding.length !== keys.n || !keyPadding.every((b) => typeof b === 'boolean')) {
    return fail(field('keyPadding', 'probBooleans', { n: keys.n }));
  }
  const temperature = input.temperature ?? 1;
  if (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature <= 0) return fail(field('temperature', 'probTemperature'));
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
    heads: heads.map((h) => ({ wq: copy(h.wq), wk: copy(h.wk), wv: copy(h.wv) })),
    ...(input.wo !== undefined ? { wo: copy(input.wo) } : {}),
    ...(input.context !== undefined ? { context: { tokens: [...input.context.tokens], x: copy(input.context.x) } } : {}),
    causal: input.causal ?? false,
    keyPadding: [...keyPadding],
    scaleBySqrtDk: input.scaleBySqrtDk ?? true,
    temperature,
    positionalEncoding: input.positionalEncoding ?? false,
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

// ---- the URL hash ----

function base64url(bytes) {
  let binary = '';
  // a chunk at a time: a char at a time took ~150 ms for a 1 MB state
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  // a loop: Uint8Array.from(binary, callback) took 0.8 s for a 1 MB link
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Fields at their default are left out (validateState() puts them back).
function withoutDefaults(state) {
  const compact = { ...state, view: { ...state.view } };
  const defaults = tutorialState();
  for (const key of ['causal', 'scaleBySqrtDk', 'temperature', 'positionalEncoding']) {
    if (compact[key] === defaults[key]) delete compact[key];
  }
  if (!compact.keyPadding.some(Boolean)) delete compact.keyPadding;
  for (const key of ['step', 'head', 'decimals']) if (compact.view[key] === defaults.view[key]) delete compact.view[key];
  return compact;
}

export function encodeHash(state) {
  return HASH_PREFIX + base64url(new TextEncoder().encode(JSON.stringify(withoutDefaults(state))));
}

// Accepts the hash with or without '#'. {ok, state} or {ok: false, message};
// an empty hash is {ok: false, message: null} (nothing to restore).
export function decodeHash(hash) {
  const text = hash.replace(/^#/, '');
  if (text === '') return { ok: false, message: null };
  const version = /^av(\d+)\./.exec(text);
  if (!version) return fail({ key: 'errStateHash', params: {} });
  if (Number(version[1]) !== STATE_VERSION) return fail({ key: 'errStateVersion', params: { version: version[1], supported: STATE_VERSION } });
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64url(text.slice(version[0].length))));
  } catch {
    return fail({ key: 'errStateHash', params: {} });
  }
  return validateState(parsed);
}

// A deep copy of a state (JSON data: objects, arrays, strings, numbers,
// booleans, null). Rows of plain values are copied with slice(): at n = 4096
// (X alone is 4096 × 64 numbers) this takes ~10 ms where structuredClone took
// 50–150 ms.
export function copyState(value) {
  if (Array.isArray(value)) return value.every(isPlain) ? value.slice() : value.map(copyState);
  if (isPlain(value)) return value;
  const copy = {};
  for (const key of Object.keys(value)) copy[key] = copyState(value[key]);
  return copy;
}
const isPlain = (value) => value === null || typeof value !== 'object';

// JSON.stringify(value)'s very text, made in slices of about SLICE_MS with a
// task between them, for a large state (~5 MB of JSON at n = 4096: 50–60 ms
// in one task); null when cancelled() turns true between slices. Characters
// beyond U+00FF are written as \uXXXX escapes (JSON.parse reads the same
// value): a text of one byte a character is what the page stores, and
// Chromium's localStorage.setItem of 5 MB takes ~30 ms so, 45–60 ms with
// the 4096 CJK tokens of a sentence in it (two bytes a character then).
const SLICE_MS = 8;
const latin1 = (text) => text.replace(/[\u0100-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
export async function jsonInSlices(value, cancelled) {
  const parts = [];
  let start = performance.now();
  for (const part of jsonParts(value)) {
    parts.push(latin1(part));
    if (performance.now() - start >= SLICE_MS) {
      await nextTask();
      if (cancelled()) return null;
      start = performance.now();
    }
  }
  return parts.join('');
}

// The JSON text of value in parts, an array of plain values or a leaf at a time
// (objects' keys in JSON.stringify's order, undefined members left out).
function* jsonParts(value) {
  if (isPlain(value) || (Array.isArray(value) && value.every(isPlain))) {
    yield JSON.stringify(value);
  } else if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      if (value[i] === undefined) yield 'null';
      else yield* jsonParts(value[i]);
    }
    yield ']';
  } else {
    let separator = '{';
    for (const key of Object.keys(value)) {
      if (value[key] === undefined) continue;
      yield `${separator}${JSON.stringify(key)}:`;
      separator = ',';
      yield* jsonParts(value[key]);
    }
    yield separator === '{' ? '{}' : '}';
  }
}

// The state as JSON text (for a file): -Infinity never occurs in a state.
export function stateToJson(state) {
  return `${JSON.stringify(state, null, 2)}\n`;
}

export function parseStateJson(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail({ key: 'errStateJson', params: {} });
  }
  return validateState(parsed);
}

// ---- between the state and model.js's editable model ----

export function modelFromState(state) {
  const [first] = state.heads;
  const model = createModel({ tokens: state.tokens, x: state.x, wq: first.wq, wk: first.wk, wv: first.wv });
  state.heads.forEach((head, h) => {
    for (const w of ['wq', 'wk', 'wv']) model.cells[headField(w, h)] = textsFromNumbers(head[w]);
  });
  if (state.wo) model.cells.wo = textsFromNumbers(state.wo);
  Object.assign(model.options, {
    heads: state.heads.length, useWo: Boolean(state.wo), causal: state.causal, scale: state.scaleBySqrtDk,
    temperature: String(state.temperature), pe: state.positionalEncoding, cross: Boolean(state.context),
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

// readModel()'s numbers and options, plus the view, as a state.
export function stateFromRead(tokens, contextTokens, matrices, options, view) {
  return {
    version: STATE_VERSION,
    tokens: [...tokens],
    x: matrices.x,
    heads: Array.from({ length: options.heads }, (_, h) => ({
      wq: matrices[headField('wq', h)], wk: matrices[headField('wk', h)], wv: matrices[headField('wv', h)],
    })),
    ...(options.usesWo ? { wo: matrices.wo } : {}),
    ...(options.cross ? { context: { tokens: [...contextTokens], x: matrices.c } } : {}),
    causal: options.causal,
    keyPadding: [...options.keyPadding],
    scaleBySqrtDk: options.scale,
    temperature: options.temperature,
    positionalEncoding: options.pe,
    view: { ...view },
  };
}

// The matrices by model field and readModel()-style options of a state, for
// variant.js's engineInput().
export function readState(state) {
  const matrices = { x: state.x };
  state.heads.forEach((head, h) => {
    for (const w of ['wq', 'wk', 'wv']) matrices[headField(w, h)] = head[w];
  });
  if (state.wo) matrices.wo = state.wo;
  if (state.context) matrices.c = state.context.x;
  const options = {
    heads: state.heads.length, usesWo: Boolean(state.wo), cross: Boolean(state.context), causal: state.causal,
    keyPadding: [...state.keyPadding], scale: state.scaleBySqrtDk, temperature: state.temperature, pe: state.positionalEncoding,
  };
  return { matrices, options };
}
