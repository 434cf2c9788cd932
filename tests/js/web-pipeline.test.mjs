// The pipeline diagram's stages and layout (web/src/views/pipeline.js), without a browser:
// which stages each option brings, their shapes from the sizes, the arrows, and
// a drawing in which nothing overlaps. tests/browser/firstscreen.test.mjs
// covers the drawing on the page and in the element.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pipelineStages, layoutPipeline, textWidth } from '../../web/src/views/pipeline.js';
import { stepsFor } from '../../web/src/views/steps.js';

const zeros = (rows, cols) => Array.from({ length: rows }, () => Array(cols).fill(0));
const PLAIN = { cross: false, positionalEncoding: false, heads: 1, usesWo: false, scaleBySqrtDk: true, temperature: 1, causal: false };

// n query tokens, m keys, and the sizes, as the views receive them.
function view({ n = 3, m = n, dModel = 2, dCtx = 2, dk = 2, dv = 2, lang = 'en', ...options } = {}) {
  const all = { ...PLAIN, keyPadding: Array(m).fill(false), ...options };
  const tokens = Array.from({ length: n }, (_, i) => `q${i}`);
  return {
    lang,
    options: all,
    tokens,
    keyTokens: all.cross ? Array.from({ length: m }, (_, i) => `k${i}`) : tokens,
    inputs: {
      x: zeros(n, dModel), c: all.cross ? zeros(m, dCtx) : undefined,
      wq: zeros(dModel, dk), wv: zeros(all.cross ? dCtx : dModel, dv), wo: all.usesWo ? zeros(all.heads * dv, dModel) : undefined,
    },
  };
}

const ids = (stages) => stages.columns.map((column) => column.map((s) => s.id));
const byId = (stages) => Object.fromEntries(stages.columns.flat().map((s) => [s.id, s]));

test('plain attention: X → Q, K, V → Q·Kᵀ → ÷√d_k → softmax → ·V → learn, shapes in the example\'s sizes', () => {
  const stages = pipelineStages(view({ n: 4, dModel: 3, dk: 5, dv: 6 }));
  assert.deepEqual(ids(stages), [['x'], ['q', 'k', 'v'], ['scores'], ['scale'], ['softmax'], ['output'], ['learn']]);
  const s = byId(stages);
  assert.deepEqual(
    Object.fromEntries(Object.values(s).map((stage) => [stage.id, stage.shape])),
    { x: [4, 3], q: [4, 5], k: [4, 5], v: [4, 6], scores: [4, 4], scale: [4, 4], softmax: [4, 4], output: [4, 6], learn: [4, 4] },
  );
  assert.deepEqual(Object.values(s).map((stage) => stage.text), ['X', 'Q', 'K', 'V', 'Q·Kᵀ', '÷√d_k', 'softmax', '·V', 'learn']);
  assert.deepEqual(stages.edges, [['x', 'q'], ['x', 'k'], ['x', 'v'], ['q', 'scores'], ['k', 'scores'],
    ['scores', 'scale'], ['scale', 'softmax'], ['softmax', 'output'], ['v', 'output'], ['output', 'learn']]);
  assert.ok(Object.values(s).every((stage) => !stage.variant));
});

test('each option brings its own stages, and only its own', () => {
  const stageIds = (options) => ids(pipelineStages(view(options))).flat();
  const plain = stageIds({});
  assert.deepEqual(stageIds({ causal: true }), [...plain.slice(0, 6), 'mask', ...plain.slice(6)]);
  assert.deepEqual(stageIds({ keyPadding: [false, true, false] }), stageIds({ causal: true }), 'a padding key masks too');
  assert.deepEqual(stageIds({ temperature: 0.5 }), plain, '÷T is part of the scaling stage');
  assert.deepEqual(stageIds({ positionalEncoding: true }), ['x', 'pe', ...plain.slice(1)]);
  const learn = plain.slice(0, -1); // the stages before training's
  assert.deepEqual(stageIds({ usesWo: true }), [...learn, 'wo', 'learn']);
  assert.deepEqual(stageIds({ heads: 3, usesWo: true }), [...learn, 'heads', 'concat', 'wo', 'learn']);
  assert.deepEqual(stageIds({ cross: true, m: 5 }), ['x', 'c', ...plain.slice(1)]);
  assert.deepEqual(stageIds({ cross: true, positionalEncoding: true, m: 5 }), ['x', 'c', 'pe', 'peC', ...plain.slice(1)]);
});

