// The state as JSON: a file's text (stateToJson, parseStateJson), the text the page stores,
// made in slices (jsonInSlices), and a quick deep copy (copyState).

import { nextTask } from '../ui/dom.js';
import { validateState, refused } from './schema.js';

const fail = refused;

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
