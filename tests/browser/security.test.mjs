// Nothing runs that the user did not write (issue 6). Script-injection
// payloads reach the page, embed.html and the element through every input
// path — the URL hash (valid states whose tokens are payloads, and malformed
// hashes), element attributes, imported files (state JSON, CSV, .npy) and
// postMessage — once with the pages' Content-Security-Policy bypassed (so a
// payload parsed as HTML would really run) and once under it (so any attempt
// shows as a violation). Nothing may execute, no violation may be reported,
// the payloads must show as inert text and the page must keep working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { browserAndServer } from './local.mjs';
import { watchedContext, assertInert, shownText } from './watch.mjs';
import { openEditor } from './ui.mjs';

const DIST = path.resolve('dist');
const RUN = 'window.__pwned=1;alert(1)';
const PAYLOADS = [
  `<img src=x onerror="${RUN}">`,
  `</script><script>${RUN}</script>`,
  `javascript:${RUN}`,
  `"><svg onload="${RUN}">`,
  '\u202Eevil\u202C\u200B\u200D\u2066rtl\u2069',
  `${'long'.repeat(12)}<img src=x onerror=${RUN}>`, // 94 characters: shown cut short, whole in its title
  '👩‍👩‍👧‍👦🙂漢字',
  "{{constructor.constructor('window.__pwned=1')()}}",
];
const PAYLOAD_STATE = {
  ...tutorialState('en'),
  tokens: PAYLOADS,
  x: PAYLOADS.map((_, i) => [Math.cos(i), Math.sin(i)]),
  keyPadding: PAYLOADS.map(() => false),
};

const local = browserAndServer(DIST);
const { at } = local;

const renders = (page) => page.evaluate(() => Number(document.documentElement.dataset.renderCount || 0));

// The full page still computes: an edit of X changes the weights shown.
async function assertWorks(page) {
  const count = await renders(page);
  await page.fill('#editor-x input[data-r="0"][data-c="0"]', '3');
  await page.waitForFunction((n) => Number(document.documentElement.dataset.renderCount) > n, count);
  assert.equal(await page.evaluate(() => document.querySelector('#status .status-stale')), null, 'a fresh result, not the last good one');
}

async function fullPage(seen, context) {
  const page = await context.newPage();
  await page.goto(`${at('index.html')}#${encodeHash(PAYLOAD_STATE)}`);
  await page.waitForFunction(() => document.querySelector('#steps table.matrix'));
  await openEditor(page);
  // the tokens as text: chips, the sentence box and the row headers of X
  assert.deepEqual(await page.$$eval('#token-list input', (inputs) => inputs.map((i) => i.value)), PAYLOADS);
  assert.deepEqual(await page.$$eval('#editor-x tbody th', (ths) => ths.map((th) => th.getAttribute('aria-label') ?? th.textContent)), PAYLOADS);
  await page.click('#overview'); // every step at once: every table, label and the lines view
  await page.waitForFunction(() => document.querySelectorAll('#steps li.step').length > 1);
  const shown = await page.$eval('#steps', shownText);
  for (const payload of PAYLOADS) assert.ok(shown.includes(payload), `${payload.slice(0, 30)} shown as text`);
  await assertInert(page, seen, 'full page, payload hash');
  await assertWorks(page);

  // malformed and hostile hashes: a message, the last state stays, nothing runs
  const broken = [
    `#${encodeURIComponent(`<img src=x onerror="${RUN}">`)}`,
    '#javascript:alert(1)',
    `#av1.${Buffer.from(`{"version":1,"tokens":["<img src=x onerror=${RUN}>"],"x":[[1e999]]`).toString('base64url')}`,
    `#av1.${Buffer.from(JSON.stringify({ ...PAYLOAD_STATE, x: [[`<img src=x onerror=${RUN}>`]] })).toString('base64url')}`,
    `#av1.${Buffer.from('{"__proto__":{"polluted":1},"version":1}').toString('base64url')}`,
    '#av99.eyJ2ZXJzaW9uIjo5OX0',
    '#av1.%%%',
  ];
  for (const hash of broken) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForFunction(() => document.querySelector('#status .status-error'));
    assert.match(await page.textContent('#status .status-error'), /state is not valid/);
    assert.equal(await page.evaluate(() => ({}).polluted), undefined);
    await assertInert(page, seen, `full page, hash ${hash.slice(0, 40)}`);
  }
  await assertWorks(page);

  // imported files: a state JSON of payloads, a CSV and a .npy with payload text, a payload file name
  const drop = (files) => page.evaluate((list) => {
    const transfer = new DataTransfer();
    for (const [name, text] of list) transfer.items.add(new File([text], name));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files);
  const message = () => page.textContent('#share-tools .av-message');
  await drop([['state.json', JSON.stringify({ ...PAYLOAD_STATE, tokens: PAYLOADS.slice().reverse() })]]);
  await page.waitForFunction(() => /state\.json/.test(document.querySelector('#share-tools .av-message')?.textContent));
  assert.deepEqual(await page.$$eval('#token-list input', (inputs) => inputs.map((i) => i.value)), PAYLOADS.slice().reverse());
  const csvName = `<img src=x onerror="${RUN}">.csv`;
  await drop([[csvName, `1,2\n3,<img src=x onerror="${RUN}">\n`]]);
  await page.waitForFunction(() => /column 2/.test(document.querySelector('#share-tools .av-message').textContent));
  assert.ok((await message()).includes(csvName), 'the file name as text');
  assert.ok((await message()).includes('<img src=x onerror='), 'the bad cell as text');
  const header = `{'descr': '<img src=x onerror=${RUN}>', 'fortran_order': False, 'shape': (1, 1), }`.padEnd(117) + '\n';
  await page.evaluate((h) => {
    const bytes = new Uint8Array(10 + h.length + 8);
    bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length, 0]);
    bytes.set([...h].map((ch) => ch.charCodeAt(0)), 10);
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], 'x.npy'));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, header);
  await page.waitForFunction(() => /dtype/.test(document.querySelector('#share-tools .av-message').textContent));
  await drop([['state.json', `{"version":1,"tokens":["a"],"x":[[1,2]],"heads":[{"wq":[[1],[2]],"wk":[[1],[2]],"wv":[[1],[2]]}],"view":{"step":"</script><script>${RUN}</script>"}}`]]);
  await page.waitForFunction(() => /view\.step/.test(document.querySelector('#share-tools .av-message').textContent));
  await assertInert(page, seen, 'full page, imports');
  await assertWorks(page);
  await page.close();
}

