// The package in every toolchain a tutorial author publishes with (issue 15), built from the
// packed tarball with the real tools, offline: a Vite production build and the Vite dev server,
// esbuild, a TypeScript check (tsc --strict), a page with RequireJS and a `module` variable,
// a Hugo site under a sub-path (the shortcode), an MkDocs site (the recipe), a notebook exported
// by nbconvert (the Jupyter helper) and a reveal.js deck. Each opens in Chromium: the worked
// example's output, no page or console error, no request outside the site, no key event typed
// in the element reaches the host, and 0 CSP violations under the documented header where the
// host itself has no inline script.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { build as esbuild } from 'esbuild';
import { build as viteBuild, createServer as viteServer } from 'vite';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { HOST_CSP, TUTORIAL, OUTPUT_00, WORKED_ATTRIBUTES, assertWorkedExample, openHost, pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const DIR = pageFolder('hosts');
const CONSUMER = path.join(DIR, 'consumer');
const PACKAGE = path.join(CONSUMER, 'node_modules/attention-visualizer');
const WWW = path.join(DIR, 'www'); // sites with inline scripts of their own (MkDocs, nbconvert)
const WWW_CSP = path.join(DIR, 'www-csp'); // sites without: served under the documented CSP
const EDITABLE = `${WORKED_ATTRIBUTES} editable`;
const HEAD = '<meta charset="utf-8"><link rel="icon" href="data:,">';
const write = (file, text) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

// The consumer project: what an author writes, nothing more (no bundler configuration).
function writeConsumer() {
  write(path.join(CONSUMER, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  write(path.join(CONSUMER, 'index.html'), `<!doctype html><html lang="en"><head>${HEAD}<script type="module" src="./main.js"></script></head>
<body><attention-visualizer ${EDITABLE}></attention-visualizer></body></html>\n`);
  write(path.join(CONSUMER, 'main.js'), `import 'attention-visualizer';
import { createAttentionEngine } from 'attention-visualizer/engine';

// a worker started from the bundled (renamed, minified) engine
window.workerOutput = createAttentionEngine.startWorker().compute(${JSON.stringify(TUTORIAL)}).then((r) => r.output.data[0]);
`);
  // the engine alone, by its default export (Vite dev)
  write(path.join(CONSUMER, 'engine.html'), `<!doctype html><html><head>${HEAD}<script type="module" src="./engine.js"></script></head><body><output></output></body></html>\n`);
  write(path.join(CONSUMER, 'engine.js'), `import createAttentionEngine from 'attention-visualizer/engine';

createAttentionEngine().then((engine) => {
  document.querySelector('output').textContent = String(engine.compute(${JSON.stringify(TUTORIAL)}).output[0][0]);
});
`);
  write(path.join(CONSUMER, 'esbuild.html'), `<!doctype html><html lang="en"><head>${HEAD}<script src="out/main.js"></script></head>
<body><attention-visualizer ${EDITABLE}></attention-visualizer></body></html>\n`);
  // classic scripts next to RequireJS and a page's own `module` variable
  copyFileSync('/usr/share/javascript/requirejs/require.js', path.join(CONSUMER, 'require.js'));
  write(path.join(CONSUMER, 'module-var.js'), 'var module = { exports: {} };\n');
  write(path.join(CONSUMER, 'requirejs.html'), `<!doctype html><html lang="en"><head>${HEAD}<script src="require.js"></script><script src="module-var.js"></script>
<script src="node_modules/attention-visualizer/dist/attention-visualizer.js"></script></head>
<body><attention-visualizer ${EDITABLE}></attention-visualizer></body></html>\n`);
  // TypeScript: every use type-checks; each @ts-expect-error must meet an error
  write(path.join(CONSUMER, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, jsx: 'react-jsx', lib: ['es2022', 'dom'] },
    files: ['check.ts', 'view.tsx'],
  }));
  write(path.join(CONSUMER, 'check.ts'), `import 'attention-visualizer';
import createAttentionEngine, { type AttentionInputError, type TypedMultiHeadResult } from 'attention-visualizer/engine';

const v = document.querySelector('attention-visualizer');
if (v) {
  v.addEventListener('change', (event) => console.log(event.detail.state.view.step));
  v.state = { causal: true, view: { step: 'softmax' } };
  v.state = location.hash.slice(1); // a share link's hash, as React 19 sets <attention-visualizer state="av1…"/>
  v.ready.then((shown) => console.log(shown.result?.output));
  const weights: number[][] | Float64Array[] | undefined = v.result?.heads[0].weights;
  const code: string = v.embedCode('iframe');
  console.log(weights, code);
  // @ts-expect-error: a step id
  v.state = { view: { step: 'soft' } };
}
const engine = await createAttentionEngine();
const out: number[][] = engine.compute({ x: [[1, 0]], wq: [[1], [0]], wk: [[1], [0]], wv: [[1], [0]] }).output;
const typed: TypedMultiHeadResult = engine.compute({ x: [[1, 0]], heads: [{ wq: [[1], [0]], wk: [[1], [0]], wv: [[1], [0]] }], causal: true }, { typed: true });
console.log(out, typed.concat.data, typed.masked?.data);
try {
  // @ts-expect-error: x is a matrix
  engine.compute({ x: 'a', wq: [[1]], wk: [[1]], wv: [[1]] });
} catch (error) {
  console.log((error as AttentionInputError).code, (error as AttentionInputError).row);
}
const worker = createAttentionEngine.startWorker();
const w = await worker.compute({ x: [[1, 0]], wq: [[1], [0]], wk: [[1], [0]], wv: [[1], [0]] });
const data: Float64Array = w.weights.data;
console.log(data);
worker.recycle(w);
// @ts-expect-error: a result, not a matrix
worker.recycle(w.weights);
worker.terminate();
`);
  write(path.join(CONSUMER, 'view.tsx'), `import 'attention-visualizer';
import type {} from 'attention-visualizer/react';
import { useRef } from 'react';
import type { AttentionVisualizer } from 'attention-visualizer';

export function Demo() {
  const ref = useRef<AttentionVisualizer>(null);
  return <attention-visualizer ref={ref} sentence="我爱你" step="softmax" editable theme="dark" key-padding="0,0,1" />;
}
// @ts-expect-error: theme is auto, light or dark
export const Wrong = () => <attention-visualizer theme="blue" />;
`);
}

// Hugo: the package's shortcode, the site under /blog/, two elements on one page.
async function buildHugo() {
  const site = path.join(DIR, 'hugo');
  write(path.join(site, 'hugo.toml'), 'baseURL = "https://example.org/blog/"\ntitle = "Attention"\n');
  write(path.join(site, 'layouts/_default/baseof.html'), `<!doctype html><html lang="en"><head>${HEAD}<title>{{ .Title }}</title></head><body>{{ block "main" . }}{{ end }}</body></html>\n`);
  write(path.join(site, 'layouts/_default/single.html'), '{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}\n');
  write(path.join(site, 'layouts/_default/list.html'), '{{ define "main" }}{{ range .Pages }}<h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>{{ .Summary }}{{ end }}{{ end }}\n');
  const attrs = `sentence="我爱你" x="${JSON.stringify(TUTORIAL.x)}" wq="${JSON.stringify(TUTORIAL.wq)}" wk="${JSON.stringify(TUTORIAL.wk)}" wv="${JSON.stringify(TUTORIAL.wv)}"`;
  write(path.join(site, 'content/posts/attention.md'), `---
title: Attention
---
The output step:

{{< attention-visualizer ${attrs} step="output" lang="en" editable="true" >}}

And the weights, with \`tokens\` as a raw string:

{{< attention-visualizer tokens=\`["I","love","you"]\` step="softmax" lang="en" >}}
`);
  cpSync(path.join(PACKAGE, 'hosts/hugo/layouts/shortcodes'), path.join(site, 'layouts/shortcodes'), { recursive: true });
  cpSync(path.join(PACKAGE, 'dist'), path.join(site, 'static/attention-visualizer'), { recursive: true });
  await run('hugo', ['--source', site, '--destination', path.join(WWW_CSP, 'blog'), '--quiet']);
}

// MkDocs: the package's recipe, the site under /docs/.
async function buildMkdocs() {
  const site = path.join(DIR, 'mkdocs');
  cpSync(path.join(PACKAGE, 'hosts/mkdocs'), site, { recursive: true });
  cpSync(path.join(PACKAGE, 'dist'), path.join(site, 'docs/attention-visualizer'), { recursive: true });
  await run('mkdocs', ['build', '--quiet', '--config-file', path.join(site, 'mkdocs.yml'), '--site-dir', path.join(WWW, 'docs')]);
}

// Jupyter: the package's helper writes two outputs (the first with the script) into a
// notebook; nbconvert's HTML (lab template) loads RequireJS, here from a local copy.
async function buildNotebook() {
  const dir = path.join(WWW, 'notebook');
  mkdirSync(dir, { recursive: true });
  const notebook = path.join(dir, 'attention.ipynb');
  const script = `
import sys, nbformat
sys.path.insert(0, sys.argv[1])
from attention_visualizer import show
x = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
cells = [nbformat.v4.new_markdown_cell("# 我爱你")]
for source, view in [
    ("show(sentence='我爱你', x=x, ..., editable=True)", show(sentence="我爱你", x=x, wq=[[0.5, 0.2], [0.1, 0.6]], wk=[[0.4, 0.3], [0.2, 0.7]], wv=[[0.8, 0.1], [0.3, 0.9]], step="output", lang="en", editable=True)),
    ("show(sentence='我爱你', step='softmax', key_padding=[False, False, True])", show(sentence="我爱你", step="softmax", key_padding=[False, False, True], lang="zh")),
]:
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": view._repr_html_(), "text/plain": "<attention-visualizer>"})]
    cells.append(cell)
nbformat.write(nbformat.v4.new_notebook(cells=cells), sys.argv[2])
`;
  await run('/usr/bin/python3', ['-c', script, path.join(PACKAGE, 'hosts/python'), notebook]);
  copyFileSync('/usr/share/javascript/requirejs/require.js', path.join(dir, 'require.js'));
  // the template's MathJax (not the element's) would come from a CDN: an empty local stand-in
  writeFileSync(path.join(dir, 'mathjax.js'), '');
  writeFileSync(path.join(WWW, 'favicon.ico'), ''); // the template links no icon: the site has one at its root
  await run('/usr/bin/python3', ['-m', 'nbconvert', '--to', 'html', '--log-level', 'ERROR', '--HTMLExporter.require_js_url=require.js',
    '--HTMLExporter.mathjax_url=mathjax.js', notebook]);
}

// reveal.js: the package's example deck with reveal.js's own dist/.
function buildDeck() {
  const dir = path.join(WWW_CSP, 'deck');
  cpSync(path.join(PACKAGE, 'hosts/reveal'), dir, { recursive: true });
  cpSync(path.join(ROOT, 'node_modules/reveal.js/dist'), path.join(dir, 'reveal'), { recursive: true });
  copyFileSync(path.join(PACKAGE, 'dist/attention-visualizer.js'), path.join(dir, 'attention-visualizer.js'));
}

let browser = null;
let typescript = null;
const servers = {};
before(async () => {
  writeConsumer();
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', DIR], { cwd: ROOT });
  const tarball = path.join(DIR, JSON.parse(stdout)[0].filename);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: CONSUMER });
  typescript = run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(CONSUMER, 'tsconfig.json')]).then(() => null, (error) => error);
  await viteBuild({ root: CONSUMER, configFile: false, logLevel: 'warn' });
  await esbuild({ entryPoints: [path.join(CONSUMER, 'main.js')], bundle: true, outfile: path.join(CONSUMER, 'out/main.js'), logLevel: 'warning' });
  await Promise.all([buildHugo(), buildMkdocs(), buildNotebook()]);
  buildDeck();
  browser = await launchChromium();
  const csp = { 'Content-Security-Policy': HOST_CSP };
  servers.vite = await startServer({ root: path.join(CONSUMER, 'dist'), headers: csp });
  servers.consumer = await startServer({ root: CONSUMER, headers: csp });
  servers.csp = await startServer({ root: WWW_CSP, headers: csp });
  servers.plain = await startServer({ root: WWW });
});
after(async () => {
  await browser?.close();
  for (const server of Object.values(servers)) await server.close();
});

