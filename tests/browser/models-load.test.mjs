// engine/models.js in Chromium: the shipped models load on demand from dist/models/, over http
// (fetched JSON) and from file:// (the build's script twins, since a file page may not fetch),
// under the documented host CSP; each equals the committed file, and a missing one says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { HOST_CSP, openHost, pageFolder } from './host-pages.mjs';

const DIR = pageFolder('models-load', ['models']);
const COMMITTED = JSON.parse(readFileSync('web/models/index.json', 'utf8'));
const local = {};

before(async () => {
  await build({
    stdin: { contents: "import * as m from './web/src/engine/models.js'; window.models = m;", resolveDir: path.resolve('.') },
    bundle: true, format: 'iife', outfile: path.join(DIR, 'loader.js'), logLevel: 'silent',
  });
  writeFileSync(path.join(DIR, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><script src="loader.js"></script></head><body></body></html>\n');
  local.server = await startServer({ root: DIR, headers: { 'Content-Security-Policy': HOST_CSP } });
  local.browser = await launchChromium();
});
after(async () => {
  await local.browser?.close();
  await local.server?.close();
});

// every model of the index, loaded in the page: its name, vocab size and dModel
async function loadAll(page) {
  return page.evaluate(async () => {
    const base = new URL('models/', location.href);
    const index = await window.models.loadModelIndex(base);
    const models = await Promise.all(index.map((e) => window.models.loadModel(base, e.file)));
    const again = await window.models.loadModel(base, index[0].file);
    return {
      names: index.map((e) => e.name),
      models: models.map((m) => ({ name: m.name, vocab: m.vocab.length, dModel: m.dModel, layers: m.layers.length })),
      cached: again === models[0],
      scripts: document.querySelectorAll('script').length,
    };
  });
}

const expected = () => COMMITTED.map(({ file }) => {
  const m = JSON.parse(readFileSync(path.join('web/models', file), 'utf8'));
  return { name: m.name, vocab: m.vocab.length, dModel: m.dModel, layers: m.layers.length };
});

for (const [how, url] of [['http, under the host CSP', () => local.server.url], ['file://', () => pathToFileURL(path.join(DIR, 'index.html')).href]]) {
  test(`the shipped models load on demand over ${how}, each the committed file, asked twice loaded once`, async () => {
    const host = await openHost(local.browser, url(), { site: url().startsWith('file:') ? pathToFileURL(DIR).href : url() });
    try {
      const got = await loadAll(host.page);
      assert.deepEqual(got.names, COMMITTED.map((e) => e.name));
      assert.deepEqual(got.models, expected());
      assert.equal(got.cached, true);
      assert.equal(got.scripts, 1, 'the script twins are removed once read');
      assert.deepEqual(host.problems, []);
      assert.deepEqual(await host.violations(), []);
      assert.deepEqual(host.outside(), []);
      const missing = await host.page.evaluate(() => window.models.loadModel(new URL('models/', location.href), 'none.json').then(() => null, (e) => ({ code: e.code, message: e.message })));
      assert.equal(missing.code, 'load');
      assert.match(missing.message, /models\/none\.js(on)? could not be loaded/);
      const named = await host.page.evaluate(() => window.models.loadModel(new URL('models/', location.href), '../x.json').then(() => null, (e) => e.code));
      assert.equal(named, 'choice');
    } finally {
      await host.context.close();
    }
  });
}
