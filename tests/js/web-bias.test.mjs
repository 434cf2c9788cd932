// Biases in the page (issue 37.1): a state with bq, bk, bv per head and bo reads, round-trips
// through the link, the JSON file and the editor, reaches the engine's input, and its numpy
// script and show-the-work give torch's numbers (tests/fixtures/bias_cases.txt, written by
// tests/make_bias_fixtures.py from nn.MultiheadAttention(bias=True)).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createAttentionEngine, loadBiasCases, loadModelCases, modelOf, relativeDiff, runScript } from './fixtures.mjs';
import { validateState } from '../../web/src/state/schema.js';
import { encodeHash, decodeHash } from '../../web/src/state/link.js';
import { stateToJson, parseStateJson } from '../../web/src/state/json.js';
import { modelFromState, readModel, stateFromRead, readState, activeFields, applyMatrix } from '../../web/src/state/model.js';
import { engineInput } from '../../web/src/engine/variant.js';
import { explainCell } from '../../web/src/views/work.js';
import { describe } from '../../web/src/ui/i18n.js';
import { formatCompact } from '../../web/src/ui/format.js';
import { modelState } from '../../web/src/engine/model-run.js';

const cases = loadBiasCases();
const forward = cases.filter((c) => c.options.steps === undefined);
const read = (state) => {
  const checked = validateState(state);
  assert.ok(checked.ok, checked.ok ? '' : JSON.stringify(checked.message));
  return checked.state;
};

test('a state with biases reads, and its link and JSON file give every bias back bit for bit', () => {
  for (const c of forward) {
    const state = read(c.state);
    assert.deepEqual(state.heads.map((h) => h.bq), c.input.heads.map((h) => h.bq), c.name);
    assert.deepEqual(state.bo, c.input.bo, c.name);
    assert.deepEqual(read(decodeHash(encodeHash(state)).state), state, `${c.name}: link`);
    assert.deepEqual(parseStateJson(stateToJson(state)).state, state, `${c.name}: JSON`);
  }
  // a head without bk keeps none
  const partial = read(forward.find((c) => c.name === 'heads2_no_bk_no_bo').state);
  assert.equal(partial.heads[0].bk, undefined);
  assert.equal(partial.bo, undefined);
});

test('a bias of the wrong length, not of numbers, or b_O without W_O is refused naming it (zh and en)', () => {
  const state = read(forward.find((c) => c.name === 'heads2_n4_dm6').state);
  const refused = (s) => {
    const r = validateState(s);
    assert.equal(r.ok, false);
    return { en: describe('en', r.message), zh: describe('zh', r.message) };
  };
  const short = refused({ ...state, heads: [state.heads[0], { ...state.heads[1], bq: [1, 2] }] });
  assert.match(short.en, /heads\[1\]\.bq.*has 2 numbers, but must have 3/);
  assert.match(short.zh, /heads\[1\]\.bq.*有 2 个数，应为 3 个/);
  assert.match(refused({ ...state, heads: [{ ...state.heads[0], bv: [1, 'x', 3] }, state.heads[1]] }).en, /heads\[0\]\.bv.*position 2/);
  assert.match(refused({ ...state, bo: [1, 2] }).en, /“bo” has 2 numbers, but must have 6/);
  const noWo = { ...state };
  delete noWo.wo;
  assert.match(refused(noWo).en, /“bo” needs wo/);
  assert.match(refused(noWo).zh, /只能与 wo 一起给出/);
});

test('the editor edits the biases as one-row matrices under their own, and gives them back to the state and the engine', () => {
  for (const c of forward) {
    const state = read(c.state);
    const model = modelFromState(state);
    assert.equal(model.options.biases, true);
    const fields = activeFields(model);
    assert.equal(fields[fields.indexOf('wq') + 1], 'bq', 'b_Q right under W_Q');
    const r = readModel(model);
    assert.ok(r.ok, JSON.stringify(r.errors));
    const back = stateFromRead(state.tokens, state.context?.tokens ?? [], r.matrices, r.options, state.view);
    // every bias given comes back; one not given (no bk) reads as zeros in the editor
    state.heads.forEach((head, h) => {
      for (const b of ['bq', 'bk', 'bv']) assert.deepEqual(back.heads[h][b], head[b] ?? back.heads[h][b].map(() => 0), `${c.name} ${b}`);
    });
    if (state.wo) assert.deepEqual(back.bo, state.bo ?? back.bo.map(() => 0), c.name);
    // the state's own biases, as given, in the engine's input
    const { matrices, options } = readState(state);
    const input = engineInput(matrices, options);
    const heads = input.heads ?? [input];
    heads.forEach((head, h) => {
      for (const b of ['bq', 'bk', 'bv']) assert.deepEqual(head[b], c.input.heads[h][b], `${c.name} input ${b}`);
    });
    assert.deepEqual(input.bo, c.input.bo, c.name);
  }
  // a bias typed or pasted whole keeps the dimensions (b_O is d_model wide, not a new d_k)
  const model = modelFromState(read(forward.find((c) => c.name === 'heads2_n4_dm6').state));
  const dims = { ...model.dims };
  assert.equal(applyMatrix(model, 'bo', [[1, 2, 3, 4, 5, 6]]), null);
  assert.deepEqual(model.dims, dims);
  assert.equal(applyMatrix(model, 'bv.1', [[1, 2, 3]]), null);
  assert.deepEqual(model.dims, dims);
  assert.equal(applyMatrix(model, 'bq', [[1, 2]]).key, 'errBiasShape');
});

