// The types (types/*.d.ts) against the runtime's own objects (issue 32, item 11): the built
// element, in Chromium, gives its states (with "How it learns"'s `learn` field, on the step
// `learn`), its results (arrays of numbers, and rows of Float64Array from 1024 × 1024 cells),
// its events and its properties, and the engine a `reuse` result and a model's run (rows and
// typed), gradients and training (runModel, modelGradients, trainModel); each is written into a
// TypeScript file as a literal of what it is (long arrays cut to their first elements: the same
// types) and assigned to the declared type, which `tsc --strict` (the repository's) must accept:
// a field the runtime has and the types lack is an excess property, one the types require and
// the runtime lacks a missing one. Events are read through their declared types as the runtime
// sent them (a CustomEvent's detail.state); every public property of the element's prototype
// must be declared, and each one the runtime does not let authors write must be read-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { launchChromium } from './chromium.mjs';
import { pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const DIR = pageFolder('types', ['attention-visualizer.js']);
const TYPES = path.resolve('types');
// Properties with a setter that only the page itself (main.js, full mode) may use.
const PAGE_ONLY_SETTERS = ['statusMessage'];
// The custom element reactions the browser calls, not the element's API.
const REACTIONS = ['connectedCallback', 'disconnectedCallback', 'adoptedCallback', 'attributeChangedCallback'];
const PAGE = path.join(DIR, 'index.html');
writeFileSync(PAGE, '<!doctype html><html lang="en"><head><meta charset="utf-8"><script src="attention-visualizer.js"></script></head><body></body></html>\n');

// In the page: captures the runtime objects, each as TypeScript source.
async function capture() {
  const cut = 3; // the first elements of an array are enough for its type
  const lit = (value) => {
    if (value === null) return 'null';
    if (value === undefined) return 'undefined';
    if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
    if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
    if (ArrayBuffer.isView(value)) return `new ${value.constructor.name}([${[...value.slice(0, cut)].map(lit).join(', ')}])`;
    if (Array.isArray(value)) return `[${value.slice(0, cut).map(lit).join(', ')}]`;
    if (Object.getPrototypeOf(value) !== Object.prototype) throw new Error(`a ${value.constructor.name} in a plain object`);
    return `{ ${Object.keys(value).map((key) => `${JSON.stringify(key)}: ${lit(value[key])}`).join(', ')} }`;
  };
  const when = (v, type, test = () => true) => new Promise((resolve) => {
    const listener = (event) => {
      if (!test(event)) return;
      v.removeEventListener(type, listener);
      resolve(event);
    };
    v.addEventListener(type, listener);
  });
  const settled = (v) => when(v, 'computed', () => !v.computing);

  const v = document.createElement('attention-visualizer');
  v.setAttribute('lang', 'en');
  const events = {};
  for (const type of ['ready', 'change', 'computed']) v.addEventListener(type, (event) => { events[type] ??= event; });
  const readyEvent = when(v, 'ready');
  document.body.append(v);
  await readyEvent;
  const states = [v.state];
  const results = [v.result];
  const answered = when(v, 'answer');
  const answers = [v.check({ matrix: 'weights', row: 0, column: 0 }, '0.3361'), v.check({ matrix: 'weights', row: 0 }, '0.34 0.33 0.33')];
  const answerEvent = await answered;
  // two heads, W_O, a causal mask, a padded key, positional encoding, "How it learns" with a custom goal
  const head = { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] };
  let done = settled(v);
  v.state = {
    tokens: ['I', 'love', 'you'], heads: [head, { ...head, wq: [[1, 0], [0, 1]] }], wo: [[1, 0], [0, 1], [0.5, 0.5], [0.25, 0.75]],
    causal: true, keyPadding: [false, false, true], positionalEncoding: true,
    learn: { goal: 'custom', target: [[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0]], lr: 0.05, trainX: true }, view: { step: 'learn', head: 1 },
  };
  await done;
  states.push(v.state);
  results.push(v.result);
  // cross-attention, one head, no W_O
  done = settled(v);
  v.state = { ...v.state, heads: [head], wo: undefined, context: { tokens: ['a', 'b'], x: [[1, 0], [0, 1]] }, keyPadding: [false, true], learn: { goal: 'custom' }, view: { step: 'softmax', head: 0 } };
  await done;
  states.push(v.state);
  results.push(v.result);
  // 1024 × 1024 attention cells: rows of Float64Array, masks of Uint8Array
  const n = 1024;
  done = settled(v);
  v.state = {
    tokens: Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)), x: Array.from({ length: n }, (_, i) => [i % 3, 1]),
    heads: [head], context: undefined, causal: true, keyPadding: Array(n).fill(false), positionalEncoding: false, view: { step: 'input', head: 0 },
  };
  await done;
  const large = v.result;
  if (!(large.heads[0].weights[0] instanceof Float64Array)) throw new Error('expected rows of Float64Array at 1024 × 1024 cells');
  results.push(large);

  const engine = await globalThis.createAttentionEngine();
  const reused = engine.compute({ x: [[1, 0], [0, 1]], wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] }, { typed: true, reuse: true });
  // a small model with every part (norms, an MLP, a final norm, tied unembedding)
  const eye = [[1, 0], [0, 1]];
  const model = {
    vocab: ['a', 'b', 'c'], dModel: 2, maxTokens: 4, causal: true, embed: [[1, 0], [0, 1], [0.2, 0.9]], positions: 'sinusoidal',
    layers: [{
      norm1: { gain: [1, 1], bias: [0, 0] }, heads: [{ wq: eye, wk: [[0.5, 0], [0, 0.5]], wv: eye }], wo: eye,
      norm2: { gain: [1, 1], bias: [0, 0] }, mlp: { w1: eye, b1: [0, 0], w2: eye, b2: [0, 0], activation: 'gelu' },
    }],
    finalNorm: { gain: [1, 1], bias: [0, 0] }, unembed: 'tied',
  };
  const models = {
    model, run: engine.runModel(model, [0, 1, 2]), typedRun: engine.runModel(model, [0, 1, 2], { typed: true }),
    gradients: engine.modelGradients(model, [0, 1, 2], [1, 2, -1]),
    trained: engine.trainModel(model, { batches: [{ ids: [0, 1], targets: [1, 2] }], learningRate: 0.01 }),
  };

  const proto = Object.getPrototypeOf(v);
  const members = Object.getOwnPropertyNames(proto).filter((name) => !name.startsWith('_') && name !== 'constructor').map((name) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    return { name, kind: typeof d.value === 'function' ? 'method' : 'accessor', writable: Boolean(d.set) };
  });
  return {
    states: states.map(lit),
    results: results.map(lit),
    reused: lit(reused),
    models: Object.fromEntries(Object.entries(models).map(([name, value]) => [name, lit(value)])),
    answers: answers.map(lit),
    answerEvent: { constructor: answerEvent.constructor.name, detail: lit(answerEvent.detail) },
    events: Object.entries(events).map(([type, event]) => ({
      type, constructor: event.constructor.name, detailKeys: event.detail ? Object.keys(event.detail) : null, state: event.detail && lit(event.detail.state),
    })),
    members,
  };
}

