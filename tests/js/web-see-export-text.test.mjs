// The exports' text and layout as a reader gets them (issue 33 item 1): tokens that only ever
// show as text (control characters as their visible pictures, broken UTF-16 replaced, Markdown
// and XML syntax escaped), the Markdown and LaTeX tables word for word, the SVGs' grid (cells
// side by side in order, labels clear of them and centred on them, the picture holding it all,
// text readable on each colour), and large exports in slices and Blobs. Numbers from numpy
// (tests/fixtures/see_cases.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { heatmapSvg, linesSvg, toMarkdown, toLatex, MATRIX_FORMATS, TextBlobs, toCsv, toJson } from '../../web/src/io/export.js';

// the writers of the formats written in slices (rows [from, to)), as the export table declares them
const TEXT_PARTS = Object.fromEntries(MATRIX_FORMATS.filter((f) => f.parts).map((f) => [f.id, f.parts]));

const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
const attrs = (text) => Object.fromEntries([...text.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const elements = (svg, tag) => [...svg.matchAll(new RegExp(`<${tag} ([^>]*?)/?>(?:([^<]*)</${tag}>)?`, 'g'))].map((m) => ({ ...attrs(m[1]), text: m[2] }));

// WCAG contrast of two colours (independent of color.js)
const luminance = (rgb) => {
  const [r, g, b] = rgb.map((c) => { const s = c / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => { const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); };
const rgbOf = (css) => (css.startsWith('#') ? [1, 3, 5].map((i) => parseInt(css.slice(i, i + 2), 16)) : css.match(/\d+/g).map(Number));

test('a token\'s control characters show as their pictures, broken UTF-16 and noncharacters as �, in Markdown and in SVG alike', () => {
  const token = 'a\u0000b\u001fc\nd\u007fe\ud800f\udfffg\ufffeh\uffffi 😀';
  const shown = 'a\u2400b\u241fc\u240ad\u2421e\ufffdf\ufffdg\ufffdh\ufffdi 😀';
  const md = toMarkdown([[1]], { rowLabels: [token], colLabels: ['k'] }, 2);
  assert.equal(md.split('\n')[2], `| ${shown} | 1.00 |`);
  const svg = heatmapSvg({ title: token, data: [[0.5]], rowLabels: [token], colLabels: [token], kind: 'weights', decimals: 2 });
  const texts = elements(svg, 'text').map((t) => t.text);
  assert.deepEqual(texts.filter((t) => t === shown).length, 3, 'the title, the row label and the column label');
  const lines = linesSvg({ title: 't', tokens: [token], keyTokens: ['k'], weights: [[1]] });
  assert.ok(elements(lines, 'text').some((t) => t.text === shown), 'the lines view\'s label');
});

test('Markdown: a table of the decimals on screen, first column left-aligned, numbers right-aligned, every ASCII punctuation of a token escaped', () => {
  const md = toMarkdown([[0.5, -0.25], [1, 0]], { rowLabels: ['我', 'you'], colLabels: ['k1', 'k2'], corner: 'q \\ k' }, 3);
  assert.equal(md, '| q \\\\ k | k1 | k2 |\n| --- | ---: | ---: |\n| 我 | 0.500 | -0.250 |\n| you | 1.000 | 0.000 |\n');
  const punct = '!"#$%\'()*+,-./:;=?@[\\]^_`{|}~';
  const escaped = [...punct].map((ch) => `\\${ch}`).join('');
  const row = toMarkdown([[1]], { rowLabels: [`${punct}<&>`], colLabels: ['c'] }, 0).split('\n')[2];
  assert.equal(row, `| ${escaped}&lt;&amp;&gt; | 1 |`);
  assert.equal(toMarkdown([[1]], { rowLabels: ['r'], colLabels: ['c'] }, 0).split('\n')[0], '|  | c |', 'no corner: an empty cell');
});

test('LaTeX: a bmatrix of the decimals on screen, −∞ as -\\infty', () => {
  assert.equal(toLatex([[0.5, -Infinity], [1, -0.125]], 2), '\\begin{bmatrix}\n  0.50 & -\\infty \\\\\n  1.00 & -0.13\n\\end{bmatrix}\n');
});

test('CSV and JSON in slices of rows join to the whole file, whatever the slices', () => {
  const data = CASES.masked.result.heads[0].weights;
  for (const [kind, whole] of [['csv', toCsv(data)], ['json', toJson(data)]]) {
    for (const cuts of [[0, 5], [0, 1, 5], [0, 2, 3, 5], [0, 1, 2, 3, 4, 5]]) {
      const text = cuts.slice(1).map((to, i) => TEXT_PARTS[kind](data, cuts[i], to)).join('');
      assert.equal(text, whole, `${kind} in slices ${cuts}`);
    }
  }
  assert.equal(TEXT_PARTS.json([[1, 2], [3, 4]], 1, 2), ',[3,4]]\n');
  assert.equal(TEXT_PARTS.json([[1, 2], [3, 4]], 0, 1), '[[1,2]');
});

test('a heatmap SVG: cells side by side in row order, labels centred on them and clear of them, all inside the picture, text readable on each colour', () => {
  for (const [name, tokens] of [['cross', null], ['masked', null], ['cjk', ['注意力机制', '是', '深度学习']], ['latin', ['attention', 'is', 'deep']]]) {
    const k = name === 'cjk' || name === 'latin' ? CASES.unscaled : CASES[name];
    const data = k.result.heads[0].weights;
    const rowLabels = tokens || k.tokens;
    const colLabels = (k.keyTokens || k.tokens).map((t, i) => (tokens ? tokens[i] : t));
    const masked = k.result.masked;
    const svg = heatmapSvg({ title: 'Weights & more', data, rowLabels, colLabels, kind: 'weights', masked, decimals: 4 });
    const root = attrs(svg.slice(0, svg.indexOf('>')));
    const [W, H] = [Number(root.width), Number(root.height)];
    assert.equal(root.viewBox, `0 0 ${W} ${H}`);
    const rects = elements(svg, 'rect').slice(1).map((r) => ({ ...r, x: Number(r.x), y: Number(r.y), width: Number(r.width), height: Number(r.height) }));
    assert.equal(rects.length, data.length * data[0].length);
    const [w, h] = [rects[0].width, rects[0].height];
    assert.ok(w >= 44 && h >= 20, 'cells large enough for their text');
    const cols = data[0].length;
    rects.forEach((r, i) => {
      assert.equal(r.x, rects[0].x + (i % cols) * w, `${name}: cell ${i} in its column`);
      assert.equal(r.y, rects[0].y + Math.floor(i / cols) * h, `${name}: cell ${i} in its row`);
      assert.equal(r.width, w);
      assert.equal(r.height, h);
    });
    const right = rects[0].x + cols * w;
    const bottom = rects[0].y + data.length * h;
    assert.ok(right < W && W - right <= 16 && bottom < H && H - bottom <= 16, `${name}: the grid fills the picture, a small margin right and below`);
    const texts = elements(svg, 'text');
    const [title] = texts;
    assert.equal(title.text, 'Weights &amp; more');
    assert.ok(Number(title.y) < rects[0].y, 'the title above the grid');
    const columnLabels = texts.slice(1, 1 + cols);
    columnLabels.forEach((t, c) => {
      assert.equal(Number(t.x), rects[0].x + (c + 0.5) * w, `${name}: column label ${c} centred over its column`);
      assert.ok(Number(t.y) < rects[0].y && Number(t.y) > Number(title.y), `${name}: column labels between the title and the grid`);
      assert.equal(t['text-anchor'], 'middle');
    });
    const rowTexts = texts.filter((t) => t['text-anchor'] === 'end');
    assert.deepEqual(rowTexts.map((t) => t.text), rowLabels);
    rowTexts.forEach((t, r) => {
      const middle = rects[0].y + (r + 0.5) * h;
      assert.ok(Number(t.y) > middle && Number(t.y) - middle < 6, `${name}: row label ${r} on its row's middle (its baseline a little below)`);
      // a label ends left of the grid, with room for its text (a CJK character ~1 em, Latin ~0.6 em at 13 px)
      const room = [...t.text].reduce((s, ch) => s + (ch.charCodeAt(0) > 0x2e80 ? 13 : 7.8), 0);
      assert.ok(Number(t.x) < rects[0].x && Number(t.x) - room >= 0, `${name}: row label ${t.text} fits left of the grid`);
    });
    // each cell's number, centred in it, readable on its colour (masked: a 0 on grey)
    const cellTexts = texts.filter((t) => t['text-anchor'] === 'middle' && t['font-size'] === '12');
    assert.equal(cellTexts.length, rects.length);
    cellTexts.forEach((t, i) => {
      const r = Math.floor(i / cols);
      const c = i % cols;
      assert.equal(Number(t.x), rects[i].x + w / 2);
      assert.ok(Number(t.y) > rects[i].y + h / 2 && Number(t.y) < rects[i].y + h, `${name}: cell ${i}'s number in its cell`);
      if (masked[r][c]) {
        assert.equal(t.text, '0', `${name}: a masked weight reads 0`);
        assert.equal(rects[i].fill, 'rgb(217, 220, 225)');
      } else {
        assert.equal(Number(t.text), Number(data[r][c].toFixed(4)), `${name}: cell ${i}'s number`);
      }
      assert.ok(contrast(rgbOf(t.fill), rgbOf(rects[i].fill)) >= 4.5, `${name}: cell ${i}'s text ${t.fill} on ${rects[i].fill} is readable`);
    });
  }
});

test('a heatmap SVG\'s cells widen for more decimals; a short label still leaves the grid a margin', () => {
  const cellWidth = (decimals) => Number(elements(heatmapSvg({ title: 't', data: [[0.5]], rowLabels: ['a'], colLabels: ['b'], kind: 'signed', decimals }), 'rect')[1].width);
  assert.equal(cellWidth(0), 44, 'the narrowest cell');
  assert.ok(cellWidth(8) > cellWidth(4) && cellWidth(4) > cellWidth(2) && cellWidth(2) > cellWidth(0));
  // room for −1.00…0 at 12 px (~0.6 em a character) and 6 px either side, not much more
  for (const d of [2, 4, 8]) assert.ok(cellWidth(d) >= (d + 3) * 7.2 + 12 && cellWidth(d) < (d + 3) * 7.2 + 14, `${d} decimals: ${cellWidth(d)} px`);
  const svg = heatmapSvg({ title: 't', data: [[0.5]], rowLabels: ['a'], colLabels: ['b'], kind: 'signed', decimals: 2 });
  assert.ok(Number(elements(svg, 'rect')[1].x) >= 24, 'room for a label even when it is short');
});

test('the lines view SVG: queries left, keys right, every label inside the picture and clear of the lines', () => {
  for (const [tokens, keyTokens] of [[['我', '爱', '你'], ['I', 'love', 'you', 'so', 'much']], [['a', 'b', 'c', 'd', 'e', 'f'], ['注意力机制', '深度']]]) {
    const weights = tokens.map((_, i) => keyTokens.map((__, j) => (i + j) % 2));
    const svg = linesSvg({ title: 'L<>', tokens, keyTokens, weights });
    const root = attrs(svg.slice(0, svg.indexOf('>')));
    const [W, H] = [Number(root.width), Number(root.height)];
    const lines = elements(svg, 'line');
    const texts = elements(svg, 'text');
    assert.equal(texts[0].text, 'L&lt;&gt;');
    const left = Number(lines[0].x1);
    const right = Number(lines[0].x2);
    assert.ok(lines.every((l) => Number(l.x1) === left && Number(l.x2) === right) && right - left >= 150, 'all lines span the same gap');
    const room = (text) => [...text].reduce((s, ch) => s + (ch.charCodeAt(0) > 0x2e80 ? 13 : 7.8), 0);
    const queryLabels = texts.filter((t) => t['text-anchor'] === 'end');
    const keyLabels = texts.slice(1).filter((t) => t['text-anchor'] !== 'end');
    assert.deepEqual(queryLabels.map((t) => t.text), tokens);
    assert.deepEqual(keyLabels.map((t) => t.text), keyTokens);
    for (const t of queryLabels) assert.ok(Number(t.x) < left && Number(t.x) - room(t.text) >= 0, `query ${t.text} fits left of the lines`);
    for (const t of keyLabels) assert.ok(Number(t.x) > right && Number(t.x) + room(t.text) <= W, `key ${t.text} fits right of the lines`);
    const rows = Math.max(tokens.length, keyTokens.length);
    for (const t of [...queryLabels, ...keyLabels]) assert.ok(Number(t.y) > Number(texts[0].y) && Number(t.y) < H, `${t.text} below the title, inside the picture`);
    const lastY = Math.max(...[...queryLabels, ...keyLabels].map((t) => Number(t.y)));
    assert.ok(H - lastY <= 28 && H >= 40 + rows * 20, 'the picture ends soon after the last label');
    // each row's spacing is the same on both sides, so a line of weight 1 from query i to key i is level
    const step = Number(queryLabels[1].y) - Number(queryLabels[0].y);
    assert.ok(step >= 20);
    keyLabels.forEach((t, j) => assert.equal(Number(t.y), Number(queryLabels[0].y) + j * step));
  }
});

test('TextBlobs: a long text as Blobs of at most the size in UTF-8, no character split, nothing lost or added', async () => {
  assert.throws(() => new TextBlobs(3), /TextBlobs: 3 bytes cannot hold every character/);
  assert.throws(() => new TextBlobs(NaN), RangeError);
  assert.deepEqual(new TextBlobs(4).done(), [], 'no text, no Blob');
  const pieces = ['ab', '我爱你', '😀x', '', 'tail'];
  for (const size of [4, 5, 7, 64]) {
    const blobs = new TextBlobs(size);
    for (const p of pieces) blobs.add(p);
    const made = blobs.done();
    const parts = await Promise.all(made.map(async (b) => new Uint8Array(await b.arrayBuffer())));
    assert.ok(parts.every((p) => p.length > 0 && p.length <= size), `size ${size}: each Blob ${parts.map((p) => p.length)} bytes, at most ${size}`);
    const texts = parts.map((p) => new TextDecoder('utf-8', { fatal: true }).decode(p)); // throws on a split character
    assert.equal(texts.join(''), pieces.join(''), `size ${size}`);
    if (size === 64) assert.equal(made.length, 1, 'all in one Blob when it fits');
    if (size === 4) assert.ok(made.length >= 6);
  }
  // a Blob is a copy: later pieces do not change it
  const blobs = new TextBlobs(4);
  blobs.add('abcd');
  blobs.add('efgh');
  const [first, second] = blobs.done();
  assert.equal(await first.text(), 'abcd');
  assert.equal(await second.text(), 'efgh');
});

test('the SVGs: quotes in a token are text, a masked score reads −∞, fonts with Chinese glyphs asked for; the CSV\'s −∞ is -inf', () => {
  const svg = heatmapSvg({ title: 'it\'s "x"', data: [[-Infinity, 0.5]], rowLabels: ['r'], colLabels: ['a', 'b'], kind: 'signed', masked: [[true, false]], decimals: 2 });
  assert.ok(svg.includes('>it&#39;s &quot;x&quot;</text>'), 'the title\'s quotes');
  const cells = elements(svg, 'text').filter((t) => t['font-size'] === '12').map((t) => t.text);
  assert.deepEqual(cells, ['−∞', '0.50'], 'a masked score of a signed matrix is −∞, not 0');
  assert.match(attrs(svg.slice(0, svg.indexOf('>')))['font-family'], /PingFang SC.*Noto Sans CJK SC/);
  assert.equal(toCsv([[-Infinity, 1]]), '-inf,1\n');
});

test('the lines SVG: the longest query token has room, and the last label its descenders', () => {
  const tokens = ['a', 'a much longer token', 'b'];
  const svg = linesSvg({ title: 't', tokens, keyTokens: ['k'], weights: tokens.map(() => [1]) });
  const H = Number(attrs(svg.slice(0, svg.indexOf('>'))).height);
  const labels = elements(svg, 'text').filter((t) => t['text-anchor'] === 'end');
  for (const t of labels) assert.ok(Number(t.x) - [...t.text].length * 7.8 >= 0, `${t.text} fits`);
  assert.ok(H - Math.max(...labels.map((t) => Number(t.y))) >= 6, 'room under the last baseline');
});