async function embedPage(seen, context) {
  const page = await context.newPage();
  await page.goto(`${at('embed.html')}#${encodeHash(PAYLOAD_STATE)}`);
  await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
  const shadowText = async () => (await page.evaluateHandle(() => document.querySelector('attention-visualizer').shadowRoot)).evaluate(shownText);
  for (const payload of PAYLOADS) assert.ok((await shadowText()).includes(payload), `embed shows ${payload.slice(0, 30)}`);
  assert.match(await page.getAttribute('#open-full', 'href'), /^index\.html#av1\./);

  // postMessage: payloads as data, malformed and hostile messages answered with an error
  await page.evaluate(() => {
    window.__replies = [];
    window.addEventListener('message', (e) => { if (e.data && /:(state|error)$/.test(e.data.type)) window.__replies.push(e.data); });
  });
  const messages = [
    { type: 'attention-visualizer:set', state: { tokens: PAYLOADS.slice(0, 3), x: [[1, 0], [0, 1], [1, 1]], keyPadding: [false, false, false] }, id: 1 },
    { type: `attention-visualizer:<img src=x onerror="${RUN}">`, id: 2 },
    { type: 'attention-visualizer:set', state: `<script>${RUN}</script>`, id: 3 },
    { type: 'attention-visualizer:set', state: { tokens: `<img src=x onerror="${RUN}">` }, id: 4 },
    { type: 'attention-visualizer:set', state: { tokens: ['a', 'b', 'c'] }, [`javascript:${RUN}`]: 1, id: 5 },
    { type: 'attention-visualizer:set', state: { view: { step: `"><svg onload="${RUN}">` } }, id: 6 },
    { type: 'attention-visualizer:get', id: `<img src=x onerror="${RUN}">` },
  ];
  for (const m of messages) await page.evaluate((data) => window.postMessage(data, '*'), m);
  await page.evaluate(() => window.postMessage(JSON.parse('{"type":"attention-visualizer:set","state":{"__proto__":{"polluted":1}},"id":8}'), '*'));
  await page.evaluate(() => window.postMessage(`<img src=x onerror="window.__pwned=1">`, '*'));
  await page.waitForFunction(() => window.__replies.length >= 8);
  const replies = await page.evaluate(() => window.__replies);
  const kinds = Object.fromEntries(replies.map((r) => [String(r.id).slice(0, 4), r.type.split(':')[1]]));
  assert.deepEqual(kinds, { 1: 'state', 2: 'error', 3: 'error', 4: 'error', 5: 'error', 6: 'error', '<img': 'state', 8: 'error' });
  assert.equal(await page.evaluate(() => ({}).polluted), undefined);
  for (const payload of PAYLOADS.slice(0, 3)) assert.ok((await shadowText()).includes(payload));
  await assertInert(page, seen, 'embed.html');
  await page.close();
}

async function elementAttributes(seen, context) {
  const page = await context.newPage();
  await page.goto(at('examples/tutorial.html'));
  await page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result));
  await page.evaluate(([payloads, run]) => {
    const add = (attributes) => {
      const v = document.createElement('attention-visualizer');
      for (const [name, value] of Object.entries(attributes)) v.setAttribute(name, value);
      v.className = 'hostile';
      document.body.append(v);
    };
    add({ tokens: JSON.stringify(payloads), x: payloads.map((_, i) => `${i} 1`).join(';'), editable: '' });
    add({ sentence: payloads.join(' '), tokenize: 'space', x: payloads.flatMap((p) => p.split(/\s+/)).map(() => '1 0').join(';') });
    add({ x: `<img src=x onerror="${run}">`, lang: 'en' });
    add({ state: `{"version":1,"tokens":["</script><script>${run}</script>"]}`, lang: 'en' });
    add({ state: `javascript:${run}`, lang: `"><svg onload="${run}">`, step: `<img src=x onerror="${run}">`,
      panels: `<script>${run}</script>`, theme: `"><svg onload="${run}">`, steps: `javascript:${run}`, decimals: `${run}`, head: '1e9' });
    add({ 'key-padding': `true,<b>${run}</b>,false`, lang: 'en' }); // not read as false: an error
  }, [PAYLOADS, RUN]);
  // appended at the end of the tutorial, far below: started as a script starts them (el.ready)
  await page.evaluate(() => Promise.all([...document.querySelectorAll('attention-visualizer.hostile')].map((v) => v.ready.catch(() => {}))));
  await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
  const roots = await page.$$eval('attention-visualizer.hostile', (list) => list.length);
  const texts = [];
  for (let i = 0; i < roots; i++) {
    texts.push(await (await page.evaluateHandle((k) => document.querySelectorAll('attention-visualizer.hostile')[k].shadowRoot, i)).evaluate(shownText));
  }
  for (const payload of PAYLOADS) assert.ok(texts[0].includes(payload), `element shows ${payload.slice(0, 30)}`);
  assert.match(texts[2], /Attribute x is not valid: “x” has <img at row 1, column 1: a finite number is expected\./);
  assert.match(texts[3], /Attribute state is not valid/);
  assert.match(texts[4], /Attribute state is not valid/);
  assert.match(texts[5], /Attribute key-padding is not valid: entry 2, “<b>.*”, must be true, false, 1 or 0\./);
  await assertInert(page, seen, 'element attributes');
  await page.close();
}

