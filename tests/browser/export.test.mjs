// Exports must be exact and inert (issue 13): the real export buttons of the
// full page and of the <attention-visualizer> element are clicked on a masked
// state (causal and key padding, one query that sees no key, tokens that are
// markup, Markdown, LaTeX, formulas, control characters and a lone surrogate),
// and every file saved is compared with tests/fixtures/exports, which numpy
// computed (tests/make_export_fixtures.py), never with the engine. SVGs are
// parsed by Chromium's XML parser; PNGs are decoded and their pixels read. At
// n = 2048 the heatmap and text exports are bounded and say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { embedCode } from '../../web/src/element/embed-code.js';
import { viridis } from './colors.mjs';
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';
import { trackDownloads, downloaded } from './downloads.mjs';
import { attention } from './reference.mjs';

const DIST = path.resolve('dist');
const EXPORTS = new URL('../fixtures/exports/', import.meta.url);
const fixture = (name) => readFileSync(new URL(name, EXPORTS), 'utf8');
const STATE = JSON.parse(fixture('state.json'));
// inputs (by token and by dimension), a result by key token, the three masked squares, the output
const MATRICES = ['X', 'W_Q', 'K', 'Scores', 'Scaled', 'Weights', 'Output'];
const HEATMAPS = ['Scores', 'Scaled', 'Weights', 'Output'];
const MASKED_GREY = [217, 220, 225];

const local = browserAndServer(DIST);
const { at } = local;

