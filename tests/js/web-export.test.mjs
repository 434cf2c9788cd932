// The exports. The numpy script is run with /usr/bin/python3 and what it
// prints is compared with tests/REFERENCE.md and with plain JS below,
// never with the engine. The masked state of tests/fixtures/exports (written
// by tests/make_export_fixtures.py with numpy) gives every text export
// exactly; its Markdown is rendered by pandoc and its SVGs parsed by Python's
// XML parser, independently of this code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { MATRIX_FORMATS, TextBlobs, toCsv, toJson, toLatex, toMarkdown, heatmapSvg, linesSvg } from '../../web/src/io/export.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { parseMatrixText } from '../../web/src/io/parse.js';
import { rowViews } from '../../web/src/engine/rows.js';
import { REFERENCE, loadVariantCases, runScript } from './fixtures.mjs'; // tests/REFERENCE.md's true values, numpy's cases

const partsOf = (id) => MATRIX_FORMATS.find((f) => f.id === id).parts;

const EXPORTS = new URL('../fixtures/exports/', import.meta.url);
const fixture = (name) => readFileSync(new URL(name, EXPORTS), 'utf8');
const STATE = JSON.parse(fixture('state.json'));
const DIMS = ['d1', 'd2', 'd3'];
const SQUARE = ['Scores', 'Scaled', 'Weights'];
// name → {data (numpy's numbers; null in JSON is a masked −∞), rowLabels, colLabels, corner}
const MATRICES = Object.fromEntries(['X', 'W_Q', 'W_K', 'W_V', 'Q', 'K', 'V', ...SQUARE, 'Output'].map((name) => {
  const data = JSON.parse(fixture(`${name}.json`)).map((row) => row.map((v) => (v === null ? -Infinity : v)));
  const square = SQUARE.includes(name);
  return [name, {
    data,
    rowLabels: name.startsWith('W_') ? DIMS.slice(0, data.length) : STATE.tokens,
    colLabels: square ? STATE.tokens : DIMS.slice(0, data[0].length),
    corner: square ? 'query \\ key' : '',
  }];
}));
const masked = STATE.x.map((_, i) => STATE.tokens.map((__, j) => (STATE.causal && j > i) || STATE.keyPadding[j]));
// As the full page holds results: rows that are views into one Float64Array (rows.js).
const typedRows = (data) => rowViews({ rows: data.length, cols: data[0].length, data: Float64Array.from(data.flat()) });

// The <text> contents of an SVG, parsed by Python's XML parser (which rejects a document that is not well-formed).
const svgTexts = (svg) => JSON.parse(execFileSync('/usr/bin/python3', ['-c', `import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
print(json.dumps(["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]))`], { input: Buffer.from(svg, 'utf8') }));

// Plain-JS attention with every option, independent of the engine and of the script.
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const pe = (m) => m.map((row, pos) => row.map((v, i) => v + (i % 2 === 0 ? Math.sin : Math.cos)(pos / 10000 ** ((i - (i % 2)) / row.length))));
function reference(state) {
  const x = state.positionalEncoding ? pe(state.x) : state.x;
  const c = state.context ? (state.positionalEncoding ? pe(state.context.x) : state.context.x) : x;
  const masked = x.map((_, i) => c.map((__, j) => (state.causal && j > i) || state.keyPadding[j]));
  const out = {};
  const outputs = [];
  state.heads.forEach((head, h) => {
    const Q = matmul(x, head.wq);
    const K = matmul(c, head.wk);
    const V = matmul(c, head.wv);
    const Scores = matmul(Q, transpose(K));
    const divisor = (state.scaleBySqrtDk ? Math.sqrt(head.wq[0].length) : 1) * state.temperature;
    const Scaled = Scores.map((row, i) => row.map((s, j) => (masked[i][j] ? -Infinity : s / divisor)));
    const Weights = Scaled.map((row, i) => {
      const keep = row.filter((_, j) => !masked[i][j]);
      if (keep.length === 0) return row.map(() => 0);
      const max = Math.max(...keep);
      const e = row.map((s, j) => (masked[i][j] ? 0 : Math.exp(s - max)));
      const total = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / total);
    });
    const Output = matmul(Weights, V);
    const prefix = state.heads.length > 1 || state.wo ? `head ${h + 1} ` : '';
    Object.assign(out, Object.fromEntries(Object.entries({ Q, K, V, Scores, Scaled, Weights, Output }).map(([k, v]) => [prefix + k, v])));
    outputs.push(Output);
  });
  if (state.heads.length > 1 || state.wo) {
    out.Concat = outputs[0].map((_, i) => outputs.flatMap((o) => o[i]));
    if (state.wo) out['Concat @ W_O'] = matmul(out.Concat, state.wo);
  }
  if (state.positionalEncoding) out['X + PE'] = x;
  return out;
}

