// The worksheet (issue 38, for the classroom): printing index.html (its "Print a worksheet"
// button, or the browser's Ctrl+P) gives an A4 handout of the example on screen in the page's
// language: the inputs, each step with a blank grid of the result's shape, and the answer key on a
// page of its own. Printed to PDF by Chromium (page.pdf, what the print dialog prints), its pages
// counted (pdfinfo), read (pdftotext) against the fixtures' values, and rendered (pdftoppm) to
// PNG to look at, and to PPM to check black on white in the dark scheme too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { browserAndServer } from './local.mjs';
import { waitForSteps } from './ui.mjs';
import { TUTORIAL_EXPECTED } from '../js/fixtures.mjs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';

const local = browserAndServer(path.resolve('dist'));
const OUT = path.resolve('build/worksheet');
mkdirSync(OUT, { recursive: true });
const SHOTS = '/tmp/shots-exercise';
mkdirSync(SHOTS, { recursive: true });

const pagesOf = (pdf) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))[1]);
const sizeOf = (pdf) => /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).slice(1).map(Number);
const textOf = (pdf, n) => execFileSync('pdftotext', ['-layout', '-f', String(n), '-l', String(n), pdf, '-'], { encoding: 'utf8' });

// The share of dark pixels of page n, and whether its corner is white (pdftoppm's PPM, 20 dpi).
function inkOf(pdf, n) {
  const ppm = execFileSync('pdftoppm', ['-r', '20', '-f', String(n), '-l', String(n), pdf]);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'));
  const data = ppm.subarray(header[0].length);
  let dark = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i] + data[i + 1] + data[i + 2] < 300) dark += 1;
  return { dark: dark / (data.length / 3), cornerWhite: data[0] > 245 && data[1] > 245 && data[2] > 245 };
}

async function printed(page, name) {
  const pdf = path.join(OUT, `${name}.pdf`);
  await page.pdf({ path: pdf, format: 'A4', printBackground: true });
  execFileSync('pdftoppm', ['-png', '-r', '60', pdf, path.join(SHOTS, `worksheet-${name}`)]);
  return pdf;
}

async function openPage(locale, { colorScheme = 'light', hash = '' } = {}) {
  const context = await local.browser.newContext({ locale, colorScheme, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(`${local.at('index.html?example=tutorial')}${hash}`);
  await waitForSteps(page);
  await page.waitForSelector('#worksheet .ws-title', { state: 'attached' });
  return { context, page, problems };
}

const f4 = (v) => v.toFixed(4);

test('printing gives the A4 worksheet: the inputs and blank grids on page 1, the answer key on page 2, in en and zh', async () => {
  for (const [lang, locale, scheme] of [['en', 'en-US', 'light'], ['zh', 'zh-CN', 'dark']]) {
    const { context, page, problems } = await openPage(locale, { colorScheme: scheme });
    try {
      assert.equal(await page.locator('#worksheet').isVisible(), false, 'hidden on screen');
      // the button prints (the dialog itself is the browser's)
      await page.evaluate(() => {
        window.printed = 0;
        window.print = () => { window.printed += 1; };
      });
      await page.click('#print');
      assert.equal(await page.evaluate(() => window.printed), 1);
      assert.equal(await page.textContent('#print'), lang === 'en' ? 'Print a worksheet' : '打印练习单');
      const pdf = await printed(page, `${lang}-${scheme}`);
      assert.equal(pagesOf(pdf), 2, 'one page to fill in, one of answers');
      const [w, h] = sizeOf(pdf);
      assert.ok(Math.abs(w - 595.3) < 2 && Math.abs(h - 841.9) < 2, `A4: ${w} × ${h} pt`);
      const sheet = textOf(pdf, 1);
      const key = textOf(pdf, 2);
      assert.match(sheet, lang === 'en' ? /Attention worksheet/ : /注意力练习单/);
      assert.match(sheet, lang === 'en' ? /Step 5: Output: V mixed by the weights/ : /第 5 步：输出：按权重混合 V/);
      assert.match(sheet, /我\s*爱\s*你/);
      assert.match(sheet, /W_Q \(2 × 2\)[\s\S]*0\.5\s+0\.2/, 'the inputs, as given');
      for (const name of ['Q (3 × 2)', 'K (3 × 2)', 'V (3 × 2)', 'Scores (3 × 3)', 'Scaled (3 × 3)', 'Weights (3 × 3)', 'Output (3 × 2)']) {
        assert.ok(sheet.includes(name), `${name}: a grid of its shape to fill in`);
        assert.ok(key.includes(name), `${name} in the key`);
      }
      assert.doesNotMatch(sheet, lang === 'en' ? /Answer key/ : /答案\n/);
      assert.match(key, lang === 'en' ? /^\s*Answer key/ : /^\s*答案/);
      // the key's numbers are the fixtures' (numpy), to the page's 4 decimals; none is on page 1
      for (const name of ['scores', 'scaled', 'weights', 'output']) {
        for (const row of TUTORIAL_EXPECTED[name]) {
          for (const v of row) {
            assert.ok(key.includes(f4(v)), `${name} ${f4(v)} in the key`);
            assert.ok(!sheet.includes(f4(v)), `${name} ${f4(v)} not on the sheet`);
          }
        }
      }
      // black on white, the dark scheme too
      for (const n of [1, 2]) {
        const ink = inkOf(pdf, n);
        assert.ok(ink.cornerWhite && ink.dark > 0.005 && ink.dark < 0.2, `page ${n}: ${JSON.stringify(ink)}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('the worksheet of a causal example gives its masked cells; one too large to compute by hand says so', async () => {
  const causal = { ...tutorialState('en'), causal: true };
  let { context, page, problems } = await openPage('en-US', { hash: `#${encodeHash(causal)}` });
  try {
    const pdf = await printed(page, 'causal');
    const sheet = textOf(pdf, 1);
    assert.match(sheet, /Scaled \(3 × 3\)[\s\S]*−∞/, 'the masked scaled scores are given');
    assert.equal(pagesOf(pdf), 2);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  const n = 13;
  const large = { ...tutorialState('en'), tokens: Array.from({ length: n }, (_, i) => `t${i}`), x: Array.from({ length: n }, (_, i) => [i % 2, 1]) };
  ({ context, page, problems } = await openPage('en-US', { hash: `#${encodeHash(large)}` }));
  try {
    const pdf = path.join(OUT, 'large.pdf');
    await page.pdf({ path: pdf, format: 'A4' });
    assert.equal(pagesOf(pdf), 1);
    assert.match(textOf(pdf, 1), /too large for a worksheet to compute by hand \(at most 12 a side\)/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
