// Browser tests of embedding (issue 5): the example tutorial page with its
// <attention-visualizer> elements from file:// and from localhost, under a host
// stylesheet that tries to restyle everything; embed.html with its state in the
// hash and its postMessage interface; copy-embed code; exports; imports.
// Expected numbers come from tests/REFERENCE.md or plain JS, never the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { browserAndServer } from './local.mjs';
import { trackDownloads, downloaded } from './downloads.mjs';
import { REFERENCE } from '../js/fixtures.mjs'; // tests/REFERENCE.md's true values

const DIST = path.resolve('dist');
const EXAMPLE_FILE = pathToFileURL(path.join(DIST, 'examples/tutorial.html')).href;
const EMBED_FILE = pathToFileURL(path.join(DIST, 'embed.html')).href;

// The step each element of the example shows, and a matrix it must show.
const EXAMPLE_STEPS = [['input', 'X'], ['project', 'Q'], ['scores', 'Scores'], ['scale', 'Scaled'], ['softmax', 'Weights'], ['output', 'Output'], ['softmax', 'Weights']];

const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
function softmaxRows(m, masked) {
  return m.map((row, i) => {
    const max = Math.max(...row.filter((_, j) => !masked[i][j]));
    const e = row.map((s, j) => (masked[i][j] ? 0 : Math.exp(s - max)));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
}

const HOSTILE_CSS = `
  * { all: unset !important; color: red !important; font-size: 40px !important; font-family: "Comic Sans MS", cursive !important; }
  *, *::before, *::after { box-sizing: content-box !important; line-height: 3 !important; letter-spacing: 5px !important; }
  attention-visualizer { display: none !important; width: 10px !important; height: 10px !important; overflow: hidden !important;
    visibility: hidden !important; opacity: 0 !important; transform: scale(0.1) !important; position: absolute !important; }
  html { font-size: 40px !important; }
  table, td, th, button, input, select, canvas, svg, line { display: none !important; border: 9px solid lime !important; }
  :root { --accent: red; --text: red; --bg: black; }
`;

const local = browserAndServer(DIST);
const { at } = local;

// A page that records page errors, console errors, CSP violations and every request.
async function open(url, { context: contextOptions = {}, setup } = {}) {
  const context = await local.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...contextOptions });
  await trackDownloads(context);
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  page.on('request', (request) => requests.push(request.url()));
  if (setup) await setup(page);
  await page.goto(url);
  return { context, page, problems, requests };
}

// Waits until every element has computed (its ready event, or its tables drawn).
async function whenReady(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result !== null
    && v.shadowRoot.querySelector('table.matrix')));
}

// The full values (cells' data-value) of a matrix shown by the i-th element.
function shownMatrix(page, index, name) {
  return page.evaluate(([i, n]) => {
    const root = document.querySelectorAll('attention-visualizer')[i].shadowRoot;
    const table = root.querySelector(`table.matrix[data-matrix="${n}"]`);
    return table ? [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value))) : null;
  }, [index, name]);
}

function assertClose(actual, expected, label) {
  assert.ok(actual, `${label}: not shown`);
  assert.equal(actual.length, expected.length, `${label} rows`);
  expected.forEach((row, r) => {
    assert.equal(actual[r].length, row.length, `${label} row ${r} length`);
    row.forEach((value, c) => assert.ok(Math.abs(actual[r][c] - value) <= 1e-12, `${label}[${r}][${c}] = ${actual[r][c]}, expected ${value}`));
  });
}

async function checkExample(page) {
  await whenReady(page);
  const count = await page.locator('attention-visualizer').count();
  assert.equal(count, EXAMPLE_STEPS.length);
  for (let i = 0; i < count; i++) {
    const [step, matrix] = EXAMPLE_STEPS[i];
    const shown = await page.evaluate((j) => [...document.querySelectorAll('attention-visualizer')[j].shadowRoot.querySelectorAll('li.step')].map((li) => li.dataset.step), i);
    assert.deepEqual(shown, [step], `element ${i}`);
    if (matrix !== 'X') assertClose(await shownMatrix(page, i, matrix), REFERENCE[matrix], `element ${i} ${matrix}`);
  }
  assertClose(await shownMatrix(page, 4, 'Scaled'), REFERENCE.Scaled, 'softmax element Scaled');
  assertClose(await shownMatrix(page, 5, 'V'), REFERENCE.V, 'output element V');
}