function assertClose(actual, expected, name) {
  assert.equal(actual.length, expected.length, name);
  const scale = Math.max(1e-300, ...expected.flat().filter(Number.isFinite).map(Math.abs));
  actual.forEach((row, r) => row.forEach((v, c) => {
    const e = expected[r][c];
    if (e === -Infinity) assert.equal(v, -Infinity, `${name}[${r}][${c}]`);
    else assert.ok(Math.abs(v - e) <= 1e-12 * scale, `${name}[${r}][${c}] = ${v}, expected ${e}`);
  }));
}

test('the numpy script of the tutorial prints REFERENCE.md\'s numbers', () => {
  const printed = runScript(tutorialState());
  assert.deepEqual(Object.keys(printed), Object.keys(REFERENCE));
  for (const [name, expected] of Object.entries(REFERENCE)) assertClose(printed[name], expected, name);
});

test('the numpy script recomputes every option: heads, W_O, causal, padding, temperature, no √d_k, PE, cross-attention', () => {
  const cross = {
    ...tutorialState(),
    heads: [
      { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7], [1, -1]], wv: [[0.8, 0.1], [0.3, 0.9], [1, 1]] },
      { wq: [[-1.5, 2], [0.25, 3]], wk: [[1, 0], [0, 1], [2, 2]], wv: [[1, -2], [0.5, 0.5], [0, 3]] },
    ],
    context: { tokens: ['I', 'love', 'you', '"quoted"'], x: [[1, 0, 2], [0.5, 0.5, 0], [0, 1, -1], [3, 3, 3]] },
    wo: [[1, 0], [0, 1], [0.5, 0.5], [0.3, -3]],
    causal: true,
    keyPadding: [false, true, false, false],
    temperature: 0.7,
    positionalEncoding: true,
  };
  const states = [
    cross,
    { ...cross, wo: undefined, scaleBySqrtDk: false, temperature: 3, keyPadding: [true, false, false, false] },
    { ...tutorialState(), causal: true, keyPadding: [true, false, false] }, // row 0 sees nothing
  ];
  for (const state of states) {
    if (state.wo === undefined) delete state.wo;
    const printed = runScript(state);
    const expected = reference(state);
    assert.deepEqual(Object.keys(printed).sort(), Object.keys(expected).sort());
    for (const [name, m] of Object.entries(expected)) assertClose(printed[name], m, name);
  }
  assert.deepEqual(runScript(states[2]).Weights[0], [0, 0, 0]);
});
test('the numpy script with ALiBi prints numpy\'s bias, scaled scores and weights (make_fixtures.py\'s ALiBi cases)', () => {
  const cases = loadVariantCases().filter((c) => c.input.alibi);
  assert.ok(cases.length >= 5);
  for (const c of cases) {
    const names = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const tokens = names(c.x.length, 't');
    const keys = c.context ? names(c.context.length, 'k') : tokens;
    const state = {
      ...tutorialState(), ...c.input, tokens, keyPadding: c.input.keyPadding ?? keys.map(() => false),
      ...(c.context ? { context: { tokens: keys, x: c.context } } : {}),
    };
    const printed = runScript(state);
    const multi = state.heads.length > 1 || state.wo;
    state.heads.forEach((_, h) => {
      const prefix = multi ? `head ${h + 1} ` : '';
      for (const [name, key] of [['Bias', 'bias'], ['Scaled', 'scaled'], ['Weights', 'weights'], ['Output', 'output']]) {
        assertClose(printed[prefix + name], c[`h${h}.${key}`], `${c.name} ${prefix}${name}`);
      }
    });
  }
});

test('CSV and JSON keep every digit and read back; -inf and null for masked scores', () => {
  const data = [[0.1 + 0.2, -1e-20], [-Infinity, 12345678.9]];
  assert.equal(toCsv(data), '0.30000000000000004,-1e-20\n-inf,12345678.9\n');
  assert.equal(toJson(data), '[[0.30000000000000004,-1e-20],[null,12345678.9]]\n');
  assert.deepEqual(parseMatrixText(toCsv(REFERENCE.Weights)).rows, REFERENCE.Weights);
  assert.deepEqual(parseMatrixText(toJson(REFERENCE.Output)).rows, REFERENCE.Output);
});

