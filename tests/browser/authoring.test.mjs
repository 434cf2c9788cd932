// Browser tests of the element on a host page (issue 15): its key events stay inside, its theme
// follows the page it sits on, embed.html's backdrop and auto-height, a load failure that names
// its cause, and the least Content-Security-Policy docs/authoring.md documents, sent as the
// exact header (also under Trusted Types).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { tokenVector } from '../../web/src/state/vectors.js';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { HOST_CSP, TUTORIAL, WORKED_ATTRIBUTES, OUTPUT_00, assertWorkedExample, openHost, pageFolder } from './host-pages.mjs';

const DIR = pageFolder('authoring', ['attention-visualizer.js', 'embed.html', 'embed.css', 'embed.js', 'index.html', 'style.css', 'app.js']);
const page = (name, body, head = '') => writeFileSync(path.join(DIR, name),
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">${head}`
  + `<script src="attention-visualizer.js"></script></head><body>${body}</body></html>`);

page('keys.html', `<h1>Host</h1><attention-visualizer ${WORKED_ATTRIBUTES} editable></attention-visualizer>`);
page('theme.html', [
  '<div id="dark" style="background:#202124"><attention-visualizer></attention-visualizer></div>',
  '<div id="oklch" style="background:oklch(0.25 0.03 250)"><attention-visualizer></attention-visualizer></div>',
  '<div style="background:#202124"><attention-visualizer theme="light"></attention-visualizer></div>',
  '<div id="plain"><attention-visualizer></attention-visualizer></div>',
].join(''));
page('scheme.html', '<attention-visualizer></attention-visualizer>', '<meta name="color-scheme" content="light dark">');
// the host snippet of docs/authoring.md, "iframe", as written there
page('frame.html', `<iframe src="embed.html?theme=dark&amp;steps=input,output#" title="Attention" width="100%" height="300"></iframe>
<script>
window.addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'attention-visualizer:resize') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) frame.style.height = event.data.height + 'px';
  }
});
</script>`);
page('failed.html', `<attention-visualizer ${WORKED_ATTRIBUTES}></attention-visualizer><attention-visualizer lang="zh"></attention-visualizer>`);
page('worker.html', `<attention-visualizer ${WORKED_ATTRIBUTES}></attention-visualizer>`);
// issue 32.3: the documented snippet (a listener added right after the element) missed `ready`
// whenever the engine was loaded already: the second element's first result came first
page('ready.html', `<attention-visualizer lang="en"></attention-visualizer><attention-visualizer id="late" lang="en"></attention-visualizer>
<script>
window.heard = { event: false, promise: null };
const late = document.getElementById('late');
late.addEventListener('ready', () => { window.heard.event = true; });
late.ready.then((v) => { window.heard.promise = v === late && Boolean(v.result) && Boolean(v.shadowRoot.querySelector('table.matrix')); });
</script>`);
// issue 32.5: invalid display values were ignored silently; steps= left view.step on a hidden step
page('invalid.html', [
  '<attention-visualizer lang="en" steps="softmax,sofmax"></attention-visualizer>',
  '<attention-visualizer lang="en" panels="nav,formulas"></attention-visualizer>',
  '<attention-visualizer lang="en" theme="blue"></attention-visualizer>',
  '<attention-visualizer lang="en" sentence="ab cd" tokenize="letters"></attention-visualizer>',
  '<attention-visualizer lang="en" mode="Full"></attention-visualizer>',
  '<attention-visualizer lang="en" head="2"></attention-visualizer>',
  '<attention-visualizer lang="zh" theme="blue"></attention-visualizer>',
  '<attention-visualizer id="hidden" lang="en" steps="softmax" step="output"></attention-visualizer>',
].join(''));
// issue 32.8: docs/authoring.md's iframe snippet and its postMessage snippet, as printed there
const docs = readFileSync('docs/authoring.md', 'utf8');
const iframeDocs = docs.slice(docs.indexOf('## The iframe'));
const snippet = (lang, holding) => {
  const blocks = [...iframeDocs.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
  return blocks.find((block) => block.includes(holding));
};
page('docs-iframe.html', `${snippet('html', '<iframe src="embed.html')}<script>${snippet('js', "document.querySelector('iframe')")}</script>`);
// issue 32.6: mode="full" on a host page was an empty shell until load(), with the page's ids in the host's document
page('full.html', '<h1 id="title">Host</h1><attention-visualizer mode="full" lang="en" sentence="我爱你们"></attention-visualizer>'
  + '<attention-visualizer mode="full" lang="zh"></attention-visualizer>');
// issue 32.1: a sentence alone (no x), as an author writes it and as the Jupyter helper prints it
const helperMarkup = execFileSync('/usr/bin/python3', ['-c', 'import sys; sys.path.insert(0, "hosts/python"); from attention_visualizer import show; print(show(sentence="The cat sat on the mat", lang="zh").markup)'], { encoding: 'utf8' });
page('sentence.html', `<attention-visualizer sentence="The cat sat on the mat" lang="en"></attention-visualizer>${helperMarkup}`
  + '<attention-visualizer sentence="我爱你们" lang="en"></attention-visualizer>');

const servers = {};
let browser = null;
before(async () => {
  // a bundle of the element's source without the engine: what a bundler that lost it makes
  await build({ entryPoints: ['web/src/element/element.js'], bundle: true, format: 'iife', loader: { '.css': 'text' }, outfile: path.join(DIR, 'element-only.js'), logLevel: 'warning' });
  writeFileSync(path.join(DIR, 'missing.html'), `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script src="element-only.js"></script></head>
<body><attention-visualizer lang="en"></attention-visualizer><attention-visualizer lang="zh"></attention-visualizer></body></html>`);
  browser = await launchChromium();
  servers.plain = await startServer({ root: DIR });
  servers.csp = await startServer({ root: DIR, headers: { 'Content-Security-Policy': HOST_CSP } });
  servers.trusted = await startServer({ root: DIR, headers: { 'Content-Security-Policy': `${HOST_CSP}; require-trusted-types-for 'script'` } });
  servers.noWasm = await startServer({ root: DIR, headers: { 'Content-Security-Policy': "script-src 'self'" } });
});
after(async () => {
  await browser?.close();
  for (const server of Object.values(servers)) await server.close();
});

const statusText = (p) => p.evaluate(() => [...document.querySelectorAll('attention-visualizer')].map((v) => v.shadowRoot.querySelector('.status').textContent));

test('key events typed in its fields, or that it handles, never reach the host page; the element keeps working', async () => {
  const host = await openHost(browser, `${servers.plain.url}keys.html`);
  const { page: p } = host;
  try {
    await assertWorkedExample(p);
    // the recorder works: a key pressed on the host page itself reaches it
    await p.click('h1');
    await p.keyboard.press('ArrowRight');
    assert.deepEqual(await host.hostKeys(), ['keydown ArrowRight', 'keyup ArrowRight']);

    const sentence = p.locator('attention-visualizer #sentence');
    await sentence.click();
    await sentence.press('End');
    await p.keyboard.type(' happy');
    await sentence.press('Enter');
    assert.deepEqual(await host.hostKeys(), []);
    await p.waitForFunction(() => document.querySelector('attention-visualizer').state.tokens.join('').endsWith('happy'));

    // ←/→ on the diagram's current stage: the element's own steps move, the host sees nothing
    await p.locator('attention-visualizer .pipeline-stage[aria-current="step"]').first().focus();
    await p.keyboard.press('ArrowLeft');
    assert.equal(await p.evaluate(() => document.querySelector('attention-visualizer').state.view.step), 'softmax');
    await p.keyboard.press('Enter'); // activates the button
    assert.deepEqual(await host.hostKeys(), []);
    // a matrix cell's edit and its undo
    const cell = p.locator('attention-visualizer .matrix-editor input').first();
    await cell.fill('2');
    await cell.press('Enter');
    await cell.press('Control+z');
    assert.deepEqual(await host.hostKeys(), []);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('a sentence alone (no x) works: each distinct token its own made-up vector, the same token the same, with a note saying so (the Jupyter helper too)', async () => {
  const host = await openHost(browser, `${servers.plain.url}sentence.html`);
  const { page: p } = host;
  try {
    await p.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result));
    const shown = await p.evaluate(() => [...document.querySelectorAll('attention-visualizer')].map((v) => ({
      tokens: v.state.tokens, x: v.state.x, rows: v.result.output.length,
      errors: [...v.shadowRoot.querySelectorAll('.status-error')].map((e) => e.textContent),
      note: v.shadowRoot.querySelector('.status-note')?.textContent,
    })));
    const cat = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
    for (const element of shown.slice(0, 2)) {
      assert.deepEqual(element.errors, []);
      assert.deepEqual(element.tokens, cat);
      assert.equal(element.rows, 6);
      assert.deepEqual(element.x, cat.map((token) => tokenVector(token, 2)));
      assert.equal(new Set(element.x.map(String)).size, 6, 'distinct tokens, distinct vectors');
    }
    assert.match(shown[0].note, /Made-up vectors: “The”, “cat”, “sat”, “on”, “the” and 1 more had no vectors of their own/);
    assert.match(shown[1].note, /虚构的向量：“The”.*等另外 1 个词元没有自己的向量/);
    // tokens the tutorial has keep its vectors; only the new one is made up, the same in any sentence
    assert.deepEqual(shown[2].x, [[1, 0], [0.5, 0.5], [0, 1], tokenVector('们', 2)]);
    assert.match(shown[2].note, /Made-up vectors: “们” had/);
    // the state property given tokens without x: the same
    const set = await p.evaluate(() => {
      const v = document.querySelectorAll('attention-visualizer')[2];
      v.state = { tokens: ['们', '我', 'cat'] };
      return v.state.x;
    });
    assert.deepEqual(set, [tokenVector('们', 2), [1, 0], tokenVector('cat', 2)]);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

// issue 32.2: any attribute change (a site's language toggle) read every attribute again, and a move re-read them
test('a reader\'s edits and a state set by property survive lang, step, head, decimals and data-attribute changes and moves in the DOM', async () => {
  const host = await openHost(browser, `${servers.plain.url}keys.html`);
  const { page: p } = host;
  try {
    await assertWorkedExample(p);
    // the reader's edit: a cell of X typed in the editor
    const cell = p.locator('attention-visualizer .matrix-editor[id="editor-x"] input[data-r="0"][data-c="0"]');
    await cell.fill('2');
    await cell.press('Enter');
    await p.waitForFunction(() => document.querySelector('attention-visualizer').state.x[0][0] === 2);
    const seen = await p.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      v.state = { temperature: 0.5 }; // a state set by property
      const kept = () => ({ x00: v.state.x[0][0], temperature: v.state.temperature, lang: v.state.view.lang, step: v.state.view.step, decimals: v.state.view.decimals });
      const out = {};
      for (const [name, value] of [['lang', 'zh'], ['step', 'softmax'], ['head', '1'], ['decimals', '2'], ['causal', ''], ['data-note', 'x']]) {
        v.setAttribute(name, value);
        out[name] = kept();
      }
      const box = document.createElement('section');
      document.body.append(box);
      box.append(v); // moved
      out.moved = kept();
      v.remove();
      document.body.prepend(v); // re-attached
      out.reattached = { ...kept(), causal: v.state.causal, shown: v.shadowRoot.querySelectorAll('.step').length };
      return out;
    });
    const edits = { x00: 2, temperature: 0.5 };
    assert.deepEqual(seen.lang, { ...edits, lang: 'zh', step: 'output', decimals: 4 });
    assert.deepEqual(seen.step, { ...edits, lang: 'zh', step: 'softmax', decimals: 4 });
    assert.deepEqual(seen.head, seen.step);
    assert.deepEqual(seen.decimals, { ...edits, lang: 'zh', step: 'softmax', decimals: 2 });
    for (const name of ['causal', 'data-note', 'moved']) assert.deepEqual(seen[name], seen.decimals, name);
    assert.deepEqual(seen.reattached, { ...seen.decimals, causal: true, shown: 1 });
    // the cell typed is still in the editor, the steps show it
    assert.equal(await cell.inputValue(), '2');
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

// issue 32.7: a state set before the element was connected was dropped when it was
test('a state set by property before the element is connected is kept, with the attributes on top', async () => {
  const host = await openHost(browser, `${servers.plain.url}keys.html`);
  const { page: p } = host;
  try {
    await assertWorkedExample(p);
    const seen = await p.evaluate(async () => {
      const v = document.createElement('attention-visualizer');
      v.state = { temperature: 3, x: [[2, 0], [0.5, 0.5], [0, 1]], view: { step: 'scores' } };
      v.setAttribute('lang', 'en');
      const ready = new Promise((resolve) => v.addEventListener('ready', resolve));
      document.body.append(v);
      await ready;
      return { temperature: v.state.temperature, x: v.state.x, step: v.state.view.step, lang: v.state.view.lang, output: v.result.output.length };
    });
    assert.deepEqual(seen, { temperature: 3, x: [[2, 0], [0.5, 0.5], [0, 1]], step: 'scores', lang: 'en', output: 3 });
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('el.ready: a Promise resolved once the first result is on screen, whenever it is asked; rejected with the cause when the engine cannot load', async () => {
  const host = await openHost(browser, `${servers.plain.url}ready.html`);
  try {
    await host.page.waitForFunction(() => window.heard.promise !== null, null, { timeout: 30000 });
    assert.equal(await host.page.evaluate(() => window.heard.promise), true);
    // asked long after: resolved already, with the element; a new element on a page whose engine is loaded
    assert.equal(await host.page.evaluate(async () => {
      const again = await document.getElementById('late').ready;
      const v = document.createElement('attention-visualizer');
      document.body.append(v);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return again.id === 'late' && (await v.ready) === v && v.result.output.length === 3;
    }), true);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
  const missing = await openHost(browser, `${servers.plain.url}missing.html`);
  try {
    const rejected = await missing.page.evaluate(() => document.querySelector('attention-visualizer').ready.then(() => 'resolved', (error) => `${error.code}: ${error.message}`));
    assert.match(rejected, /^missing: The attention engine is missing/);
    assert.deepEqual(missing.problems, [], 'no unhandled rejection where nobody asks');
  } finally {
    await missing.context.close();
  }
});

// issue 32.4: React 19 sets the `state` property to the string of <attention-visualizer state="av1…"/>, and the setter threw
test('the state property takes a share link\'s hash and a state\'s JSON text, as React 19 sets them (before and after connecting)', async () => {
  const host = await openHost(browser, `${servers.plain.url}keys.html`);
  const { page: p } = host;
  try {
    await assertWorkedExample(p);
    const shared = { ...tutorialState('en'), temperature: 0.25, causal: true, keyPadding: [false, false, false], view: { step: 'scores', head: 0, lang: 'en', decimals: 3 } };
    const hash = encodeHash(shared);
    const seen = await p.evaluate(async (h) => {
      const pick = (v) => ({ temperature: v.state.temperature, causal: v.state.causal, step: v.state.view.step, decimals: v.state.view.decimals });
      // as React 19 does for a custom element: the property, set before the element is appended
      const v = document.createElement('attention-visualizer');
      if (!('state' in v)) return 'no state property';
      v.state = h;
      document.body.append(v);
      await v.ready;
      const out = { hash: pick(v) };
      v.state = `https://example.org/index.html#${h}`; // a whole share link
      out.link = pick(v);
      v.state = '{"temperature": 2, "view": {"step": "output"}}'; // JSON text, some fields
      out.json = pick(v);
      for (const bad of ['av1.@@@', '{"temperature": ', '{"temperature": -1}']) {
        try {
          v.state = bad;
          out[bad] = 'accepted';
        } catch (error) {
          out[bad] = `${error.name}: ${error.message}`;
        }
      }
      out.after = pick(v);
      return out;
    }, hash);
    const fromHash = { temperature: 0.25, causal: true, step: 'scores', decimals: 3 };
    assert.deepEqual(seen.hash, fromHash);
    assert.deepEqual(seen.link, fromHash);
    assert.deepEqual(seen.json, { ...fromHash, temperature: 2, step: 'output' });
    assert.equal(seen['av1.@@@'], 'TypeError: The state is not valid: the state in the link is damaged and cannot be read.');
    assert.equal(seen['{"temperature": '], 'TypeError: The state is not valid: it is not valid JSON.');
    assert.match(seen['{"temperature": -1}'], /^TypeError: .*temperature/);
    assert.deepEqual(seen.after, seen.json, 'a refused text changes nothing');
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('invalid steps, panels, theme, tokenize, mode and head values say so inside the element; steps= never leaves view.step on a hidden step; load() outside full mode checks a state and replaces the whole state', async () => {
  const host = await openHost(browser, `${servers.plain.url}invalid.html`);
  const { page: p } = host;
  try {
    await p.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result));
    const errors = await p.evaluate(() => [...document.querySelectorAll('attention-visualizer')].map((v) => [...v.shadowRoot.querySelectorAll('.status-error')].map((e) => e.textContent).join(' | ')));
    assert.deepEqual(errors, [
      'Attribute steps is not valid: “steps” has “sofmax”, which is not one of input, pe, project, scores, bias, scale, softmax, output, heads, concat, wo, learn.',
      'Attribute panels is not valid: “panels” has “formulas”, which is not one of nav, formula, explanation, work, lines, legend, notes, tools.',
      'Attribute theme is not valid: “theme” must be one of auto, light, dark.',
      'Attribute tokenize is not valid: “tokenize” must be one of char, space, word.',
      'Attribute mode is not valid: “mode” must be one of full.',
      'Attribute head is not valid: “head” must be a whole number from 1 to 1.',
      '属性 theme 无效：“theme” 要是 auto, light, dark 之一。',
      '',
    ]);
    const seen = await p.evaluate(() => {
      const v = document.getElementById('hidden');
      const shown = v.shadowRoot.querySelector('.step').dataset.step;
      const attempt = (state) => {
        try {
          v.load(state);
          return 'loaded';
        } catch (error) {
          return `${error.name}: ${error.message}`;
        }
      };
      // load() replaces the whole state where the state property merges: W_O given, then a state without it
      const plain = v.state;
      const dModel = plain.x[0].length;
      const withWo = { ...plain, wo: plain.heads[0].wv[0].map((_, i) => Array.from({ length: dModel }, (__, j) => (i === j ? 1 : 0))) };
      const loads = [attempt(withWo), Boolean(v.state.wo), attempt(plain), Boolean(v.state.wo), attempt({ tokens: ['a'] })];
      return { step: v.state.view.step, shown, embed: v.embedCode('element').includes("step='softmax'"), loads };
    });
    assert.deepEqual(seen.loads.slice(0, 4), ['loaded', true, 'loaded', false], 'load() outside full mode replaces the whole state');
    assert.match(seen.loads[4], /^TypeError: The state is not valid: version undefined is not supported/, 'a state that does not read is refused with its reason');
    assert.deepEqual({ ...seen, loads: undefined }, { step: 'softmax', shown: 'softmax', embed: true, loads: undefined });
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('the docs\' iframe and postMessage snippets work as printed; a damaged hash is said in the browser\'s language', async () => {
  assert.doesNotMatch(snippet('html', '<iframe src="embed.html'), /…/, 'no literal … in the hash');
  const host = await openHost(browser, `${servers.plain.url}docs-iframe.html`);
  const logs = [];
  host.page.on('console', (message) => logs.push(message.text()));
  try {
    await host.page.waitForFunction(() => document.querySelector('iframe').contentDocument?.querySelector('attention-visualizer')?.result);
    const frame = host.page.frames().find((f) => f.url().includes('embed.html'));
    const shown = await frame.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      return { errors: v.shadowRoot.querySelectorAll('.status-error').length, tokens: v.state.tokens.join(''), lang: v.state.view.lang };
    });
    assert.deepEqual(shown, { errors: 0, tokens: '我爱你', lang: 'en' });
    await frame.waitForFunction(() => document.querySelector('attention-visualizer').state.causal === true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(logs.includes('1 true'), `the reply to the set: ${JSON.stringify(logs)}`);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
  for (const [locale, message] of [['en-US', /^This link cannot be opened: .*damaged/], ['zh-CN', /^这个链接打不开：.*损坏/]]) {
    const context = await browser.newContext({ locale });
    try {
      const p = await context.newPage();
      await p.goto(`${servers.plain.url}embed.html#av1.eyJ2ZXJzaW9uIjox…`);
      await p.waitForFunction(() => document.querySelector('attention-visualizer').result);
      assert.match(await p.evaluate(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.status-error').textContent), message, locale);
    } finally {
      await context.close();
    }
  }
});

test('mode="full" on a host page is refused with a message saying what to use; the element shows the example, editable, in its shadow root', async () => {
  const host = await openHost(browser, `${servers.plain.url}full.html`);
  const { page: p } = host;
  try {
    await p.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result && v.shadowRoot.querySelector('table.matrix')));
    const seen = await p.evaluate(() => [...document.querySelectorAll('attention-visualizer')].map((v) => ({
      error: v.shadowRoot.querySelector('.status-error')?.textContent,
      editor: Boolean(v.shadowRoot.querySelector('#sentence')),
      lightChildren: v.children.length,
      tokens: v.state.tokens.join(''),
    })));
    assert.match(seen[0].error, /^mode="full" is only for the visualizer’s own page \(index.html\).*leave out mode, add editable for the editor, or embed index.html or embed.html in an iframe\.$/);
    assert.match(seen[1].error, /^mode="full" 只用于可视化工具自己的页面（index.html）/);
    assert.deepEqual(seen.map(({ editor, lightChildren, tokens }) => ({ editor, lightChildren, tokens })), [
      { editor: true, lightChildren: 0, tokens: '我爱你们' }, { editor: true, lightChildren: 0, tokens: '我爱你' },
    ]);
    // nothing of the page's layout in the host's document: its ids are the host's own
    assert.deepEqual(await p.evaluate(() => [...document.querySelectorAll('[id]')].map((node) => node.id)), ['title']);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
});

test('theme="auto" follows the background it sits on and the page\'s color-scheme, not only the system', async () => {
  const dark = (p) => p.evaluate(() => [...document.querySelectorAll('attention-visualizer')].map((v) => v.shadowRoot.querySelector('.av').classList.contains('dark')));
  const light = await openHost(browser, `${servers.plain.url}theme.html`, { colorScheme: 'dark' });
  try {
    // dark backgrounds (hex, oklch) → dark; theme="light" wins; a page without a scheme is light even in a dark system
    assert.deepEqual(await dark(light.page), [true, true, false, false]);
    // the host switches its own theme on <body>: the element follows
    await light.page.evaluate(() => { document.body.style.background = '#111'; });
    await light.page.waitForFunction(() => document.querySelector('#plain attention-visualizer').shadowRoot.querySelector('.av').classList.contains('dark'));
    await light.page.evaluate(() => { document.body.style.background = '#fafafa'; });
    await light.page.waitForFunction(() => !document.querySelector('#plain attention-visualizer').shadowRoot.querySelector('.av').classList.contains('dark'));
    assert.deepEqual(light.problems, []);
  } finally {
    await light.context.close();
  }
  // color-scheme "light dark": the system decides
  for (const colorScheme of ['dark', 'light']) {
    const host = await openHost(browser, `${servers.plain.url}scheme.html`, { colorScheme });
    try {
      assert.deepEqual(await dark(host.page), [colorScheme === 'dark']);
    } finally {
      await host.context.close();
    }
  }
});

test('embed.html: ?theme= sets its backdrop; it posts its height and the documented host snippet sizes the frame', async () => {
  const host = await openHost(browser, `${servers.plain.url}frame.html`, { colorScheme: 'light' });
  const { page: p } = host;
  try {
    const frame = p.frameLocator('iframe');
    await frame.locator('attention-visualizer .av.dark table.matrix').first().waitFor();
    const embed = p.frames()[1];
    assert.equal(await embed.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), 'rgb(17, 21, 28)');
    // the frame's height (inside its border) is its content's (0 until then)
    const sized = () => {
      const iframe = document.querySelector('iframe');
      const content = Math.ceil(iframe.contentDocument.documentElement.getBoundingClientRect().height);
      return iframe.clientHeight === content ? content : 0;
    };
    await p.waitForFunction(sized);
    const before = await p.evaluate(sized);
    // every step at once: taller; the frame follows, with no scroll bar inside
    await p.evaluate(() => document.querySelector('iframe').contentWindow.postMessage({ type: 'attention-visualizer:set', state: { view: { step: 'all' } } }, '*'));
    await p.waitForFunction((h) => {
      const iframe = document.querySelector('iframe');
      const content = Math.ceil(iframe.contentDocument.documentElement.getBoundingClientRect().height);
      return content > h && iframe.clientHeight === content;
    }, before);
    assert.equal(await embed.evaluate(() => document.documentElement.scrollHeight <= innerHeight), true);
    assert.deepEqual(host.problems, []);
  } finally {
    await host.context.close();
  }
  // ?theme=light in a dark system: a light backdrop
  const lightHost = await openHost(browser, `${servers.plain.url}embed.html?theme=light`, { colorScheme: 'dark' });
  try {
    await lightHost.page.waitForFunction(() => document.querySelector('attention-visualizer').result);
    assert.equal(await lightHost.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), 'rgb(255, 255, 255)');
  } finally {
    await lightHost.context.close();
  }
});

test('a load failure says its real cause in en and zh, without Emscripten\'s advice', async () => {
  const cases = [
    // a host CSP without 'wasm-unsafe-eval'
    [`${servers.noWasm.url}failed.html`, null, /Content-Security-Policy does not allow WebAssembly\. The site must add 'wasm-unsafe-eval'/, /内容安全策略/],
    // no WebAssembly in this browser
    [`${servers.plain.url}failed.html`, () => { delete globalThis.WebAssembly; }, /this browser has no WebAssembly/, /没有 WebAssembly/],
    // the element's code bundled without the engine
    [`${servers.plain.url}missing.html`, null, /The attention engine is missing: .*import 'attention-visualizer'/, /没有引擎（createAttentionEngine）/],
  ];
  for (const [url, init, en, zh] of cases) {
    const host = await openHost(browser, url, { init });
    try {
      await host.page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.shadowRoot.querySelector('.status-error')));
      const [first, second] = await statusText(host.page);
      assert.match(first, en, url);
      assert.match(second, zh, url);
      for (const text of [first, second]) assert.doesNotMatch(text, /ASSERTIONS|Aborted|may not support/);
    } finally {
      await host.context.close();
    }
  }
});

const startWorker = (input) => globalThis.createAttentionEngine.startWorker().compute(input).then(
  (r) => ({ value: r.output.data[0] }),
  (error) => ({ code: error.code, message: error.message }),
);

test('under the documented host CSP (the exact header): the element, its engine and its worker, 0 violations', async () => {
  const host = await openHost(browser, `${servers.csp.url}worker.html`);
  try {
    await assertWorkedExample(host.page);
    const { value } = await host.page.evaluate(startWorker, TUTORIAL);
    assert.ok(Math.abs(value - OUTPUT_00) <= 1e-12, String(value));
    assert.deepEqual(await host.violations(), []);
    assert.deepEqual(host.problems, []);
    assert.deepEqual(host.outside(), []);
  } finally {
    await host.context.close();
  }
});

test('under Trusted Types the element works and startWorker() rejects with code worker', async () => {
  const host = await openHost(browser, `${servers.trusted.url}worker.html`);
  try {
    await assertWorkedExample(host.page);
    const outcome = await host.page.evaluate(startWorker, TUTORIAL);
    assert.equal(outcome.code, 'worker');
    assert.match(outcome.message, /could not start/);
    // the only violation: the worker's blob: URL, which is no TrustedScriptURL
    assert.deepEqual(await host.violations(), ['require-trusted-types-for trusted-types-sink']);
  } finally {
    await host.context.close();
  }
});