const onlyLocal = (requests, prefix) => requests.filter((url) => !url.startsWith(prefix) && !url.startsWith('data:'));

test('the example tutorial from file://: every element renders its step with the true numbers, no request leaves', async () => {
  const { context, page, problems, requests } = await open(EXAMPLE_FILE);
  try {
    await checkExample(page);
    // one engine for seven elements: one wasm module, one promise
    assert.equal(await page.evaluate(() => typeof globalThis.createAttentionEngine), 'function');
    assert.equal(await page.evaluate(() => globalThis.createAttentionEngine() === globalThis.createAttentionEngine()), true);
    // the misprint note and step numbering of the whole sequence
    assert.match(await page.evaluate(() => document.querySelectorAll('attention-visualizer')[4].shadowRoot.querySelector('.step-num').textContent), /第 5 步，共 7 步/);
    // language switch: the page and its elements
    await page.click('#lang-switch');
    await page.waitForFunction(() => document.querySelectorAll('attention-visualizer')[4].shadowRoot.querySelector('.step-num').textContent === 'Step 5 of 7');
    assert.deepEqual(problems, []);
    assert.deepEqual(onlyLocal(requests, 'file://'), []);
  } finally {
    await context.close();
  }
});

test('the example tutorial from localhost under a host stylesheet that restyles everything', async () => {
  const { context, page, problems, requests } = await open(at('examples/tutorial.html'));
  try {
    // Constructed sheets are allowed by the page's CSP, like the element's own.
    await page.evaluate((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = [sheet];
    }, HOSTILE_CSS);
    await checkExample(page);
    const looks = await page.evaluate(() => {
      const v = document.querySelectorAll('attention-visualizer')[4];
      const root = v.shadowRoot;
      const td = root.querySelector('table.matrix[data-matrix="Weights"] td[data-r]');
      const cell = getComputedStyle(td);
      const box = v.getBoundingClientRect();
      const line = root.querySelector('.weight-line');
      return {
        display: getComputedStyle(v).display, visibility: getComputedStyle(v).visibility, opacity: getComputedStyle(v).opacity,
        width: box.width, height: box.height, fontSize: cell.fontSize, color: cell.color, cellDisplay: cell.display,
        cellWidth: td.getBoundingClientRect().width, lineShown: line.getBoundingClientRect().width > 0,
        title: getComputedStyle(root.querySelector('.step-title')).color,
      };
    });
    assert.equal(looks.display, 'block');
    assert.equal(looks.visibility, 'visible');
    assert.equal(looks.opacity, '1');
    assert.ok(looks.width > 600 && looks.height > 300, JSON.stringify(looks));
    assert.equal(looks.cellDisplay, 'table-cell');
    assert.ok(parseFloat(looks.fontSize) < 16, looks.fontSize);
    assert.ok(looks.cellWidth < 120, String(looks.cellWidth));
    assert.notEqual(looks.title, 'rgb(255, 0, 0)');
    assert.ok(looks.lineShown);
    // still interactive: a weight's arithmetic, from the keyboard
    await page.evaluate(() => document.querySelectorAll('attention-visualizer')[4].shadowRoot.querySelector('table.matrix[data-matrix="Weights"] td[data-r="0"][data-c="0"]').focus());
    const work = await page.evaluate(() => document.querySelectorAll('attention-visualizer')[4].shadowRoot.querySelector('.work').textContent);
    assert.match(work, /= 0\.33569311/);
    assert.deepEqual(problems, []);
    assert.deepEqual(onlyLocal(requests, local.server.url), []);
  } finally {
    await context.close();
  }
});

// Two heads, W_O, causal, padding, temperature and PE, on step "softmax" of head 2.
const VARIANT = {
  ...tutorialState('en'),
  tokens: ['I', 'love', 'you'],
  heads: [
    { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] },
    { wq: [[1, -1], [0.5, 2]], wk: [[0.3, 0.3], [-1, 0.7]], wv: [[1, 0], [0, 1]] },
  ],
  wo: [[1, 0], [0, 1], [0.5, 0.5], [0.25, -1]],
  causal: true,
  keyPadding: [false, false, true],
  temperature: 0.5,
  view: { step: 'softmax', head: 1, lang: 'en', decimals: 3 },
};
function variantWeights(head) {
  const { x, heads, keyPadding, temperature } = VARIANT;
  const q = matmul(x, heads[head].wq);
  const k = matmul(x, heads[head].wk);
  const masked = x.map((_, i) => x.map((__, j) => j > i || keyPadding[j]));
  const scaled = matmul(q, transpose(k)).map((row) => row.map((s) => s / Math.sqrt(2) / temperature));
  return softmaxRows(scaled, masked);
}