test('CSV and JSON built in slices of rows (large exports) join to the same text, whatever the slices', () => {
  const data = typedRows([[0.5, -Infinity], [1 / 3, 0], [-2, 1e-300], [7, 0.1 + 0.2], [-0.25, 4]]);
  const csv = '0.5,-inf\n0.3333333333333333,0\n-2,1e-300\n7,0.30000000000000004\n-0.25,4\n';
  const json = '[[0.5,null],[0.3333333333333333,0],[-2,1e-300],[7,0.30000000000000004],[-0.25,4]]\n';
  for (const step of [1, 2, 3, 5]) {
    const sliced = (rows) => Array.from({ length: Math.ceil(data.length / step) }, (_, i) => rows(data, i * step, Math.min(data.length, (i + 1) * step))).join('');
    assert.equal(sliced(partsOf('csv')), csv, `csv, ${step} rows a slice`);
    assert.equal(sliced(partsOf('json')), json, `json, ${step} rows a slice`);
  }
  assert.equal(toCsv(data), csv);
  assert.equal(toJson(data), json);
});

test('LaTeX bmatrix and Markdown table use the decimals on screen', () => {
  assert.equal(toLatex([[0.5, 0.25], [-Infinity, 1]], 3), '\\begin{bmatrix}\n  0.500 & 0.250 \\\\\n  -\\infty & 1.000\n\\end{bmatrix}\n');
  assert.equal(toMarkdown([[0.33569311, 1]], { rowLabels: ['我|'], colLabels: ['你', '好'], corner: 'q \\ k' }, 2),
    '| q \\\\ k | 你 | 好 |\n| --- | ---: | ---: |\n| 我\\| | 0.34 | 1.00 |\n');
});

test('the full page\'s matrix exports were wrong: Float64Array rows give JSON arrays with null, CSV -inf, LaTeX -\\infty and the fixed decimals (issue 13, item 8)', () => {
  const rows = typedRows([[0.5, -Infinity, 1 / 3], [0, 2, -0.25]]);
  assert.equal(toCsv(rows), '0.5,-inf,0.3333333333333333\n0,2,-0.25\n');
  assert.equal(toJson(rows), '[[0.5,null,0.3333333333333333],[0,2,-0.25]]\n');
  assert.equal(toLatex(rows, 2), '\\begin{bmatrix}\n  0.50 & -\\infty & 0.33 \\\\\n  0.00 & 2.00 & -0.25\n\\end{bmatrix}\n');
  assert.equal(toMarkdown(rows, { rowLabels: ['a', 'b'], colLabels: ['x', 'y', 'z'] }, 2),
    '|  | x | y | z |\n| --- | ---: | ---: | ---: |\n| a | 0.50 | −∞ | 0.33 |\n| b | 0.00 | 2.00 | -0.25 |\n');
});

test('every text export of a masked state (causal and key padding) is numpy\'s file exactly, from arrays and from Float64Array rows', () => {
  for (const [name, spec] of Object.entries(MATRICES)) {
    for (const data of [spec.data, typedRows(spec.data)]) {
      const kind = ArrayBuffer.isView(data[0]) ? 'typed rows' : 'arrays';
      assert.equal(toCsv(data), fixture(`${name}.csv`), `${name}.csv from ${kind}`);
      assert.equal(toJson(data), fixture(`${name}.json`), `${name}.json from ${kind}`);
      assert.equal(toLatex(data, STATE.view.decimals), fixture(`${name}.tex`), `${name}.tex from ${kind}`);
      assert.equal(toMarkdown(data, spec, STATE.view.decimals), fixture(`${name}.md`), `${name}.md from ${kind}`);
    }
  }
});