function typeScript(runtime) {
  const lines = [
    `import type { AttentionVisualizer, AttentionVisualizerEventMap, AttentionVisualizerResult, AttentionVisualizerState, AttentionVisualizerCellAnswer, AttentionVisualizerRowAnswer } from '${TYPES}/attention-visualizer.js';`,
    `import type { AttentionEngine, TypedSingleHeadResult, TypedMatrix, Model, ModelRun, ModelGradients, TrainModelResult } from '${TYPES}/attention-engine.js';`,
    'declare const v: AttentionVisualizer;',
    'declare const engine: AttentionEngine;',
    ...runtime.states.map((s, i) => `export const state${i}: AttentionVisualizerState = ${s};`),
    ...runtime.results.map((r, i) => `export const result${i}: AttentionVisualizerResult = ${r};`),
    'export const reused: TypedSingleHeadResult = engine.compute({ x: [[1]], wq: [[1]], wk: [[1]], wv: [[1]] }, { typed: true, reuse: true });',
    `export const reusedShape: TypedSingleHeadResult = ${runtime.reused};`,
    `export const model: Model = ${runtime.models.model};`,
    `export const modelRun: ModelRun = ${runtime.models.run};`,
    `export const typedRun: ModelRun<TypedMatrix> = ${runtime.models.typedRun};`,
    'export const typedRunDeclared: ModelRun<TypedMatrix> = engine.runModel(model, [0, 1], { typed: true, headsOff: [{ layer: 0, head: 0 }] });',
    `export const modelGradients: ModelGradients = ${runtime.models.gradients};`,
    `export const trained: TrainModelResult = ${runtime.models.trained};`,
    "export const trainedDeclared: TrainModelResult = engine.trainModel(model, { batches: [{ ids: [0], targets: [1] }], learningRate: 0.1, optimizer: 'sgd' });",
    `export const answer0: AttentionVisualizerCellAnswer = ${runtime.answers[0]};`,
    `export const answer1: AttentionVisualizerRowAnswer = ${runtime.answers[1]};`,
    "export const checkedCell: AttentionVisualizerCellAnswer = v.check({ matrix: 'scores', row: 0, column: 1, head: 0 }, 0.24);",
    "export const checkedRow: AttentionVisualizerRowAnswer = v.check({ matrix: 'output', row: 1 }, [0.5, '0.6']);",
    `export const answerSent: AttentionVisualizerEventMap['answer'] = new ${runtime.answerEvent.constructor}('answer', { detail: ${runtime.answerEvent.detail} });`,
    "v.addEventListener('answer', (event) => console.log(event.detail.correct, event.detail.mistake, event.detail.explanation.zh));",
    '// @ts-expect-error: not a matrix of the results',
    "v.check({ matrix: 'nope', row: 0, column: 0 }, '1');",
    '// @ts-expect-error: reuse needs typed',
    'engine.compute({ x: [[1]], wq: [[1]], wk: [[1]], wv: [[1]] }, { reuse: true });',
  ];
  for (const { type, constructor, detailKeys, state } of runtime.events) {
    lines.push(`export const ${type}Sent: AttentionVisualizerEventMap['${type}'] = new ${constructor}('${type}'${detailKeys ? `, { detail: { state: ${state} } }` : ''});`);
    if (detailKeys) {
      for (const key of detailKeys) lines.push(`v.addEventListener('${type}', (event) => console.log(event.detail.${key}));`);
      lines.push(`v.addEventListener('${type}', (event) => { const state: AttentionVisualizerState = event.detail.state; console.log(state); });`);
    }
  }
  for (const { name, kind, writable } of runtime.members.filter((m) => !REACTIONS.includes(m.name))) {
    lines.push(`export type Member_${name} = AttentionVisualizer['${name}'];`);
    if (kind === 'accessor' && (!writable || PAGE_ONLY_SETTERS.includes(name))) {
      lines.push(`// @ts-expect-error: ${name} is read-only`, `v.${name} = null as never;`);
    }
  }
  return `${lines.join('\n')}\n`;
}

