// The docs notebook (docs/examples/torch-layer.ipynb) executed as nbconvert --execute does
// (tests/python/run_notebook.py: nbclient, Debian's python3 kernel with the package from
// hosts/python), exported to HTML as nbconvert --to html writes it, and opened in Chromium over
// http: the element's per-head weights and output equal torch's (read from the same kernel) to
// 1e-12, the script is on the page once, no request leaves the site. Re-running the first
// show_torch cell after clearing its output still shows every element; clearing it and re-running
// only a later cell leaves a note saying what to run, never a blank, and running what it says
// (attention_visualizer.init() in a new last cell) shows the element again. The notebook's view.save()
// page opened from file:// gives torch's numbers too. And live, in the classic Notebook
// (jupyter-notebook's server, the only front end whose outputs reach the kernel): the element
// renders, typing in it never fires the Notebook's command-mode keys, and a reader's edits come
// back to Python as view.state and on_change's callback.
// Needs torch (python3-torch), ipykernel (python3-ipykernel) and the classic Notebook
// (jupyter-notebook): without them the run fails, saying so.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { openHost, pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const DIR = pageFolder('python-notebook');
// Jupyter's and IPython's folders (kernel connection files, history) in the test's folder: nothing
// written to ~/.jupyter or ~/.ipython, nothing shared with another run at the same time
const JUPYTER = Object.fromEntries(['JUPYTER_CONFIG_DIR', 'JUPYTER_DATA_DIR', 'JUPYTER_RUNTIME_DIR', 'IPYTHONDIR'].map((name) => {
  const dir = path.join(DIR, '.jupyter', name.toLowerCase());
  mkdirSync(dir, { recursive: true });
  return [name, dir];
}));
const ENV = { ...process.env, ...JUPYTER, PYTHONPATH: path.join(ROOT, 'hosts/python'), PYTHONDONTWRITEBYTECODE: '1', PYDEVD_DISABLE_FILE_VALIDATION: '1' };
const SCRIPT_DEFINES = /customElements\.define\("attention-visualizer"/g;

// The classic Notebook's server on a free port with a token of its own, serving LIVE.
const LIVE = path.join(DIR, 'live');
const TOKEN = randomBytes(16).toString('hex');
const freePort = () => new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
async function startNotebook() {
  mkdirSync(LIVE, { recursive: true });
  const cell = (source) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source });
  writeFileSync(path.join(LIVE, 'live.ipynb'), JSON.stringify({
    nbformat: 4, nbformat_minor: 4, metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: [
      cell('from attention_visualizer import show\ncalls = []\nview = show(sentence="我爱你", step="scores", lang="en", editable=True).on_change(calls.append)\nview'),
      cell('print(view.state["view"]["step"], "".join(view.state["tokens"]).endswith("add"), len(calls) >= 2, calls[-1] == view.state)'),
    ],
  }));
  const port = await freePort();
  const child = spawn('/usr/bin/python3', ['-m', 'notebook', '--no-browser', '--allow-root', '--ip=127.0.0.1', `--port=${port}`,
    `--NotebookApp.token=${TOKEN}`, `--notebook-dir=${LIVE}`], { env: ENV, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i += 1) {
    const up = await fetch(`${url}api?token=${TOKEN}`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 300 || child.exitCode !== null) throw new Error(`the classic Notebook did not start (exit ${child.exitCode}): apt-get install jupyter-notebook`);
    await new Promise((resolve) => { setTimeout(resolve, 100); });
  }
  return { child, url };
}

let browser = null;
let server = null;
let torch = null;
let notebook = null;
before(async () => {
  copyFileSync('/usr/share/javascript/requirejs/require.js', path.join(DIR, 'require.js'));
  writeFileSync(path.join(DIR, 'mathjax.js'), ''); // the template's MathJax (not the element's) would come from a CDN
  writeFileSync(path.join(DIR, 'favicon.ico'), '');
  await run('/usr/bin/python3', ['-c', 'import torch, ipykernel'], { env: ENV }).catch((error) => {
    throw new Error(`this test needs torch and ipykernel for /usr/bin/python3 (apt-get install python3-torch python3-ipykernel): ${error.stderr}`);
  });
  const live = startNotebook();
  await run('/usr/bin/python3', ['tests/python/run_notebook.py', 'docs/examples/torch-layer.ipynb', DIR], { env: ENV });
  notebook = await live;
  torch = JSON.parse(readFileSync(path.join(DIR, 'torch.json'), 'utf8'));
  browser = await launchChromium();
  server = await startServer({ root: DIR });
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (notebook) process.kill(notebook.child.pid);
});

// max |a − b| over two arrays of rows
const maxDiff = (a, b) => Math.max(...b.map((row, i) => Math.max(...row.map((v, j) => Math.abs(a[i][j] - v)))));