test('Markdown export injection: a token\'s HTML, newline or Markdown syntax is only ever text in the table (issue 13, item 9)', () => {
  const { data } = MATRICES.Weights;
  const markdown = toMarkdown(data, MATRICES.Weights, 3);
  assert.equal(markdown.split('\n').length, data.length + 3, 'a header, a rule and a line per row (and the final newline)');
  const html = execFileSync('pandoc', ['-f', 'gfm', '-t', 'html', '--wrap=none'], { input: markdown, encoding: 'utf8' });
  const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]));
  assert.deepEqual([...tags].sort(), ['table', 'tbody', 'td', 'th', 'thead', 'tr'], 'nothing but the table: no img, script, a, em, code or heading');
  const unescape = (text) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const cells = [...html.matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((m) => unescape(m[1]));
  const shown = (t) => t.replace('\n', '\u240a').replace('\u0001', '\u2401').replace('\u007f', '\u2421').replace('\t', '\u2409').replace('\ud800', '\ufffd');
  assert.deepEqual(cells.slice(0, data.length + 1), ['query \\ key', ...STATE.tokens.map(shown)]);
  assert.deepEqual(cells.filter((_, i) => i % (data.length + 1) === 0).slice(1), STATE.tokens.map(shown));
});

test('SVG exports were invalid XML for tokens with control characters or a lone surrogate; now well-formed, every token inert text (issue 13, item 10)', () => {
  for (const name of [...SQUARE, 'Output']) {
    const spec = MATRICES[name];
    const expected = JSON.parse(fixture(`${name}.svg.json`));
    for (const data of [spec.data, typedRows(spec.data)]) {
      const svg = heatmapSvg({
        title: name, ...spec, data, kind: name === 'Weights' ? 'weights' : 'signed', masked: SQUARE.includes(name) ? masked : null, decimals: 3,
      });
      assert.deepEqual(svgTexts(svg), expected.texts, name);
      assert.doesNotMatch(svg, /<(?!\/?(svg|rect|text)\b)/, `${name}: only svg, rect and text elements`);
      const grey = [...svg.matchAll(/<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="rgb\(217, 220, 225\)"/g)];
      assert.equal(grey.length, expected.masked.length, `${name}: masked cells drawn grey`);
    }
  }
  const lines = linesSvg({ title: 'Lines view', tokens: STATE.tokens, keyTokens: STATE.tokens, weights: typedRows(MATRICES.Weights.data) });
  const expected = JSON.parse(fixture('lines.svg.json'));
  assert.deepEqual(svgTexts(lines), expected.texts);
  assert.equal((lines.match(/<line /g) || []).length, expected.lines);
});

test('the numpy script of the masked state with hostile tokens runs and prints numpy\'s numbers', () => {
  const printed = runScript(STATE);
  for (const name of ['Q', 'K', 'V', ...SQUARE, 'Output']) assertClose(printed[name], MATRICES[name].data, name);
});

test('SVG heatmap and lines view: well-formed, labelled, escaped', () => {
  const svg = heatmapSvg({
    title: 'Weights <&>', data: REFERENCE.Weights, rowLabels: ['我', '爱', '<你>'], colLabels: ['我', '爱', '你'], kind: 'weights', decimals: 4,
  });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
  assert.match(svg, /Weights &lt;&amp;&gt;/);
  assert.match(svg, /&lt;你&gt;/);
  assert.equal((svg.match(/<rect /g) || []).length, 1 + 9);
  assert.ok(svg.includes('>0.3357<'));
  const lines = linesSvg({ title: 'Lines', tokens: ['我', '爱', '你'], keyTokens: ['我', '爱', '你'], weights: REFERENCE.Weights });
  assert.equal((lines.match(/<line /g) || []).length, 9);
  assert.ok(lines.includes('stroke-opacity="0.3357"'));
});

test('TextBlobs: pieces of text as Blobs of their UTF-8, each at most the size, no character split', async () => {
  // 1-, 2-, 3- and 4-byte characters (a, é, 我, 😀), and pieces longer than a Blob
  const pieces = ['a,b\n', 'é我😀', '😀😀😀', '', 'x'.repeat(23), '我我我我我\n'];
  const blobs = new TextBlobs(8);
  for (const piece of pieces) blobs.add(piece);
  const made = blobs.done();
  const bytes = await Promise.all(made.map(async (blob) => new Uint8Array(await blob.arrayBuffer())));
  assert.ok(bytes.every((b) => b.length > 0 && b.length <= 8), `sizes ${bytes.map((b) => b.length)}`);
  // each Blob is whole characters (a strict decoder reads it), and together they are the text
  const strict = new TextDecoder('utf-8', { fatal: true });
  const texts = bytes.map((b) => strict.decode(b));
  assert.equal(texts.join(''), pieces.join(''));
  assert.equal(bytes.reduce((sum, b) => sum + b.length, 0), Buffer.byteLength(pieces.join('')));
  assert.deepEqual(new TextBlobs(1024).done(), [], 'no text, no Blob');
  assert.throws(() => new TextBlobs(3), RangeError);
});
