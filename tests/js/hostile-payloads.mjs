// Hostile inputs for the tests of every entry point (tests/js/web-*.test.mjs,
// tests/browser/hostile.test.mjs), generated: states as JSON text with one
// field replaced by an array or object nested thousands deep, long texts,
// control characters, lone surrogates and bad encodings.

// A valid state with every field present (context, W_O, key padding, view).
export function fullState() {
  return {
    version: 1,
    tokens: ['I', 'love', 'you'],
    x: [[1, 0], [0.5, 0.5], [0, 1]],
    heads: [{ wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] }],
    wo: [[1, 0], [0, 1]],
    context: { tokens: ['k1', 'k2'], x: [[1, 0], [0, 1]] },
    causal: false,
    keyPadding: [false, true],
    scaleBySqrtDk: true,
    temperature: 1,
    positionalEncoding: false,
    view: { step: 'softmax', head: 0, lang: 'en', decimals: 4 },
  };
}

// Every field of a state, and a field no state has.
export const FIELDS = [
  'version', 'tokens', 'tokens[0]', 'x', 'x[0]', 'x[0][0]', 'heads', 'heads[0]', 'heads[0].wq', 'heads[0].wq[0][0]',
  'wo', 'context', 'context.tokens', 'context.x', 'causal', 'keyPadding', 'keyPadding[0]', 'scaleBySqrtDk',
  'temperature', 'positionalEncoding', 'view', 'view.step', 'view.head', 'view.lang', 'view.decimals', 'extra',
];

// The field a validation message names when `path` holds a wrong value: the
// matrix for a cell, the list for an entry.
export const namedField = (path) => (path.startsWith('heads[0].wq') ? 'heads[0].wq' : path.replace(/\[\d+\].*$/, ''));

// leaf: JSON text at the bottom (a payload string, say).
export const nestedArrayText = (depth, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
export const nestedObjectText = (depth, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

// The value itself (for postMessage and the `state` property), built without recursion.
export function nestedArray(depth) {
  let value = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const MARK = '\u0000hostile\u0000';

// 'heads[0].wq[0][0]' → ['heads', 0, 'wq', 0, 0]
const pathKeys = (path) => path.split(/[.[\]]+/).filter(Boolean).map((k) => (/^\d+$/.test(k) ? Number(k) : k));

// The JSON text of `state` with the field at `path` (made when missing) replaced by `valueText`.
export function withFieldText(state, path, valueText) {
  const copy = structuredClone(state);
  const keys = pathKeys(path);
  let node = copy;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key];
  }
  node[keys.at(-1)] = MARK;
  return JSON.stringify(copy).replace(JSON.stringify(MARK), valueText);
}

// Every field of fullState() nested `depth` deep, as arrays and as objects: [{field, kind, text}].
export function nestedStates(depth, leaf = '1') {
  const state = fullState();
  const array = nestedArrayText(depth, leaf);
  const object = nestedObjectText(depth, leaf);
  return FIELDS.flatMap((field) => [
    { field, kind: 'array', text: withFieldText(state, field, array) },
    { field, kind: 'object', text: withFieldText(state, field, object) },
  ]);
}

// Every C0 control, DEL, C1's NEL, line and paragraph separators, zero width and bidi controls, a BOM.
export const CONTROL = `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}\u007f\u0085\u2028\u2029\u200b\u202e\ufeff`;
export const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud83d', '\ude00b'];
// Bytes that are not UTF-8: a bad continuation, stray continuations, 0xff 0xfe, a cut-off sequence.
export const INVALID_UTF8 = [0xc3, 0x28, 0xa0, 0xa1, 0xff, 0xfe, 0xe2, 0x82];
