// For the tests of host pages (authoring.test.mjs, hosts.test.mjs): a page opened in Chromium
// that records what a host would suffer: page errors, console errors, Content-Security-Policy
// violations, requests, and the key events that reach the host (window, bubbling).
// The worked example's true output comes from tests/js/fixtures.mjs, never from the engine.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { TUTORIAL, TUTORIAL_EXPECTED } from '../js/fixtures.mjs';

export const DIST = path.resolve('dist');
export { TUTORIAL };
export const OUTPUT_00 = TUTORIAL_EXPECTED.output[0][0]; // 0.55117…, shown as 0.5512

// The policy docs/authoring.md gives as the least a host must allow, as a response header.
export const HOST_CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src blob:";

// The worked example as element attributes (step: output, so that its Output table shows).
export const WORKED_ATTRIBUTES = `sentence="我爱你" x="${JSON.stringify(TUTORIAL.x)}" wq="${JSON.stringify(TUTORIAL.wq)}" `
  + `wk="${JSON.stringify(TUTORIAL.wk)}" wv="${JSON.stringify(TUTORIAL.wv)}" step="output" lang="en"`;

// A fresh folder under build/ for a test's pages; `links` are dist files linked into it.
export function pageFolder(name, links = []) {
  const dir = path.resolve('build/test-hosts', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of links) symlinkSync(path.join(DIST, file), path.join(dir, path.basename(file)));
  return dir;
}

function recorder() {
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
  }, true);
  window.__hostKeys = [];
  for (const type of ['keydown', 'keypress', 'keyup']) {
    window.addEventListener(type, (event) => window.__hostKeys.push(`${type} ${event.key}`));
  }
}

// Opens `url` in a new context; `site` is the address prefix of the site's own requests.
export async function openHost(browser, url, { site = new URL('/', url).href, colorScheme = 'light', init } = {}) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, colorScheme });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  page.on('request', (request) => requests.push(request.url()));
  await page.addInitScript(recorder);
  if (init) await page.addInitScript(init);
  await page.goto(url);
  const outside = () => requests.filter((r) => !r.startsWith(site) && !r.startsWith('data:') && !r.startsWith(`blob:${new URL(site).origin}`));
  return {
    context, page, problems, outside,
    violations: () => page.evaluate(() => window.__violations),
    hostKeys: () => page.evaluate(() => window.__hostKeys.splice(0)),
  };
}

// Every element on the page has its result; the first shows the worked example's output.
export async function assertWorkedExample(page) {
  await page.waitForFunction(() => {
    const all = [...document.querySelectorAll('attention-visualizer')];
    return all.length > 0 && all.every((v) => v.result && v.shadowRoot.querySelector('table.matrix'))
      && all[0].shadowRoot.querySelector('table.matrix[data-matrix="Output"] td[data-r]');
  }, null, { timeout: 30000 });
  const { value, shown } = await page.evaluate(() => {
    const v = document.querySelector('attention-visualizer');
    const cell = v.shadowRoot.querySelector('table.matrix[data-matrix="Output"] td[data-r]');
    return { value: v.result.output[0][0], shown: cell.textContent };
  });
  assert.ok(Math.abs(value - OUTPUT_00) <= 1e-12, `output[0][0] = ${value}, expected ${OUTPUT_00}`);
  assert.equal(shown.trim(), '0.5512');
}