test('embed.html restores a state from its hash, step and head included, and talks over postMessage', async () => {
  const hash = encodeHash(VARIANT);
  const { context, page, problems, requests } = await open(`${EMBED_FILE}#${hash}`);
  try {
    await whenReady(page);
    assert.deepEqual(await page.evaluate(() => document.querySelector('attention-visualizer').state), VARIANT);
    assert.deepEqual(await page.evaluate(() => [...document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('li.step')].map((li) => li.dataset.step)), ['softmax']);
    assertClose(await shownMatrix(page, 0, 'Weights'), variantWeights(1), 'head 2 weights');

    // The protocol, from the frame's own window (a host's messages arrive the same way).
    const exchange = (message) => page.evaluate((m) => new Promise((resolve) => {
      const listener = (event) => {
        if (event.data && ['attention-visualizer:state', 'attention-visualizer:error'].includes(event.data.type)) {
          window.removeEventListener('message', listener);
          resolve(event.data);
        }
      };
      window.addEventListener('message', listener);
      window.postMessage(m, '*');
    }), message);
    const got = await exchange({ type: 'attention-visualizer:get', id: 7 });
    assert.equal(got.id, 7);
    assert.deepEqual(got.state, VARIANT);
    assertClose(got.result.heads[0].weights, variantWeights(0), 'get: head 1 weights');
    assert.equal(got.result.heads[0].scaled[0][1], -Infinity);

    const set = await exchange({ type: 'attention-visualizer:set', id: 'a', state: { causal: false, view: { step: 'scores' } } });
    assert.equal(set.type, 'attention-visualizer:state', JSON.stringify(set));
    assert.equal(set.state.causal, false);
    assert.equal(set.state.view.step, 'scores');
    assert.equal(set.state.view.head, 1);
    await page.waitForFunction(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('li.step').dataset.step === 'scores');
    const restored = await page.evaluate(() => location.hash);
    assert.equal(restored, `#${encodeHash(set.state)}`);

    for (const [message, en] of [
      [{ type: 'attention-visualizer:set', state: { temperature: -1 } }, 'The state is not valid: “temperature” must be a finite number above 0.'],
      [{ type: 'attention-visualizer:set', state: 'x = 1' }, 'The message is not valid: state'],
      [{ type: 'attention-visualizer:eval', code: 'alert(1)' }, 'The message is not valid: type "attention-visualizer:eval"'],
      [{ type: 'attention-visualizer:get', extra: 1 }, 'The message is not valid: field "extra"'],
    ]) {
      const reply = await exchange(message);
      assert.equal(reply.type, 'attention-visualizer:error');
      assert.equal(reply.message.en, en);
      assert.ok(reply.message.zh.length > 0);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(onlyLocal(requests, 'file://'), []);
  } finally {
    await context.close();
  }
});

test('embed.html: <html lang> follows the language shown, and a damaged or refused link says so in the reader\'s language, about the link', async () => {
  const tooLong = encodeHash({ ...tutorialState('en'), tokens: ['x'.repeat(500), 'b', 'c'] });
  for (const [locale, hash, expected] of [
    ['en-US', 'av1.@@@', { lang: 'en', text: 'This link cannot be opened: the state in the link is damaged and cannot be read. The tutorial’s example is shown instead.' }],
    ['zh-CN', 'av1.@@@', { lang: 'zh-CN', text: '这个链接打不开：链接里的状态已损坏，无法读取。下面显示的是教程的例子。' }],
    ['en-US', tooLong, { lang: 'en', text: /^This link cannot be opened: “tokens” must hold tokens of at most \d+ characters: token 1 has 500\. The tutorial’s example is shown instead\.$/ }],
    ['zh-CN', tooLong, { lang: 'zh-CN', text: /^这个链接打不开：“tokens” 的词元最多 \d+ 个字符：第 1 个有 500 个。下面显示的是教程的例子。$/ }],
  ]) {
    const { context, page, problems } = await open(`${EMBED_FILE}#${hash}`, { context: { locale } });
    try {
      await whenReady(page);
      const shown = await page.evaluate(() => {
        const root = document.querySelector('attention-visualizer').shadowRoot;
        return { html: document.documentElement.lang, root: root.querySelector('.av').lang, error: root.querySelector('.status-error')?.textContent || '' };
      });
      assert.equal(shown.html, expected.lang, `${locale} ${hash.slice(0, 12)}`);
      assert.equal(shown.root, expected.lang);
      if (typeof expected.text === 'string') assert.equal(shown.error, expected.text);
      else assert.match(shown.error, expected.text);
      assert.doesNotMatch(shown.error, /attribute|属性|state 无效/);
      assert.deepEqual(await page.evaluate(() => document.querySelector('attention-visualizer').state.tokens), ['我', '爱', '你']);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
  // a good link in an English browser: its own language, Chinese, and <html lang> with it
  const { context, page } = await open(`${EMBED_FILE}#${encodeHash(tutorialState('zh'))}`, { context: { locale: 'en-US' } });
  try {
    await whenReady(page);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.status-error')), null);
  } finally {
    await context.close();
  }
});

test('a host page with embed.html in an iframe sets inputs and reads results (localhost)', async () => {
  const hostUrl = at('host-test.html');
  const setup = (page) => page.route(hostUrl, (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><body><iframe id="f" src="embed.html" width="900" height="700"></iframe>
<script>
  window.received = [];
  window.addEventListener('message', (e) => window.received.push(e.data));
</script></body></html>`,
  }));
  const { context, page, problems } = await open(hostUrl, { setup });
  try {
    await page.waitForFunction(() => window.received.some((m) => m.type === 'attention-visualizer:ready'));
    const ready = await page.evaluate(() => window.received.find((m) => m.type === 'attention-visualizer:ready'));
    assertClose(ready.result.heads[0].weights, REFERENCE.Weights, 'ready weights');
    await page.evaluate(() => document.getElementById('f').contentWindow.postMessage({
      type: 'attention-visualizer:set', id: 1, state: { x: [[2, 0], [0.5, 0.5], [0, 1]], view: { step: 'output' } },
    }, '*'));
    await page.waitForFunction(() => window.received.some((m) => m.type === 'attention-visualizer:state' && m.id === 1));
    const reply = await page.evaluate(() => window.received.find((m) => m.type === 'attention-visualizer:state' && m.id === 1));
    const x = [[2, 0], [0.5, 0.5], [0, 1]];
    const t = tutorialState();
    const q = matmul(x, t.heads[0].wq);
    const k = matmul(x, t.heads[0].wk);
    const weights = softmaxRows(matmul(q, transpose(k)).map((r) => r.map((s) => s / Math.sqrt(2))), x.map(() => x.map(() => false)));
    assertClose(reply.result.output, matmul(weights, matmul(x, t.heads[0].wv)), 'output after set');
    assert.ok(await page.evaluate(() => window.received.some((m) => m.type === 'attention-visualizer:change' && m.state.view.step === 'output')));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('copy embed code writes markup that shows exactly the same, as an element and as an iframe', async () => {
  const { context, page, problems } = await open(`${at('embed.html')}?steps=input,softmax,output&panels=nav,work,tools&theme=dark#${encodeHash(VARIANT)}`);
  try {
    await whenReady(page);
    const [elementCode, iframeCode] = await page.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      return [v.embedCode('element'), v.embedCode('iframe')];
    });
    // paths from this page: never the localhost address it was copied on
    assert.ok(elementCode.startsWith('<script src="attention-visualizer.js"></script>\n<attention-visualizer\n'), elementCode);
    assert.match(elementCode, / steps='input,softmax,output'/);
    assert.ok(iframeCode.startsWith('<iframe src="embed.html?steps=input%2Csoftmax%2Coutput&amp;panels=nav%2Cwork%2Ctools&amp;theme=dark#av1.'), iframeCode);

    // The element markup on a plain host page (the iframe's src, opened directly).
    const hostUrl = at('copied.html');
    await page.route(hostUrl, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body>${elementCode}</body></html>` }));
    await page.goto(hostUrl);
    await whenReady(page);
    const fromElement = await page.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      // the steps the diagram's stages open: only those of steps='…'
      const opened = new Set([...v.shadowRoot.querySelectorAll('.pipeline-stage[role="button"]')].map((stage) => stage.dataset.step));
      return { state: v.state, steps: opened.size, dark: v.shadowRoot.querySelector('.av').classList.contains('dark') };
    });
    assert.deepEqual(fromElement, { state: VARIANT, steps: 3, dark: true });
    assertClose(await shownMatrix(page, 0, 'Weights'), variantWeights(1), 'copied element');

    const src = /src="([^"]+)"/.exec(iframeCode)[1].replace(/&amp;/g, '&');
    await page.goto(new URL(src, hostUrl).href);
    await whenReady(page);
    assert.deepEqual(await page.evaluate(() => document.querySelector('attention-visualizer').state), VARIANT);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

async function clickTool(page, index, label) {
  await page.evaluate((i) => { document.querySelectorAll('attention-visualizer')[i].shadowRoot.querySelector('details.av-tools').open = true; }, index);
  const element = page.locator('attention-visualizer').nth(index);
  await element.locator('.av-tools button', { hasText: label }).first().click();
}

test('exports: a matrix as CSV/JSON/LaTeX/Markdown/SVG/PNG, the lines view, the state, the numpy script', async () => {
  const { context, page, problems } = await open(EXAMPLE_FILE);
  try {
    await whenReady(page);
    const playground = page.locator('#playground');
    await page.evaluate(() => { document.getElementById('playground').shadowRoot.querySelector('details.av-tools').open = true; });
    const exportAs = async (matrix, format) => {
      await playground.locator('select[aria-label="矩阵"]').selectOption(matrix);
      await playground.locator('select[aria-label="格式"]').selectOption(format);
      return downloaded(page, () => playground.locator('.av-tools button', { hasText: '下载' }).click());
    };
    const csv = await exportAs('Weights', 'csv');
    assert.equal(csv.name, 'Weights.csv');
    assertClose(csv.bytes.toString().trim().split('\n').map((line) => line.split(',').map(Number)), REFERENCE.Weights, 'CSV');
    const json = await exportAs('Output', 'json');
    assertClose(JSON.parse(json.bytes.toString()), REFERENCE.Output, 'JSON');
    const latex = await exportAs('Scores', 'latex');
    assert.equal(latex.bytes.toString(), '\\begin{bmatrix}\n  0.2600 & 0.2500 & 0.2400 \\\\\n  0.2400 & 0.2900 & 0.3400 \\\\\n  0.2200 & 0.3300 & 0.4400\n\\end{bmatrix}\n');
    const markdown = await exportAs('Q', 'markdown');
    assert.equal(markdown.bytes.toString(), '|  | d1 | d2 |\n| --- | ---: | ---: |\n| 我 | 0.5000 | 0.2000 |\n| 爱 | 0.3000 | 0.4000 |\n| 你 | 0.1000 | 0.6000 |\n');
    const svg = await exportAs('Weights', 'svg');
    assert.match(svg.bytes.toString(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(svg.bytes.toString().includes('>0.3357<'));
    const png = await exportAs('Weights', 'png');
    assert.equal(png.name, 'Weights.png');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.bytes.readUInt32BE(16) > 200 && png.bytes.readUInt32BE(20) > 100);

    const linesPng = await downloaded(page, () => clickTool(page, 6, '连线图 PNG'));
    assert.equal(linesPng.name, 'attention-lines.png');
    assert.equal(linesPng.bytes.readUInt32BE(12), 0x49484452); // IHDR
    const linesSvg = await downloaded(page, () => clickTool(page, 6, '连线图 SVG'));
    assert.equal((linesSvg.bytes.toString().match(/<line /g) || []).length, 9);

    const state = await downloaded(page, () => clickTool(page, 6, '全部状态 JSON'));
    const saved = JSON.parse(state.bytes.toString());
    assert.deepEqual(saved.x, [[1, 0], [0.5, 0.5], [0, 1]]);
    assert.equal(saved.view.step, 'softmax');

    const script = await downloaded(page, () => clickTool(page, 6, 'Python/numpy 脚本'));
    const printed = execFileSync('/usr/bin/python3', ['-'], { input: script.bytes, encoding: 'utf8' }).trim().split('\n');
    const block = (name) => printed.slice(printed.indexOf(name) + 1, printed.indexOf(name) + 4).map((line) => line.split(' ').map(Number));
    assertClose(block('Weights'), REFERENCE.Weights, 'numpy script weights');
    assertClose(block('Output'), REFERENCE.Output, 'numpy script output');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

function npy(code) {
  return execFileSync('/usr/bin/python3', ['-c', `import io, sys, numpy as np\nb = io.BytesIO()\n${code}\nsys.stdout.buffer.write(b.getvalue())`]);
}

test('imports: .npy (float32, Fortran order) by picker and drag-and-drop, CSV, state JSON, and clear messages for bad files', async () => {
  const { context, page, problems } = await open(EXAMPLE_FILE);
  try {
    await whenReady(page);
    const playground = page.locator('#playground');
    await page.evaluate(() => { document.getElementById('playground').shadowRoot.querySelector('details.av-tools').open = true; });
    const message = () => playground.locator('.av-message').textContent();
    const wq = [[1, 0.5], [-0.25, 2]];

    // wq.npy names its matrix; float32 in Fortran order.
    await playground.locator('input[type="file"][data-focus-id="import-file"]').setInputFiles({
      name: 'wq.npy', mimeType: 'application/octet-stream', buffer: npy(`np.save(b, np.asfortranarray(np.array(${JSON.stringify(wq)}, dtype=np.float32)))`),
    });
    await page.waitForFunction(() => document.getElementById('playground').state.heads[0].wq[1][1] === 2);
    assert.equal(await message(), '已导入 wq.npy → W_Q。');
    const x = tutorialState().x;
    const q = matmul(x, wq);
    const k = matmul(x, tutorialState().heads[0].wk);
    assertClose(await shownMatrix(page, 6, 'Weights'), softmaxRows(matmul(q, transpose(k)).map((r) => r.map((s) => s / Math.sqrt(2))), x.map(() => x.map(() => false))), 'weights after W_Q import');

    // Dropped: a CSV into the target chosen in the list (W_V).
    await playground.locator('select[aria-label="导入到"]').selectOption('wv');
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['1,0\n0,1\n'], 'values.csv', { type: 'text/csv' }));
      const root = document.getElementById('playground').shadowRoot.querySelector('.av');
      root.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      root.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.getElementById('playground').state.heads[0].wv[0][1] === 0);
    assert.equal(await message(), '已导入 values.csv → W_V。');
    assertClose(await page.evaluate(() => document.getElementById('playground').result.heads[0].v), x, 'V = X with W_V = I');

    const tryFile = async (name, buffer) => {
      await playground.locator('input[type="file"][data-focus-id="import-file"]').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
      await page.waitForFunction((n) => document.getElementById('playground').shadowRoot.querySelector('.av-message').textContent.includes(n), name);
      return message();
    };
    assert.equal(await tryFile('x.npy', npy('np.save(b, np.array([[1, 2], [3, 4], [5, 6]]))')),
      'x.npy：不支持的数据类型 <i8：只支持 float64（<f8）和 float32（<f4）。可用 a.astype(np.float64) 转换。');
    assert.equal(await tryFile('wk.npy', npy('np.save(b, np.ones((3, 2)))')), 'wk.npy：“heads[0].wk” 形状是 3 × 2，应为 2 × 2。');
    assert.equal(await tryFile('broken.npy', Buffer.from('not numpy at all')), 'broken.npy：不是 NumPy .npy 文件（文件头不对），或文件已损坏。');
    assert.equal(await tryFile('photo.png', Buffer.from([0x89, 0x50])), 'photo.png：不支持这种文件。请用 .json（状态）、.csv/.tsv/.txt 或 .npy。');
    assert.equal(await tryFile('x.csv', Buffer.from('1,a\n2,3\n4,5\n')), 'x.csv：第 1 行第 2 列不是数字（“a”）。');

    // English messages after switching the page's language.
    await page.click('#lang-switch');
    assert.equal(await tryFile('cut.npy', npy('np.save(b, np.ones((3, 2)))').subarray(0, 150)),
      'cut.npy: wrong data length: shape (3, 2) needs 48 bytes, the file has 22. It may be truncated or corrupt.');

    // A state JSON replaces everything, its step included.
    const state = { ...tutorialState('en'), tokens: ['a', 'b', 'c'], view: { step: 'output', head: 0, lang: 'en', decimals: 2 } };
    await playground.locator('input[type="file"][data-focus-id="import-file"]').setInputFiles({ name: 'state.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(state)) });
    await page.waitForFunction(() => document.getElementById('playground').state.tokens[0] === 'a');
    assert.equal(await page.evaluate(() => document.getElementById('playground').shadowRoot.querySelector('li.step').dataset.step), 'output');
    assertClose(await shownMatrix(page, 6, 'Output'), REFERENCE.Output, 'output after state import');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the full page: its state in the hash, restored exactly (step, head, language, decimals); a damaged link says so', async () => {
  const PAGE = `${pathToFileURL(path.join(DIST, 'index.html')).href}?example=tutorial`;
  const { context, page, problems } = await open(`${PAGE}#${encodeHash(VARIANT)}`);
  try {
    await page.waitForFunction(() => document.querySelector('#steps li.step'));
    const shown = await page.evaluate(() => ({
      step: document.querySelector('#steps li.step').dataset.step,
      head: document.querySelector('#view-heads .head-tab[aria-pressed="true"]').textContent,
      lang: document.documentElement.lang,
      causal: document.getElementById('causal').checked,
      temperature: document.getElementById('temperature').value,
      decimals: document.getElementById('decimals').value,
    }));
    assert.deepEqual(shown, { step: 'softmax', head: '2', lang: 'en', causal: true, temperature: '0.5', decimals: '3' });
    const weights = await page.evaluate(() => [...document.querySelectorAll('#steps table.matrix[data-matrix="Weights"] tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value))));
    assertClose(weights, variantWeights(1), 'page head 2 weights');
    // The hash follows the screen: step 6, then the link restores exactly that.
    await page.click('#next');
    await page.waitForFunction(() => location.hash !== '' && document.querySelector('#steps li.step').dataset.step === 'output');
    await page.waitForFunction(() => {
      const json = atob(location.hash.slice('#av1.'.length).replace(/-/g, '+').replace(/_/g, '/'));
      return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (ch) => ch.charCodeAt(0)))).view.step === 'output';
    });
    const hash = await page.evaluate(() => location.hash);
    const second = await context.newPage();
    await second.goto(`${PAGE}${hash}`);
    await second.waitForFunction(() => document.querySelector('#steps li.step'));
    assert.equal(await second.evaluate(() => document.querySelector('#steps li.step').dataset.step), 'output');
    // Dropped on the page: a .npy for head 2's W_Q (named wq.2.npy).
    const wq2 = [[0.5, 1], [1, -0.5]];
    const bytes = [...npy(`np.save(b, np.array(${JSON.stringify(wq2)}))`)];
    await page.evaluate((data) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], 'wq.2.npy'));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, bytes);
    await page.waitForFunction(() => /wq\.2\.npy/.test(document.querySelector('#share-tools .av-message').textContent));
    assert.equal(await page.evaluate(() => document.querySelector('#share-tools .av-message').textContent), 'Imported wq.2.npy → W_Q · 2.');
    const { x, heads, keyPadding, temperature } = VARIANT;
    const q = matmul(x, wq2);
    const k = matmul(x, heads[1].wk);
    const masked = x.map((_, i) => x.map((__, j) => j > i || keyPadding[j]));
    await page.evaluate(() => document.getElementById('prev').click());
    await page.waitForFunction(() => document.querySelector('#steps li.step').dataset.step === 'softmax');
    const after = await page.evaluate(() => [...document.querySelectorAll('#steps table.matrix[data-matrix="Weights"] tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value))));
    assertClose(after, softmaxRows(matmul(q, transpose(k)).map((row) => row.map((s) => s / Math.sqrt(2) / temperature)), masked), 'head 2 after import');
    // A damaged link: the tutorial, and a message.
    await second.goto(`${PAGE}#av1.garbage!!`);
    await second.waitForFunction(() => document.querySelector('#status .status-error'));
    assert.equal(await second.textContent('#status .status-error'), 'The state is not valid: the state in the link is damaged and cannot be read.');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