// Opens a page; returns what each element computed (null where it is not defined), whether its
// "script missing" note shows, and the host's record.
async function open(url, site) {
  const host = await openHost(browser, url, site ? { site } : {});
  const { page } = host;
  await page.waitForLoadState('load');
  const count = await page.locator('attention-visualizer').count();
  const elements = [];
  for (let i = 0; i < count; i += 1) {
    const defined = await page.evaluate(() => customElements.get('attention-visualizer') !== undefined);
    if (defined) await page.waitForFunction((k) => document.querySelectorAll('attention-visualizer')[k].result, i, { timeout: 30000 });
    elements.push(await page.evaluate((k) => {
      const element = document.querySelectorAll('attention-visualizer')[k];
      const note = element.nextElementSibling;
      const { result } = element;
      return {
        defined: customElements.get('attention-visualizer') !== undefined,
        result: result && { heads: result.heads.map((h) => h.weights), output: result.output },
        causal: element.state?.causal,
        note: note?.classList.contains('av-missing') ? getComputedStyle(note).display : 'none',
        noteText: note?.textContent,
      };
    }, i));
  }
  return { host, elements };
}

function assertTorchNumbers(element, want = torch) {
  assert.equal(element.result.heads.length, want.weights.length);
  element.result.heads.forEach((weights, h) => assert.ok(maxDiff(weights, want.weights[h]) < 1e-12, `head ${h} weights`));
  assert.ok(maxDiff(element.result.output, want.output) < 1e-12, 'attn_output');
  assert.equal(element.note, 'none');
}

test('the docs notebook, executed and exported: its elements show torch\'s weights and attn_output to 1e-12 (causal mask too), the script once, offline', async () => {
  const html = readFileSync(path.join(DIR, 'executed.html'), 'utf8');
  assert.equal(html.match(SCRIPT_DEFINES).length, 1);
  const { host, elements } = await open(`${server.url}executed.html`);
  try {
    assert.equal(elements.length, 2);
    assertTorchNumbers(elements[0]);
    assert.equal(elements[1].causal, true);
    assertTorchNumbers(elements[1], torch.causal);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
  }
});

test('re-running the first show_torch cell after clearing its output: every element still shows, the script still once', async () => {
  const html = readFileSync(path.join(DIR, 'rerun.html'), 'utf8');
  assert.equal(html.match(SCRIPT_DEFINES).length, 1);
  const { host, elements } = await open(`${server.url}rerun.html`);
  try {
    assertTorchNumbers(elements[0]);
    assert.equal(elements[1].note, 'none');
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('the output carrying the script cleared, a later cell re-run: that output says the script is missing and what to run, not a blank', async () => {
  const html = readFileSync(path.join(DIR, 'cleared.html'), 'utf8');
  assert.equal(html.match(SCRIPT_DEFINES), null);
  const { host, elements } = await open(`${server.url}cleared.html`);
  try {
    assert.equal(elements.length, 1);
    assert.equal(elements[0].defined, false);
    assert.equal(elements[0].note, 'block');
    assert.match(elements[0].noteText, /此页面上没有 <attention-visualizer> 的脚本.*attention_visualizer\.init\(\)/);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('then attention_visualizer.init() in a new last cell, as the note says: the element above it shows again', async () => {
  const html = readFileSync(path.join(DIR, 'init.html'), 'utf8');
  assert.equal(html.match(SCRIPT_DEFINES).length, 1);
  const { host, elements } = await open(`${server.url}init.html`);
  try {
    assert.equal(elements.length, 1);
    assert.equal(elements[0].defined, true);
    assert.equal(elements[0].causal, true);
    assert.equal(elements[0].result.heads.length, 2);
    assert.equal(elements[0].note, 'none');
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('view.save(): the standalone page from file:// shows torch\'s numbers, with no request at all', async () => {
  const { host, elements } = await open(pathToFileURL(path.join(DIR, 'torch-layer.html')).href, 'file://');
  try {
    assert.equal(elements.length, 1);
    assertTorchNumbers(elements[0]);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
  }
});

test('live in the classic Notebook: the element renders, takes typing without the Notebook\'s keys firing, a reader\'s edits come back as view.state and to on_change', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${notebook.url}notebooks/live.ipynb?token=${TOKEN}`);
    await page.waitForFunction(() => window.Jupyter?.notebook?.kernel?.is_connected(), null, { timeout: 120000 });
    await page.evaluate(() => window.Jupyter.notebook.execute_cells([0]));
    await page.waitForFunction(() => document.querySelector('attention-visualizer')?.result, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.av-missing')).display), 'none');
    // the reader moves on one step (scores → scale) in the element
    await page.locator('attention-visualizer').getByRole('button', { name: 'Next →' }).first().click();
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.view.step === 'scale');
    // and types " add" in its sentence: the Notebook's command-mode keys (a: insert a cell, d d: delete one) stay out
    const sentence = page.locator('attention-visualizer #sentence').first();
    await sentence.click();
    await sentence.press('End');
    await page.keyboard.type(' add');
    await sentence.press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-visualizer').state.tokens.join('').endsWith('add'));
    assert.equal(await page.evaluate(() => window.Jupyter.notebook.get_cells().length), 2);
    await page.evaluate(() => window.Jupyter.notebook.execute_cells([1]));
    const printed = await page.waitForFunction(() => window.Jupyter.notebook.get_cell(1).output_area.outputs[0]?.text, null, { timeout: 60000 });
    assert.equal(await printed.jsonValue(), 'scale True True True\n');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