test("the numpy script of a state with biases prints torch's Q, weights and output", () => {
  let worst = 0;
  for (const c of forward) {
    const state = read(c.state);
    const printed = runScript(state);
    const multi = state.heads.length > 1 || state.wo;
    state.heads.forEach((_, h) => {
      const prefix = multi ? `head ${h + 1} ` : '';
      for (const [name, key] of [['Q', 'q'], ['K', 'k'], ['V', 'v'], ['Weights', 'weights']]) {
        worst = Math.max(worst, relativeDiff(printed[prefix + name], c[`h${h}.${key}`]));
      }
    });
    const output = state.wo ? printed[state.bo ? 'Concat @ W_O + b_O' : 'Concat @ W_O'] : printed.Output;
    worst = Math.max(worst, relativeDiff(output, c.output));
  }
  assert.ok(worst <= 1e-12, `max relative difference ${worst}`);
});

test('show the work prints the bias term of Q, K, V and the output, each term the fixture\'s', () => {
  const c = forward.find((k) => k.name === 'cross_nq3_nk5_dctx3_heads2');
  const state = read(c.state);
  const decimals = 3;
  const f = (v) => formatCompact(v, decimals);
  const n = (v) => (f(v).startsWith('-') ? `(${f(v)})` : f(v));
  const head = 1;
  const inputs = { x: state.x, c: state.context.x, wo: state.wo, ...state.heads[head], bo: state.bo };
  const result = { q: c['h1.q'], k: c['h1.k'], v: c['h1.v'] };
  const full = { output: c.output, concat: c.output.map(() => []), heads: [] };
  const ctx = {
    lang: 'en', decimals, tokens: state.tokens, keyTokens: state.context.tokens, inputs, result, full, head,
    options: { heads: 2, usesWo: true, cross: true, ...readState(state).options },
  };
  for (const [name, key, source, weights, bias] of [['Q', 'q', state.x, 'wq', 'bq'], ['K', 'k', state.context.x, 'wk', 'bk'], ['V', 'v', state.context.x, 'wv', 'bv']]) {
    const [r, col] = [1, 2];
    const { lines, marks } = explainCell(name, r, col, ctx);
    const terms = source[r].map((s, t) => `${n(s)}×${n(state.heads[head][weights][t][col])}`).join(' + ');
    assert.match(lines[0], new RegExp(`= ${escape(terms)} \\+ ${escape(n(c[`h1.${bias}`][0][col]))} = ${escape(f(c[`h1.${key}`][r][col]))}$`), name);
    assert.ok(lines.some((l) => l.includes(`the bias b_${name}`)), name);
    assert.deepEqual(marks.at(-1), { m: `b_${name}`, c: col });
  }
  // Output = Concat·W_O + b_O, its terms from the concatenated heads
  const concat = c.output.map((_, i) => [...c['h0.weights'][i].map(() => 0)]); // placeholder rows, replaced below
  for (let i = 0; i < concat.length; i++) concat[i] = [0, 1].flatMap((h) => matmulRow(c[`h${h}.weights`][i], c[`h${h}.v`]));
  full.concat = concat;
  const { lines } = explainCell('Output', 0, 3, { ...ctx, full });
  const terms = concat[0].map((v, t) => `${n(v)}×${n(state.wo[t][3])}`).join(' + ');
  assert.match(lines[0], new RegExp(`= ${escape(terms)} \\+ ${escape(n(state.bo[3]))} = ${escape(f(c.output[0][3]))}$`));
  assert.match(explainCell('Output', 0, 3, { ...ctx, full, lang: 'zh' }).lines.at(-1), /偏置 b_O 的第/);
});

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const matmulRow = (w, v) => v[0].map((_, j) => w.reduce((sum, wk, k) => sum + wk * v[k][j], 0));

test("a model's layer with biases is shown with them: its heads' weights and attention output are torch's", async () => {
  const engine = await createAttentionEngine();
  const c = loadModelCases().find((k) => k.name === 'model2_2x1'); // layer 0: b_Q, b_K, b_V and b_O
  const model = { ...modelOf(c), tokenizer: { kind: 'words' } };
  const tokens = c.ids.map((id) => model.vocab[id]);
  const before = { ...read(forward.find((k) => k.name === 'heads2_n4_dm6').state), model: 'm', layer: 0 };
  const { state } = modelState(before, { entry: { name: 'm', title: {} }, model }, engine, tokens.join(' '));
  const shown = read(state);
  assert.deepEqual(shown.heads[0].bq, model.layers[0].heads[0].bq);
  assert.deepEqual(shown.bo, model.layers[0].bo);
  const { matrices, options } = readState(shown);
  const r = engine.compute(engineInput(matrices, options));
  const worst = Math.max(relativeDiff(r.heads[0].weights, c['L0.h0.weights']), relativeDiff(r.output, c['L0.attention']));
  assert.ok(worst <= 1e-12, `max relative difference ${worst}`);
  // layer 1 has no b_O: the state keeps none of before's
  const second = modelState({ ...before, layer: 1 }, { entry: { name: 'm', title: {} }, model }, engine, tokens.join(' ')).state;
  assert.equal(second.bo, undefined);
  assert.ok(relativeDiff(engine.compute(engineInput(...Object.values(readState(read(second))))).heads[0].weights, c['L1.h0.weights']) <= 1e-12);
});
