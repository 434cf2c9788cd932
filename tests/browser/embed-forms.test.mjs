// The embed code in each host's form (issue 32, item 13), copied from an element's "Export and
// share" panel as an author does (the form chosen in its list, "Copy embed code", the
// clipboard) and pasted into that host, built by the host's own tool: Hugo (the package's
// shortcode in a post: Hugo's Markdown drops raw HTML), MkDocs (the element in a page, the
// script from mkdocs.yml) and Jupyter (the cell run with the package's helper; its output in a
// page). Each opened in Chromium shows exactly the state copied — tokens with quotes, a
// backtick, `}}`, `>}}`, markup and a backslash, two heads with W_O, masks, PE, a temperature,
// the step, head, language and decimals — with no page error and no request outside the site.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { DIST, openHost, pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const DIR = pageFolder('embed-forms');
const WWW = path.join(DIR, 'www');
const HEAD = '<meta charset="utf-8"><link rel="icon" href="data:,">';
const write = (file, text) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

const TOKENS = ['it\'s', 'q"t', 'a`b', '}}', '>}}', '<b>&amp;', 'back\\slash', '我'];
const row = (i) => [Math.round(Math.sin(i + 1) * 100) / 100, Math.round(Math.cos(i + 1) * 100) / 100];
const STATE = {
  version: 1,
  tokens: TOKENS,
  x: TOKENS.map((_, i) => row(i)),
  heads: [
    { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] },
    { wq: [[1, -1], [0.5, 2]], wk: [[0.3, 0.3], [-1, 0.7]], wv: [[1, 0], [0, 1]] },
  ],
  wo: [[1, 0], [0, 1], [0.5, 0.5], [0.25, -1]],
  causal: true,
  keyPadding: TOKENS.map((_, i) => i === TOKENS.length - 1),
  scaleBySqrtDk: false,
  temperature: 0.5,
  positionalEncoding: true,
  alibi: false,
  exercise: 'weights[1][0],output[2][1]', // carried by each form (issue 38)
  guess: true, // "Guess first" too
  model: '', // (no model: the embed code names none)
  layer: 0,
  view: { step: 'scores', head: 1, lang: 'zh', decimals: 3 },
};

let browser = null;
let server = null;
const codes = {};
const sites = {};
before(async () => {
  browser = await launchChromium();
  // the author's page: the element, its tools, the state set by property
  const author = pageFolder('embed-forms-author', ['attention-visualizer.js']);
  write(path.join(author, 'index.html'), `<!doctype html><html lang="zh"><head>${HEAD}<script src="attention-visualizer.js"></script></head><body><attention-visualizer editable></attention-visualizer></body></html>\n`);
  const authorServer = await startServer({ root: author });
  const host = await openHost(browser, authorServer.url);
  try {
    await host.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(authorServer.url).origin });
    const { page } = host;
    await page.waitForFunction(() => document.querySelector('attention-visualizer')?.result);
    await page.evaluate((state) => { document.querySelector('attention-visualizer').state = state; }, STATE);
    await page.locator('attention-visualizer details.av-tools > summary').click();
    for (const form of ['hugo', 'mkdocs', 'jupyter']) {
      await page.evaluate(() => navigator.clipboard.writeText(''));
      await page.locator('attention-visualizer select[aria-label="嵌入到"]').selectOption(form);
      await page.locator('attention-visualizer').getByRole('button', { name: '复制嵌入代码', exact: true }).click();
      codes[form] = await page.evaluate(async () => {
        for (;;) {
          const text = await navigator.clipboard.readText();
          if (text !== '') return text;
          await new Promise((resolve) => { setTimeout(resolve, 20); });
        }
      });
    }
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
    await authorServer.close();
  }
  // Hugo: the package's shortcode, the code pasted into a post
  const hugo = path.join(DIR, 'hugo');
  write(path.join(hugo, 'hugo.toml'), 'baseURL = "http://example.org/blog/"\ntitle = "Attention"\n');
  write(path.join(hugo, 'layouts/_default/baseof.html'), `<!doctype html><html lang="en"><head>${HEAD}<title>{{ .Title }}</title></head><body>{{ block "main" . }}{{ end }}</body></html>\n`);
  write(path.join(hugo, 'layouts/_default/single.html'), '{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}\n');
  write(path.join(hugo, 'layouts/_default/list.html'), '{{ define "main" }}{{ .Content }}{{ end }}\n');
  cpSync(path.join(ROOT, 'hosts/hugo/layouts/shortcodes'), path.join(hugo, 'layouts/shortcodes'), { recursive: true });
  cpSync(DIST, path.join(hugo, 'static/attention-visualizer'), { recursive: true });
  write(path.join(hugo, 'content/posts/copied.md'), `---\ntitle: Copied\n---\nThe scores:\n\n${codes.hugo}\nThe end.\n`);
  sites.hugo = run('hugo', ['--source', hugo, '--destination', path.join(WWW, 'blog'), '--quiet']);
  // MkDocs: the package's recipe, the code pasted into a page
  const mkdocs = path.join(DIR, 'mkdocs');
  cpSync(path.join(ROOT, 'hosts/mkdocs'), mkdocs, { recursive: true });
  cpSync(DIST, path.join(mkdocs, 'docs/attention-visualizer'), { recursive: true });
  write(path.join(mkdocs, 'docs/copied.md'), `# Copied\n\nThe scores:\n\n${codes.mkdocs}\nThe end.\n`);
  sites.mkdocs = run('mkdocs', ['build', '--quiet', '--config-file', path.join(mkdocs, 'mkdocs.yml'), '--site-dir', path.join(WWW, 'docs')]);
  // Jupyter: the cell run with the package's helper (its script inlined); its HTML output in a page
  const notebook = path.join(WWW, 'notebook');
  mkdirSync(notebook, { recursive: true });
  const script = `import sys\nsys.path.insert(0, sys.argv[1])\n${codes.jupyter.replace(/^show\(/m, 'view = show(')}\nopen(sys.argv[2], "w", encoding="utf-8").write(view._repr_html_())\n`;
  sites.jupyter = run('/usr/bin/python3', ['-c', script, path.join(ROOT, 'hosts/python'), path.join(notebook, 'output.html')]).then(() => {
    write(path.join(notebook, 'index.html'), `<!doctype html><html lang="en"><head>${HEAD}</head><body>${readFileSync(path.join(notebook, 'output.html'), 'utf8')}</body></html>\n`);
  });
  await Promise.all(Object.values(sites));
  server = await startServer({ root: WWW });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function shows(url) {
  const host = await openHost(browser, url);
  try {
    await host.page.waitForFunction(() => document.querySelector('attention-visualizer')?.result, null, { timeout: 30000 });
    assert.deepEqual(await host.page.evaluate(() => document.querySelector('attention-visualizer').state), STATE);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
  }
}

test('Hugo: the copied shortcode, built by hugo, shows exactly the state copied', async () => {
  assert.match(codes.hugo, /^\{\{< attention-visualizer\n/);
  await shows(`${server.url}blog/posts/copied/`);
});

test('MkDocs: the copied element, built by mkdocs, shows exactly the state copied', async () => {
  assert.match(codes.mkdocs, /^<div class="attention-visualizer">\n<attention-visualizer\n/);
  await shows(`${server.url}docs/copied/`);
});

test('Jupyter: the copied cell, run with the helper, shows exactly the state copied', async () => {
  assert.match(codes.jupyter, /^from attention_visualizer import show\n/);
  await shows(`${server.url}notebook/`);
});