test('cross-attention: the context C feeds K and V, X feeds Q; the shapes follow n and m', () => {
  const stages = pipelineStages(view({ cross: true, positionalEncoding: true, n: 3, m: 5, dModel: 4, dCtx: 6, dk: 2, dv: 7 }));
  const edges = stages.edges.map((e) => e.join('→'));
  for (const edge of ['x→pe', 'c→peC', 'pe→q', 'peC→k', 'peC→v']) assert.ok(edges.includes(edge), edge);
  for (const edge of ['pe→k', 'pe→v', 'peC→q', 'x→q', 'c→k']) assert.ok(!edges.includes(edge), edge);
  const s = byId(stages);
  assert.deepEqual([s.c.shape, s.peC.shape, s.k.shape, s.v.shape, s.scores.shape, s.output.shape], [[5, 6], [5, 6], [5, 2], [5, 7], [3, 5], [3, 7]]);
  assert.ok(s.c.variant && s.pe.variant && !s.x.variant);
});

test('heads and W_O: h heads of n × m weights, concat n × h·d_v, W_O back to n × d_model', () => {
  const s = byId(pipelineStages(view({ heads: 4, usesWo: true, n: 3, dModel: 5, dv: 2 })));
  assert.deepEqual([s.heads.shape, s.concat.shape, s.wo.shape], [[4, 3, 3], [3, 8], [3, 5]]);
  assert.deepEqual([s.heads.text, s.heads.name, s.concat.text, s.wo.text], ['4 heads', 'All 4 heads', 'concat', '·W_O']);
  const zh = byId(pipelineStages(view({ heads: 4, usesWo: true, causal: true, lang: 'zh' })));
  assert.deepEqual([zh.heads.text, zh.concat.text, zh.mask.text, zh.mask.name], ['4 个头', '拼接', '掩码', '掩码']);
});

test('the scaling stage says what divides the scores: √d_k, T, both, or nothing (struck out)', () => {
  const scale = (options) => byId(pipelineStages(view(options))).scale;
  const cases = [
    [{}, '÷√d_k', 'Divide by √d_k', false],
    [{ temperature: 2 }, '÷√d_k ÷T', 'Divide by √d_k and by the temperature T', false],
    [{ scaleBySqrtDk: false, temperature: 0.5 }, '÷T', 'Divide by the temperature T', false],
    [{ scaleBySqrtDk: false }, '÷√d_k', 'No scaling', true],
  ];
  for (const [options, text, name, off] of cases) {
    const s = scale(options);
    assert.deepEqual([s.text, s.name, Boolean(s.off)], [text, name, off], JSON.stringify(options));
  }
});

test('every stage opens a step of its variant, and every step has a stage', () => {
  for (const options of [{}, { causal: true, temperature: 3 }, { positionalEncoding: true, cross: true, m: 2 }, { heads: 2, usesWo: true }, { usesWo: true, positionalEncoding: true }]) {
    const v = view(options);
    const steps = stepsFor(v.options).map((step) => step.id);
    const opened = pipelineStages(v).columns.flat().map((s) => s.step);
    assert.deepEqual([...new Set(opened)].sort(), [...steps].sort(), JSON.stringify(options));
  }
});

test('the layout: columns left to right, no two stages overlapping, V\'s arrow in a lane under the stages it passes', () => {
  const stages = pipelineStages(view({ cross: true, positionalEncoding: true, causal: true, heads: 2, usesWo: true, temperature: 2, m: 4 }));
  const { boxes, width, height, lane } = layoutPipeline(stages);
  const all = Object.entries(boxes);
  for (const [a, p] of all) {
    assert.ok(p.x >= 0 && p.y >= 0 && p.x + p.w <= width && p.y + p.h <= height, `${a} inside the drawing`);
    for (const [b, q] of all) {
      if (a < b) assert.ok(p.x + p.w <= q.x || q.x + q.w <= p.x || p.y + p.h <= q.y || q.y + q.h <= p.y, `${a} and ${b} apart`);
    }
  }
  stages.columns.slice(1).forEach((column, i) => {
    const before = stages.columns[i];
    assert.ok(boxes[column[0].id].x > boxes[before[0].id].x + boxes[before[0].id].w, `column ${i + 1} after column ${i}`);
  });
  const between = stages.columns.flat().filter((s) => boxes[s.id].x > boxes.v.x && boxes[s.id].x < boxes.output.x);
  assert.ok(between.length > 0);
  for (const s of between) assert.ok(lane > boxes[s.id].y + boxes[s.id].h, `the lane runs under ${s.id}`);
  assert.ok(lane < height);
  // each stage is wide enough for its words (a monospace character is 0.6 em, a CJK one 1 em)
  for (const s of stages.columns.flat()) assert.ok(boxes[s.id].w >= textWidth(s.text, 14), s.id);
  assert.equal(textWidth('ab', 10), 12);
  assert.equal(textWidth('掩码', 10), 20);
});