// Types " happy" (a space: a deck's "next") at the end of the first element's sentence (one token a character, as
// 我爱你 is tokenized) and presses Enter: the element
// takes it, the host sees no key.
async function typeInElement(host) {
  const sentence = host.page.locator('attention-visualizer #sentence').first();
  await sentence.click();
  await sentence.press('End');
  await host.page.keyboard.type(' happy');
  await sentence.press('Enter');
  await host.page.waitForFunction(() => document.querySelector('attention-visualizer').state.tokens.join('').endsWith('happy'));
  assert.deepEqual(await host.hostKeys(), []);
}

// The checks every host gets; `csp`: served under the documented policy.
async function checkHost(url, { csp, extra } = {}) {
  const host = await openHost(browser, url);
  try {
    await assertWorkedExample(host.page);
    await typeInElement(host);
    if (extra) await extra(host);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
    if (csp) assert.deepEqual(await host.violations(), []);
  } finally {
    await host.context.close();
  }
}

test('npm pack holds dist/, types and the host snippets; the package is public with exports', () => {
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  assert.equal(pkg.private, undefined);
  assert.deepEqual(Object.keys(pkg.exports['./engine']), ['import', 'require']);
  for (const file of ['dist/attention-visualizer.js', 'dist/attention-visualizer.mjs', 'dist/attention-engine.js', 'dist/attention-engine.mjs',
    'dist/embed.html', 'types/attention-visualizer.d.ts', 'types/attention-engine.d.ts', 'types/react.d.ts', 'hosts/python/attention_visualizer/__init__.py',
    'hosts/hugo/layouts/shortcodes/attention-visualizer.html', 'hosts/mkdocs/mkdocs.yml', 'docs/authoring.md']) {
    assert.ok(readFileSync(path.join(PACKAGE, file)).length > 0, file);
  }
  // nothing in the ES modules a bundler would have to resolve (fs, path, a .wasm beside them)
  for (const file of ['dist/attention-engine.mjs', 'dist/attention-visualizer.mjs']) {
    const text = readFileSync(path.join(PACKAGE, file), 'utf8');
    assert.ok(!/\brequire\(|import\.meta/.test(text), file);
  }
});

test('TypeScript: tsc --noEmit --strict on a consumer of the element, the engine, the worker and React JSX', async () => {
  const error = await typescript;
  assert.equal(error, null, error && `${error.stdout}${error.stderr}`);
});

test('Vite production build, no configuration: the element, its worker, under the documented CSP', async () => {
  await checkHost(servers.vite.url, {
    csp: true,
    extra: async ({ page }) => assert.ok(Math.abs(await page.evaluate(() => window.workerOutput) - OUTPUT_00) <= 1e-12),
  });
});

test('Vite dev server: the engine alone by its default export', async () => {
  const server = await viteServer({ root: CONSUMER, configFile: false, logLevel: 'warn', server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  const host = await openHost(browser, new URL('engine.html', server.resolvedUrls.local[0]).href);
  try {
    await host.page.waitForFunction(() => document.querySelector('output').textContent !== '', null, { timeout: 60000 });
    assert.ok(Math.abs(Number(await host.page.textContent('output')) - OUTPUT_00) <= 1e-12);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
    await server.close();
  }
});

test('esbuild bundle, no externals: the element and its worker, under the documented CSP', async () => {
  await checkHost(`${servers.consumer.url}esbuild.html`, {
    csp: true,
    extra: async ({ page }) => assert.ok(Math.abs(await page.evaluate(() => window.workerOutput) - OUTPUT_00) <= 1e-12),
  });
});

test('the classic script next to RequireJS and a page\'s `module` variable defines its global and leaves theirs alone', async () => {
  await checkHost(`${servers.consumer.url}requirejs.html`, {
    csp: true,
    extra: async ({ page }) => {
      const globals = await page.evaluate(() => [typeof globalThis.createAttentionEngine, typeof requirejs, JSON.stringify(globalThis.module)]);
      assert.deepEqual(globals, ['function', 'function', '{"exports":{}}']);
    },
  });
});

test('Hugo: the shortcode, the site under /blog/, the script once per page, under the documented CSP', async () => {
  const html = readFileSync(path.join(WWW_CSP, 'blog/posts/attention/index.html'), 'utf8');
  assert.equal(html.match(/<script src="\/blog\/attention-visualizer\/attention-visualizer.js"><\/script>/g).length, 1);
  assert.equal(html.match(/<attention-visualizer /g).length, 2);
  await checkHost(`${servers.csp.url}blog/posts/attention/`, {
    csp: true,
    extra: async ({ page }) => assert.deepEqual(await page.evaluate(() => document.querySelectorAll('attention-visualizer')[1].state.tokens), ['I', 'love', 'you']),
  });
});

test('MkDocs: the recipe, the site under /docs/; keys typed in the element never open the site search', async () => {
  await checkHost(`${servers.plain.url}docs/attention/`, {
    extra: async (host) => {
      const searchShown = () => host.page.evaluate(() => document.querySelector('#mkdocs_search_modal').classList.contains('show'));
      assert.equal(await searchShown(), false); // " happy", typed in the element, holds no s, but "s" below does
      await host.page.locator('attention-visualizer #sentence').first().press('s');
      assert.equal(await searchShown(), false);
      assert.deepEqual(await host.hostKeys(), []);
      // the site's own shortcut still works outside the element
      await host.page.click('h1');
      await host.page.keyboard.press('s');
      await host.page.waitForFunction(() => document.querySelector('#mkdocs_search_modal').classList.contains('show'));
      await host.page.keyboard.press('Escape');
      await host.hostKeys();
    },
  });
});

test('Jupyter: the helper\'s outputs in nbconvert HTML, with RequireJS, offline; the script inlined once', async () => {
  const html = readFileSync(path.join(WWW, 'notebook/attention.html'), 'utf8');
  assert.equal(html.match(/customElements\.define\("attention-visualizer"/g).length, 1);
  assert.match(html, /<script src="require.js"><\/script>/);
  await checkHost(`${servers.plain.url}notebook/attention.html`, {
    extra: async ({ page }) => {
      assert.equal(await page.evaluate(() => typeof requirejs), 'function');
      assert.deepEqual(await page.evaluate(() => document.querySelectorAll('attention-visualizer')[1].state.keyPadding), [false, false, true]);
    },
  });
});

test('reveal.js: typing in the element and its ←/→ leave the deck where it is; its theme follows the dark slide', async () => {
  await checkHost(`${servers.csp.url}deck/`, {
    csp: true,
    extra: async (host) => {
      const { page } = host;
      const slide = () => page.evaluate(() => globalThis.Reveal.getIndices().h);
      assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.av').classList.contains('dark')), true);
      assert.equal(await slide(), 0); // " happy" typed in the element: its space did not move the deck
      await page.locator('attention-visualizer .pipeline-stage[aria-current="step"]').first().focus();
      await page.keyboard.press('ArrowLeft');
      assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.view.step), 'softmax');
      assert.deepEqual(await host.hostKeys(), []);
      assert.equal(await slide(), 0);
      // the deck's own keys still work outside the element
      await page.click('h2');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => globalThis.Reveal.getIndices().h === 1);
      await host.hostKeys();
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => globalThis.Reveal.getIndices().h === 0);
      await host.hostKeys();
    },
  });
});
