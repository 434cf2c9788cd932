// The package as a static-site framework and a registry see it (issue 32, items 9 and 10), from
// the packed tarball installed offline into a scratch project: `import 'attention-visualizer'`
// under node (a server render) defines nothing and throws nothing; a VitePress site that
// imports it in its theme builds (its pages rendered in node) and, opened in Chromium, shows
// the worked example with no page error and no request outside the site.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { WORKED_ATTRIBUTES, assertWorkedExample, openHost, pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const DIR = pageFolder('package');
const CONSUMER = path.join(DIR, 'consumer');
const SITE = path.join(CONSUMER, 'site'); // VitePress itself resolves from the repository's node_modules
const write = (file, text) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

// A VitePress site as its guide sets one up for custom elements: the theme imports the package
// (so the server render imports it under node), Vue leaves the tag to the browser.
function writeSite() {
  write(path.join(SITE, '.vitepress/config.mjs'), `export default {
  title: 'Attention',
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag === 'attention-visualizer' } } },
};
`);
  write(path.join(SITE, '.vitepress/theme/index.mjs'), `import DefaultTheme from 'vitepress/theme';
import 'attention-visualizer';

export default DefaultTheme;
`);
  write(path.join(SITE, 'index.md'), `# Attention

The output step:

<attention-visualizer ${WORKED_ATTRIBUTES}></attention-visualizer>
`);
}

let browser = null;
let server = null;
let siteBuild = null;
before(async () => {
  write(path.join(CONSUMER, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  writeSite();
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', DIR], { cwd: ROOT });
  const tarball = path.join(DIR, JSON.parse(stdout)[0].filename);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: CONSUMER });
  siteBuild = run(path.join(ROOT, 'node_modules/.bin/vitepress'), ['build', SITE], { cwd: CONSUMER }).then(() => null, (error) => error);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('server-side rendering: import \'attention-visualizer\' under node throws nothing and defines nothing', async () => {
  const script = `const m = await import('attention-visualizer');
console.log(JSON.stringify([typeof m.AttentionVisualizer, typeof globalThis.customElements, typeof globalThis.createAttentionEngine]));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: CONSUMER });
  assert.deepEqual(JSON.parse(stdout), ['function', 'undefined', 'function']);
});

test('server-side rendering: a VitePress site importing the element in its theme builds, and its page shows the worked example', async () => {
  const error = await siteBuild;
  assert.equal(error, null, error && `${error.stdout}${error.stderr}`);
  const html = readFileSync(path.join(SITE, '.vitepress/dist/index.html'), 'utf8');
  assert.match(html, /<attention-visualizer sentence="我爱你"/); // rendered on the server, upgraded in the browser
  server = await startServer({ root: path.join(SITE, '.vitepress/dist') });
  const host = await openHost(browser, server.url);
  try {
    await assertWorkedExample(host.page);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
  }
});