test('the types match the runtime: states with learn, results with Float64Array rows, computed\'s detail.state, reuse, read-only properties', async () => {
  const browser = await launchChromium();
  let runtime;
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(pathToFileURL(PAGE).href);
    runtime = await page.evaluate(capture);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
  // what the runtime showed, before it is checked against the types
  assert.match(runtime.states[1], /"learn": \{ "goal": "custom", "target"/);
  assert.match(runtime.states[1], /"step": "learn"/);
  assert.match(runtime.results[3], /new Float64Array\(/);
  assert.deepEqual(runtime.events.find((e) => e.type === 'computed').detailKeys, ['state']);
  assert.ok(runtime.members.some((m) => m.name === 'shownState'));
  assert.match(runtime.answers[0], /"mistake": "misprint"/);
  assert.match(runtime.answers[1], /"cells": \[/);
  assert.match(runtime.models.run, /"mlp": \{ "input": /);
  assert.match(runtime.models.typedRun, /"logits": \{ "rows": 3, "cols": 3, "data": new Float64Array\(/);
  assert.match(runtime.models.gradients, /^\{ "loss": [\d.]+, "gradients": \{ "embed": /);
  assert.match(runtime.models.trained, /"losses": \[/);
  writeFileSync(path.join(DIR, 'check.ts'), typeScript(runtime));
  writeFileSync(path.join(DIR, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, lib: ['es2022', 'dom'], types: [] },
    files: ['check.ts'],
  }));
  const error = await run(path.resolve('node_modules/.bin/tsc'), ['-p', path.join(DIR, 'tsconfig.json')]).then(() => null, (e) => e);
  assert.equal(error, null, error && `${error.stdout}${error.stderr}`);
});

test('statusMessage: a descriptor that does not read throws a TypeError and the next state set still works', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(PAGE).href);
    const outcome = await page.evaluate(async () => {
      const v = document.createElement('attention-visualizer');
      const ready = new Promise((resolve) => v.addEventListener('ready', resolve, { once: true }));
      document.body.append(v);
      await ready;
      let thrown = null;
      try {
        v.statusMessage = 'damaged';
      } catch (error) {
        thrown = error.constructor.name;
      }
      v.state = { causal: true };
      return { thrown, causal: v.state.causal, message: v.statusMessage };
    });
    assert.deepEqual(outcome, { thrown: 'TypeError', causal: true, message: null });
  } finally {
    await browser.close();
  }
});