async function open(url, route) {
  const context = await local.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await trackDownloads(context);
  const page = await context.newPage();
  page.setDefaultTimeout(60000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  page.on('dialog', (dialog) => { problems.push(`dialog: ${dialog.message()}`); dialog.dismiss(); });
  if (route) await page.route(url, route);
  await page.goto(url);
  return { context, page, problems };
}

// The full page with the state imported as a file (a link's hash would turn the lone surrogate into U+FFFD).
async function fullPage() {
  const opened = await open(at('index.html?example=tutorial'));
  const { page } = opened;
  await page.waitForSelector('#share-tools input[type="file"]', { state: 'attached' });
  await page.locator('#share-tools input[type="file"]').setInputFiles({ name: 'state.json', mimeType: 'application/json', buffer: Buffer.from(fixture('state.json')) });
  await page.waitForFunction(() => /Imported the state state\.json/.test(document.querySelector('#share-tools .av-message')?.textContent));
  return { ...opened, tools: page.locator('#share-tools') };
}

// A host page with the element as "copy embed code" writes it, the tools panel open.
async function elementPage() {
  const url = at('export-host.html');
  const markup = embedCode('element', STATE, [['editable', '']], at(''), url);
  const opened = await open(url, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>\n<html lang="en"><body>\n${markup}</body></html>\n` }));
  const { page } = opened;
  await page.waitForFunction(() => document.querySelector('attention-visualizer')?.shadowRoot.querySelector('details.av-tools'));
  await page.evaluate(() => { document.querySelector('attention-visualizer').shadowRoot.querySelector('details.av-tools').open = true; });
  return { ...opened, tools: page.locator('attention-visualizer .av-tools') };
}

const click = (tools, label) => tools.getByRole('button', { name: label, exact: true }).click();

async function choose(tools, matrix, format) {
  await tools.locator('select[aria-label="Matrix"]').selectOption(matrix);
  await tools.locator('select[aria-label="Format"]').selectOption(format);
}

async function exportMatrix(page, tools, matrix, format) {
  await choose(tools, matrix, format);
  return downloaded(page, () => click(tools, 'Download'));
}

const message = (tools) => tools.locator('.av-message').textContent();

// Numbers to 1e-12 of the matrix's largest magnitude (the engine and numpy sum in
// other orders); masked cells (-inf, null) and everything around the numbers exactly.
function assertNumbersClose(actual, expected, label) {
  const finite = expected.flat().filter((v) => typeof v === 'number' && Number.isFinite(v));
  const scale = finite.reduce((most, v) => Math.max(most, Math.abs(v)), 1);
  assert.equal(actual.length, expected.length, `${label}: rows`);
  actual.forEach((row, r) => {
    assert.ok(Array.isArray(row), `${label}: row ${r} is ${JSON.stringify(row).slice(0, 40)}, not an array`);
    assert.equal(row.length, expected[r].length, `${label}: row ${r} length`);
    row.forEach((v, c) => {
      const e = expected[r][c];
      if (typeof e !== 'number' || !Number.isFinite(e)) assert.equal(v, e, `${label}[${r}][${c}]`);
      else assert.ok(typeof v === 'number' && Math.abs(v - e) <= 1e-12 * scale, `${label}[${r}][${c}] = ${v}, expected ${e}`);
    });
  });
}

// The clipboard's text once it is not empty. (Not waitForFunction: it takes the promise an
// async function returns for true at once, and waits for nothing.)
const clipboardText = (page) => page.evaluate(async () => {
  for (;;) {
    const text = await navigator.clipboard.readText();
    if (text !== '') return text;
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
});

const csvCells = (text) => {
  assert.ok(text.endsWith('\n'), 'CSV ends with a newline');
  return text.slice(0, -1).split('\n').map((line) => line.split(',').map((cell) => (cell === '-inf' ? -Infinity : /^-?\d/.test(cell) ? Number(cell) : cell)));
};

// In the browser: the SVG parsed as XML; its element names, <text> contents and masked rects.
function parseSvg(page, svg) {
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const all = [...doc.getElementsByTagName('*')];
    return {
      error: doc.getElementsByTagName('parsererror').length > 0 ? doc.documentElement.textContent : null,
      names: [...new Set(all.map((node) => node.localName))].sort(),
      attributes: [...new Set(all.flatMap((node) => [...node.attributes].map((a) => a.name)))].sort(),
      texts: [...doc.getElementsByTagName('text')].map((node) => node.textContent),
      width: Number(doc.documentElement.getAttribute('width')),
      height: Number(doc.documentElement.getAttribute('height')),
      cells: [...doc.getElementsByTagName('rect')].slice(1).map((rect) => ({
        x: Number(rect.getAttribute('x')), y: Number(rect.getAttribute('y')), fill: rect.getAttribute('fill'),
      })),
    };
  }, svg);
}

// In the browser: a PNG decoded; its size and the RGB of the given pixels.
function readPng(page, bytes, points) {
  return page.evaluate(async ([data, at]) => {
    const bitmap = await createImageBitmap(new Blob([new Uint8Array(data)], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    context.drawImage(bitmap, 0, 0);
    const pixel = ([x, y]) => [...context.getImageData(x, y, 1, 1).data.slice(0, 3)];
    return { width: bitmap.width, height: bitmap.height, pixels: at.map(pixel) };
  }, [[...bytes], points]);
}

const rgb = (fill) => /^rgb\((\d+), (\d+), (\d+)\)$/.exec(fill).slice(1).map(Number);

async function checkEveryExport(label, { page, tools, problems }) {
  const decimals = STATE.view.decimals;
  for (const matrix of MATRICES) {
    const csv = await exportMatrix(page, tools, matrix, 'csv');
    assert.equal(csv.name, `${matrix}.csv`);
    assertNumbersClose(csvCells(csv.bytes.toString()), csvCells(fixture(`${matrix}.csv`)), `${label} ${matrix}.csv`);
    const json = await exportMatrix(page, tools, matrix, 'json');
    assert.equal(json.name, `${matrix}.json`);
    assertNumbersClose(JSON.parse(json.bytes.toString()), JSON.parse(fixture(`${matrix}.json`)), `${label} ${matrix}.json`);
    const latex = await exportMatrix(page, tools, matrix, 'latex');
    assert.equal(latex.name, `${matrix}.tex`);
    assert.equal(latex.bytes.toString(), fixture(`${matrix}.tex`), `${label} ${matrix}.tex (${decimals} decimals)`);
    const markdown = await exportMatrix(page, tools, matrix, 'markdown');
    assert.equal(markdown.name, `${matrix}.md`);
    assert.equal(markdown.bytes.toString(), fixture(`${matrix}.md`), `${label} ${matrix}.md`);
  }

  for (const matrix of HEATMAPS) {
    const expected = JSON.parse(fixture(`${matrix}.svg.json`));
    const svg = await exportMatrix(page, tools, matrix, 'svg');
    assert.equal(svg.name, `${matrix}.svg`);
    const parsed = await parseSvg(page, svg.bytes.toString());
    assert.equal(parsed.error, null, `${label} ${matrix}.svg is well-formed XML`);
    assert.deepEqual(parsed.names, ['rect', 'svg', 'text'], `${label} ${matrix}.svg: nothing but rects and texts`);
    assert.ok(parsed.attributes.every((name) => !/^on|href/i.test(name)), `${label} ${matrix}.svg: no handler or link attributes`);
    assert.deepEqual(parsed.texts, expected.texts, `${label} ${matrix}.svg texts`);
    const { cells } = parsed; // row by row
    const width = cells.length / STATE.tokens.length;
    const greyAt = cells.map((cell, k) => (cell.fill === 'rgb(217, 220, 225)' ? k : -1)).filter((k) => k >= 0);
    assert.deepEqual(greyAt, expected.masked.map(([r, c]) => r * width + c), `${label} ${matrix}.svg masked cells grey`);

    if (matrix === 'Weights' || matrix === 'Scaled') {
      const png = await exportMatrix(page, tools, matrix, 'png');
      assert.equal(png.name, `${matrix}.png`);
      // a point inside each cell, clear of its text and white border, at the PNG's scale
      const scale = 2;
      const image = await readPng(page, png.bytes, cells.map((cell) => [(cell.x + 4) * scale, (cell.y + 4) * scale]));
      assert.deepEqual([image.width, image.height], [parsed.width * scale, parsed.height * scale], `${label} ${matrix}.png size`);
      image.pixels.forEach((pixel, k) => {
        const want = rgb(cells[k].fill);
        assert.ok(pixel.every((v, i) => Math.abs(v - want[i]) <= 2), `${label} ${matrix}.png cell ${k}: ${pixel}, expected ${want}`);
      });
      assert.ok(image.pixels.some((pixel) => pixel.every((v, i) => Math.abs(v - MASKED_GREY[i]) <= 2)), `${label} ${matrix}.png shows masked cells`);
    }
  }

  const lines = JSON.parse(fixture('lines.svg.json'));
  const linesSvg = await downloaded(page, () => click(tools, 'Lines view SVG'));
  assert.equal(linesSvg.name, 'attention-lines.svg');
  const parsedLines = await parseSvg(page, linesSvg.bytes.toString());
  assert.equal(parsedLines.error, null, `${label} lines SVG is well-formed XML`);
  assert.deepEqual(parsedLines.names, ['line', 'rect', 'svg', 'text']);
  assert.deepEqual(parsedLines.texts, lines.texts);
  assert.equal((linesSvg.bytes.toString().match(/<line /g) || []).length, lines.lines);
  const linesPng = await downloaded(page, () => click(tools, 'Lines view PNG'));
  assert.equal(linesPng.name, 'attention-lines.png');
  const linesImage = await readPng(page, linesPng.bytes, []);
  assert.deepEqual([linesImage.width, linesImage.height], [parsedLines.width * 2, parsedLines.height * 2]);
  assert.equal(await message(tools), 'Saved attention-lines.png.');

  const state = await downloaded(page, () => click(tools, 'Whole state as JSON'));
  assert.equal(state.name, 'attention-state.json');
  const saved = JSON.parse(state.bytes.toString());
  for (const key of ['tokens', 'x', 'heads', 'causal', 'keyPadding', 'scaleBySqrtDk', 'temperature', 'positionalEncoding']) {
    assert.deepEqual(saved[key], STATE[key], `${label} state ${key}`);
  }
  assert.equal(saved.tokens[4].charCodeAt(0), 0xd800, 'the lone surrogate kept as it is');

  const script = await downloaded(page, () => click(tools, 'Python/numpy script'));
  assert.equal(script.name, 'attention.py');
  const printed = execFileSync('/usr/bin/python3', ['-'], { input: script.bytes, encoding: 'utf8' }).trim().split('\n');
  const block = (name) => printed.slice(printed.indexOf(name) + 1, printed.indexOf(name) + 1 + STATE.tokens.length)
    .map((line) => line.split(' ').map((v) => (v === '-inf' ? null : Number(v))));
  for (const name of ['Scaled', 'Weights', 'Output']) assertNumbersClose(block(name), JSON.parse(fixture(`${name}.json`)), `${label} numpy script ${name}`);

  // A PNG the browser cannot draw: a message in the panel, no file.
  await page.evaluate(() => {
    window.decodeBefore = HTMLImageElement.prototype.decode;
    HTMLImageElement.prototype.decode = () => Promise.reject(new DOMException('cannot decode', 'EncodingError'));
  });
  let saves = 0;
  page.on('download', () => { saves++; });
  await choose(tools, 'Weights', 'png');
  await click(tools, 'Download');
  await tools.locator('.av-message.error').waitFor();
  assert.equal(await message(tools), 'Weights.png could not be made (the browser ran out of memory or could not draw it); nothing was saved.');
  assert.equal(saves, 0);
  await page.evaluate(() => { HTMLImageElement.prototype.decode = window.decodeBefore; });
  assert.deepEqual(problems, []);
}

test('full page: every export of a masked state with hostile tokens is numpy\'s file, well-formed and inert (issue 13, items 8-10)', async () => {
  const opened = await fullPage();
  try {
    await checkEveryExport('page', opened);
  } finally {
    await opened.context.close();
  }
});

test('element: every export of the same state is numpy\'s file, well-formed and inert (issue 13, items 8-10)', async () => {
  const opened = await elementPage();
  try {
    await checkEveryExport('element', opened);
  } finally {
    await opened.context.close();
  }
});

test('full page: Copy of a CSV and a JSON export puts numpy\'s numbers on the clipboard (written from the slices\' Blobs)', async () => {
  const opened = await fullPage();
  const { context, page, tools, problems } = opened;
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: at('') });
    for (const [format, cells] of [['csv', csvCells], ['json', JSON.parse]]) {
      await page.evaluate(() => navigator.clipboard.writeText(''));
      await choose(tools, 'Weights', format);
      await click(tools, 'Copy');
      // (the message of the round before still reads "Copied": wait for this round's text)
      const text = await clipboardText(page);
      assert.match(await tools.locator('.av-message').textContent(), /Copied/);
      assertNumbersClose(cells(text), cells(fixture(`Weights.${format}`)), `copied Weights.${format}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// A CSV is written over several tasks (tools.js textInSlices); edits meanwhile
// compute new results on the page's thread, which take the arrays of results no
// longer shown (updates.js ResultArrays), never those the export reads.
test('full page: a CSV copied while X is edited twice is of the Weights when Copy was pressed', async () => {
  const n = 512; // 262 144 cells: the CSV's slices are 65 536 cells at most (tools.js), and its arrays are reused (updates.js)
  const x = Array.from({ length: n }, (_, i) => Array.from({ length: 4 }, (_, j) => ((i * 7 + j * 3) % 11) / 5 - 1));
  const w = (k) => Array.from({ length: 4 }, (_, i) => Array.from({ length: 4 }, (_, j) => ((i * 5 + j * k) % 7) / 4 - 0.75));
  const weights = { wq: w(1), wk: w(2), wv: w(3) };
  const state = {
    version: 1, tokens: Array.from({ length: n }, (_, i) => `t${i}`), x, heads: [weights], view: { step: 'softmax', head: 0, lang: 'en', decimals: 3 },
  };
  const withX00 = (value) => [[value, ...x[0].slice(1)], ...x.slice(1)];
  const text = (m) => m.map((row) => row.join('\t')).join('\n');
  const opened = await open(at('index.html?example=tutorial'));
  const { context, page, problems } = opened;
  const tools = page.locator('#share-tools');
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: at('') });
    await page.waitForSelector('#share-tools input[type="file"]', { state: 'attached' });
    await tools.locator('input[type="file"]').setInputFiles({ name: 'edits.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(state)) });
    await page.waitForFunction(() => /Imported the state edits\.json/.test(document.querySelector('#share-tools .av-message')?.textContent));
    await openEditor(page);
    await page.evaluate(() => { document.querySelector('#editor-x details').open = true; });
    await page.waitForFunction(() => document.getElementById('x-text').value !== '');
    // X typed and applied, each edit computed at once; the first makes the imported result one no longer shown
    const edit = (texts, copyFirst) => page.evaluate(([all, copy]) => {
      if (copy) [...document.querySelectorAll('#share-tools button')].find((b) => b.textContent === 'Copy').click();
      const area = document.getElementById('x-text');
      for (const value of all) {
        area.value = value;
        area.closest('details').querySelector('button.apply').click();
      }
    }, [texts, copyFirst]);
    await edit([text(withX00(0.5))], false);
    await choose(tools, 'Weights', 'csv');
    const copied = async () => csvCells(await clipboardText(page));
    await page.evaluate(() => navigator.clipboard.writeText(''));
    // Copy writes its first slice, then both edits are applied before its second
    await edit([text(withX00(2)), text(withX00(-1))], true);
    assertNumbersClose(await copied(), attention({ x: withX00(0.5), ...weights }).Weights, 'the Weights copied before the edits');
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await click(tools, 'Copy');
    assertNumbersClose(await copied(), attention({ x: withX00(-1), ...weights }).Weights, 'the Weights after the edits');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('n = 2048: exports are bounded; the heatmap PNG is the on-screen block-mean image; SVG, Markdown and the lines view say why not, in both languages (issue 13, item 10)', async () => {
  const { context, page, problems } = await open(at('index.html?example=tutorial'));
  try {
    const n = 2048;
    await waitForSteps(page);
    await openEditor(page);
    for (const dim of ['dModel', 'dk', 'dv']) await page.fill(`#dim-${dim}`, '8');
    await page.fill('#sentence', Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(''));
    await page.fill('#seed', '5');
    await page.click('#fill-random');
    await page.waitForFunction((count) => document.getElementById('token-count').textContent === `${count} tokens`, n);
    await page.check('#causal');
    await openStep(page, 5);
    await page.waitForFunction(() => document.querySelector('#step-5 canvas[data-matrix="Weights"]') && !document.documentElement.hasAttribute('data-computing'));
    const tools = page.locator('#share-tools');
    await page.evaluate(() => { document.querySelector('#share-tools details.av-tools').open = true; });

    await choose(tools, 'Weights', 'svg');
    await click(tools, 'Download');
    await tools.locator('.av-message.error').waitFor();
    assert.equal(await message(tools), 'Weights is 2048 × 2048: a heatmap SVG writes every value, for at most 4096 cells. '
      + 'Use Heatmap PNG (the heatmap as on screen) or CSV/JSON (every number).');
    await page.click('#lang-toggle');
    await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
    assert.equal(await message(tools), 'Weights 是 2048 × 2048：热力图 SVG 要写出每个数值，最多 4096 个格子。请用热力图 PNG（与页面上相同的热力图）或 CSV/JSON（全部数值）。');
    await page.click('#lang-toggle');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.evaluate(() => { document.querySelector('#share-tools details.av-tools').open = true; });

    // The PNG: the on-screen heatmap (512 × 512, each pixel the mean of a 4 × 4 block's unmasked
    // cells) scaled up by whole pixels to 1024 × 1024. Block (0, 0): row r sees keys 0..r, its
    // weights summing to 1, so 4 in all over 1 + 2 + 3 + 4 cells: mean 0.4.
    const png = await exportMatrix(page, tools, 'Weights', 'png');
    assert.equal(png.name, 'Weights.png');
    assert.equal(await message(tools), 'Saved Weights.png: the heatmap as on screen, each pixel the mean of 4 × 4 cells.');
    const image = await readPng(page, png.bytes, [[0, 0]]);
    assert.deepEqual([image.width, image.height], [1024, 1024]);
    const want = viridis(0.4);
    assert.ok(image.pixels[0].every((v, i) => Math.abs(v - want[i]) <= 1), `block (0, 0): ${image.pixels[0]}, expected ${want}`);
    const same = await page.evaluate(async (data) => {
      const bitmap = await createImageBitmap(new Blob([new Uint8Array(data)], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      canvas.getContext('2d').drawImage(bitmap, 0, 0);
      const exported = canvas.getContext('2d').getImageData(0, 0, bitmap.width, bitmap.height).data;
      const screen = document.querySelector('#step-5 canvas[data-matrix="Weights"]');
      const shown = screen.getContext('2d').getImageData(0, 0, screen.width, screen.height).data;
      // exported pixel (x, y) is shown pixel (x >> 1, y >> 1)
      if (bitmap.width !== 2 * screen.width || bitmap.height !== 2 * screen.height) return false;
      for (let y = 0; y < bitmap.height; y++) {
        for (let x = 0; x < bitmap.width; x++) {
          const a = 4 * (y * bitmap.width + x);
          const b = 4 * ((y >> 1) * screen.width + (x >> 1));
          for (let k = 0; k < 4; k++) if (exported[a + k] !== shown[b + k]) return false;
        }
      }
      return true;
    }, [...png.bytes]);
    assert.ok(same, 'the PNG is the on-screen heatmap, each pixel a 2 × 2 square');

    await choose(tools, 'Scaled', 'markdown');
    await click(tools, 'Download');
    await tools.locator('.av-message.error').waitFor();
    assert.equal(await message(tools), 'Scaled is 2048 × 2048: LaTeX and Markdown are for reading, at most 65536 cells. Use CSV or JSON for every number.');
    await click(tools, 'Lines view SVG');
    await page.waitForFunction(() => /lines view/.test(document.querySelector('#share-tools .av-message').textContent));
    assert.equal(await message(tools), 'The lines view is drawn for at most 40 tokens; there are 2048, too dense to read. Export a heatmap instead.');

    // CSV holds every number at any size.
    const csv = await exportMatrix(page, tools, 'Weights', 'csv');
    const rows = csv.bytes.toString().trimEnd().split('\n');
    assert.equal(rows.length, n);
    assert.deepEqual(rows[0].split(',').slice(0, 3), ['1', '0', '0']);
    const last = rows[n - 1].split(',').map(Number);
    assert.equal(last.length, n);
    assert.ok(Math.abs(last.reduce((a, b) => a + b, 0) - 1) <= 1e-12, 'the last row sums to 1');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
