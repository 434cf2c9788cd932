// An exercise's blanks (the `exercise` option, state/exercise.js): which cells of which matrix the
// reader is still to fill in, and what each has been given (solved, or its answer shown, and the
// hints taken). The progress belongs to one result: a new result (an edit) starts it afresh.
// Matrices are named as the steps show them (catalog.js): Q, K, V, Scores, Scaled, Weights,
// Output; one head's are the same cells in every head. Tables only: a matrix drawn as a heatmap
// (beyond TABLE_LIMIT rows or columns) is no hand calculation, and its exercise says so.

import { parseExercise } from '../state/exercise.js';
import { TABLE_LIMIT } from '../ui/limits.js';

export const MATRIX_NAMES = { q: 'Q', k: 'K', v: 'V', scores: 'Scores', scaled: 'Scaled', weights: 'Weights', output: 'Output' };
const progressOf = new WeakMap(); // full result → Map(exercise text → progress)

// The data of the matrix `name` in ctx (catalog.js's for that name), or null.
function dataOf(ctx, name) {
  if (name === 'Output') return ctx.full.output;
  const head = /^head_(\d+)$/.exec(name);
  if (head) return ctx.full.heads[Number(head[1]) - 1]?.output || null;
  const key = Object.keys(MATRIX_NAMES).find((k) => MATRIX_NAMES[k] === name);
  return key && ctx.result[key] ? ctx.result[key] : null;
}

// { items, progress, cells(name): [{r, c}] in range, outside: [item text] } for ctx, or null.
export function exerciseOf(ctx) {
  const text = ctx.options.exercise;
  if (!text || !ctx.full) return null;
  const { items } = parseExercise(text);
  if (!progressOf.has(ctx.full)) progressOf.set(ctx.full, new Map());
  const byText = progressOf.get(ctx.full);
  if (!byText.has(text)) byText.set(text, { given: new Map(), hints: new Map(), others: new Map() });
  const progress = byText.get(text);
  const head = ctx.options.heads > 1 ? ctx.head : 0;
  const keyOf = (name, r, c) => `${name}:${name === 'Output' ? '' : head}:${r}:${c}`;
  const cells = (name) => {
    const data = dataOf(ctx, name);
    if (!data) return [];
    const out = [];
    for (const item of items) {
      if (MATRIX_NAMES[item.matrix] !== name) continue;
      for (let r = 0; r < data.length; r++) {
        if (item.row !== undefined && item.row !== r) continue;
        for (let c = 0; c < data[0].length; c++) {
          if (item.column !== undefined && item.column !== c) continue;
          if (!out.some((cell) => cell.r === r && cell.c === c)) out.push({ r, c });
        }
      }
    }
    return out;
  };
  const outside = items.filter((item) => {
    const data = dataOf(ctx, MATRIX_NAMES[item.matrix]);
    return !data || (item.row !== undefined && item.row >= data.length) || (item.column !== undefined && item.column >= data[0].length);
  }).map(({ matrix, row, column }) => `${matrix}${row !== undefined ? `[${row}]` : ''}${column !== undefined ? `[${column}]` : ''}`);
  const large = (name) => {
    const data = dataOf(ctx, name);
    return Boolean(data) && (data.length > TABLE_LIMIT || data[0].length > TABLE_LIMIT);
  };
  return { items, progress, cells, outside, large, keyOf };
}

// The cells of `name` still blank, as a Set of r * cols + c for its table, or null when none.
// ctx.hidden: matrices a step hides whole until its guess is made (guess.js), blank too.
export function blanksOf(ctx, name) {
  if (ctx.hidden && ctx.hidden.includes(name)) {
    const data = dataOf(ctx, name);
    if (data) return new Set(Array.from({ length: data.length * data[0].length }, (_, k) => k));
  }
  const exercise = exerciseOf(ctx);
  if (!exercise || exercise.large(name)) return null;
  const cols = dataOf(ctx, name)?.[0].length;
  const blank = exercise.cells(name).filter(({ r, c }) => !exercise.progress.given.has(exercise.keyOf(name, r, c)));
  // Scaled is Scores ÷ √d_k (÷ T, + a known bias) cell by cell: its cell would give a Scores blank back
  // at once, so it waits for it (a blank not asked: "Fill in" lists Scores' only)
  if (name === 'Scaled' && !exercise.large('Scores')) {
    for (const cell of exercise.cells('Scores')) {
      if (!exercise.progress.given.has(exercise.keyOf('Scores', cell.r, cell.c)) && !blank.some((b) => b.r === cell.r && b.c === cell.c)) blank.push(cell);
    }
  }
  return blank.length > 0 ? new Set(blank.map(({ r, c }) => r * cols + c)) : null;
}

// Whether the blank at (r, c) of `name` is one the exercise asks for (else it waits for one: Scaled for Scores).
export function askedBlank(ctx, name, r, c) {
  const exercise = exerciseOf(ctx);
  return Boolean(exercise) && exercise.cells(name).some((cell) => cell.r === r && cell.c === c);
}

// Whether any of the matrices `names` has a blank (the step's notes and extra views, which would
// give the numbers away, wait for them).
export const hasBlanks = (ctx, names) => names.some((name) => blanksOf(ctx, name) !== null);

// ctx with each blank's number NaN, for show-the-work of the cells around it: its arithmetic
// then shows "?" where the blank's number (or one made from it) would be.
export function withoutBlanks(ctx) {
  if (!exerciseOf(ctx) && !ctx.hidden) return ctx;
  const hide = (name, data) => {
    const blanks = blanksOf(ctx, name);
    if (!blanks) return data;
    return data.map((row, r) => Array.from(row, (v, c) => (blanks.has(r * row.length + c) ? NaN : v)));
  };
  const result = { ...ctx.result };
  for (const [key, name] of Object.entries(MATRIX_NAMES)) if (key !== 'output' && result[key]) result[key] = hide(name, result[key]);
  const full = { ...ctx.full, output: hide('Output', ctx.full.output) };
  if (ctx.options.heads === 1 && !ctx.options.usesWo) result.output = full.output;
  return { ...ctx, result, full };
}

// A work line with "?" for the NaN of a blank.
export const blankText = (line) => line.replace(/−?NaN/g, '?');
