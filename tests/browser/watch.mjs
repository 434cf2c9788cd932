// What a hostile input could make happen in a page, recorded for the tests
// that feed such inputs (security.test.mjs, hostile.test.mjs).
import assert from 'node:assert/strict';

// A context whose pages record dialogs, CSP violations, page errors,
// whether a payload ran (window.__pwned) and the longest task that blocked
// the main thread (window.__longest, ms). local: browserAndServer()'s.
export async function watchedContext(local, { bypassCSP = false, locale = 'en-US' } = {}) {
  const context = await local.browser.newContext({ locale, bypassCSP });
  const seen = { dialogs: [], errors: [] };
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  context.on('page', (page) => {
    page.on('dialog', (dialog) => { seen.dialogs.push(dialog.message()); dialog.dismiss(); });
    page.on('pageerror', (error) => seen.errors.push(error.message));
  });
  return { context, seen };
}

export async function assertInert(page, seen, label) {
  const { pwned, violations, injected } = await page.evaluate(() => ({
    pwned: window.__pwned,
    violations: window.__violations,
    // nodes a payload would have made if parsed as HTML, in the page or any shadow root
    injected: [document, ...[...document.querySelectorAll('*')].map((n) => n.shadowRoot).filter(Boolean)]
      .flatMap((root) => [...root.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload], a[href^="javascript:"]')]).length,
  }));
  assert.equal(pwned, undefined, `${label}: a payload ran`);
  assert.deepEqual(violations, [], `${label}: CSP violations`);
  assert.equal(injected, 0, `${label}: payload markup became elements`);
  assert.deepEqual(seen.dialogs, [], `${label}: dialogs`);
  assert.deepEqual(seen.errors, [], `${label}: page errors`);
}

// Runs in the page: the text a node shows, with the whole text of labels
// shown cut short (their title).
export function shownText(node) {
  return [node.textContent, ...[...node.querySelectorAll('[title]')].map((n) => n.title)].join('\n');
}

// The longest task since the last call (or the page's start), in ms, once
// the tasks running now have ended and been reported.
export async function longestTask(page) {
  return page.evaluate(() => new Promise((resolve) => {
    setTimeout(() => {
      resolve(window.__longest);
      window.__longest = 0;
    }, 50);
  }));
}
