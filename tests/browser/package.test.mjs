// The package as a static-site framework and a registry see it (issue 32, items 9 and 10), from
// the packed tarball installed offline into a scratch project: `import 'attention-visualizer'`
// under node (a server render) defines nothing and throws nothing; a VitePress site that
// imports it in its theme builds (its pages rendered in node) and, opened in Chromium, shows
// the worked example with no page error and no request outside the site. Publishable:
// `npm publish --dry-run` warns of nothing but the missing login, the tarball holds its
// LICENSE and every file and heading its Markdown links to, and its Custom Elements Manifest
// and VS Code custom data are what scripts/make-element-data.mjs writes, listing the
// attributes the built element observes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { elementData } from '../../scripts/make-element-data.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { WORKED_ATTRIBUTES, assertWorkedExample, openHost, pageFolder } from './host-pages.mjs';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const DIR = pageFolder('package');
const CONSUMER = path.join(DIR, 'consumer');
const SITE = path.join(CONSUMER, 'site'); // VitePress itself resolves from the repository's node_modules
const PACKAGE = path.join(CONSUMER, 'node_modules/attention-visualizer');
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

test('npm publish --dry-run warns of nothing but the login a dry run has not got', async () => {
  const { stdout, stderr } = await run('npm', ['publish', '--dry-run', '--ignore-scripts', '--offline', '--json'], { cwd: ROOT });
  const warnings = stderr.split('\n').filter((line) => /\bwarn\b/i.test(line) && !/requires you to be logged in/.test(line));
  assert.deepEqual(warnings, []);
  const [{ files: packed }] = Object.values(JSON.parse(stdout.slice(stdout.indexOf('{'))));
  const files = packed.map((f) => f.path);
  for (const file of ['LICENSE', 'README.md', 'docs/api.md', 'docs/screenshot.png', 'custom-elements.json', 'vscode.html-custom-data.json']) {
    assert.ok(files.includes(file), file);
  }
});

test('the package is self-contained: MIT LICENSE, and every file and heading its Markdown links to is in it', () => {
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(path.join(PACKAGE, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} /);
  // GitHub's anchors: lower case, punctuation dropped, each space a hyphen, repeats numbered
  const anchors = (file) => {
    const seen = new Map();
    const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    return new Set([...text.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => {
      const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
      const n = seen.get(slug) || 0;
      seen.set(slug, n + 1);
      return n ? `${slug}-${n}` : slug;
    }));
  };
  const markdown = ['README.md', ...readdirSync(path.join(PACKAGE, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const broken = [];
  for (const file of markdown) {
    const text = readFileSync(path.join(PACKAGE, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // an address outside the package
      const [rel, fragment] = target.split('#');
      const linked = rel ? path.join(PACKAGE, path.dirname(file), rel) : path.join(PACKAGE, file);
      if (!linked.startsWith(PACKAGE + path.sep) || !existsSync(linked)) broken.push(`${file}: ${target}`);
      else if (fragment && !anchors(linked).has(decodeURIComponent(fragment))) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(markdown.length >= 3, markdown.join(', '));
});

test('custom-elements.json and the VS Code custom data are what make-element-data writes, with the attributes the element observes; the Hugo shortcode and the Jupyter helper take the same', async () => {
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  for (const [file, text] of Object.entries(elementData())) {
    assert.equal(readFileSync(path.join(ROOT, file), 'utf8'), text, `${file}: run node scripts/make-element-data.mjs`);
    assert.equal(readFileSync(path.join(PACKAGE, file), 'utf8'), text, `${file} in the package`);
  }
  const manifest = JSON.parse(readFileSync(path.join(PACKAGE, pkg.customElements), 'utf8'));
  const [declaration] = manifest.modules[0].declarations;
  assert.equal(declaration.tagName, 'attention-visualizer');
  assert.ok(existsSync(path.join(PACKAGE, manifest.modules[0].path)));
  // the runtime's own list: the class the package exports, imported under node
  const script = "const { AttentionVisualizer } = await import('attention-visualizer'); console.log(JSON.stringify(AttentionVisualizer.observedAttributes));";
  const observed = JSON.parse((await run(process.execPath, ['--input-type=module', '-e', script], { cwd: CONSUMER })).stdout);
  // mode is read once, when first connected, so never observed
  assert.deepEqual(declaration.attributes.map((a) => a.name), [...observed, 'mode']);
  const vscode = JSON.parse(readFileSync(path.join(PACKAGE, 'vscode.html-custom-data.json'), 'utf8'));
  assert.deepEqual(vscode.tags[0].attributes.map((a) => a.name), [...observed, 'mode']);
  assert.ok(declaration.attributes.every((a) => a.description && a.type.text), 'each attribute described and typed');
  // the Hugo shortcode passes on exactly the observed attributes
  const shortcode = readFileSync(path.join(PACKAGE, 'hosts/hugo/layouts/shortcodes/attention-visualizer.html'), 'utf8');
  const listed = shortcode.match(/\$attributes := slice ([\s\S]*?) -\}\}/)[1].match(/"[^"]+"/g).map((name) => JSON.parse(name));
  assert.deepEqual(listed.sort(), [...observed].sort());
  // and the Jupyter helper takes exactly them as keywords (- as _)
  const helper = readFileSync(path.join(PACKAGE, 'hosts/python/attention_visualizer/_attributes.py'), 'utf8');
  const keywords = [...helper.matchAll(/^(?:MATRICES|JSON|LISTS|BOOLEANS|TEXTS) = \{([^}]*)\}/gm)].flatMap(([, set]) => set.match(/"[^"]+"/g).map((name) => JSON.parse(name)));
  assert.deepEqual(keywords.sort(), observed.map((name) => name.replace(/-/g, '_')).sort());
});