for (const bypassCSP of [true, false]) {
  test(`payloads through the hash, files, postMessage and attributes stay text (${bypassCSP ? 'CSP bypassed' : 'under the CSP'})`, async () => {
    const { context, seen } = await watchedContext(local, { bypassCSP });
    try {
      await fullPage(seen, context);
      await embedPage(seen, context);
      await elementAttributes(seen, context);
    } finally {
      await context.close();
    }
  });
}

test('every page carries a strict Content-Security-Policy and no inline script', () => {
  for (const file of ['index.html', 'embed.html', 'examples/tutorial.html']) {
    const html = readFileSync(path.join(DIST, file), 'utf8');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
    assert.ok(csp, `${file}: CSP`);
    const directives = Object.fromEntries(csp[1].split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    assert.deepEqual(directives['default-src'], ["'none'"], file);
    assert.deepEqual(directives['script-src'], ["'self'", "'wasm-unsafe-eval'"], file);
    assert.deepEqual(directives['base-uri'], ["'none'"], file);
    assert.deepEqual(directives['form-action'], ["'none'"], file);
    // workers only from blob: URLs (the page's engine worker is made from its own script's text)
    if (directives['worker-src']) assert.deepEqual(directives['worker-src'], ['blob:'], file);
    for (const [name, values] of Object.entries(directives)) {
      const allowed = name === 'worker-src' ? ['blob:'] : ["'none'", "'self'", "'wasm-unsafe-eval'", 'data:'];
      for (const v of values) assert.ok(allowed.includes(v), `${file}: ${name} ${v}`);
    }
    assert.deepEqual([...html.matchAll(/<script\b([^>]*)>/g)].filter((m) => !/\bsrc="[^":]+"/.test(m[1])), [], `${file}: inline script`);
    assert.doesNotMatch(html, /\son[a-z]+=|javascript:/i, `${file}: inline handler`);
  }
});
