// What a hostile input could make happen in a page, recorded for the tests
// that feed such inputs (security.test.mjs, hostile.test.mjs).
import assert from 'node:assert/strict';

// A context whose pages record dialogs, CSP violations, page errors and
// whether a payload ran (window.__pwned). local: browserAndServer()'s.
export async function watchedContext(local, { bypassCSP = false, locale = 'en-US' } = {}) {
  const context = await local.browser.newContext({ locale, bypassCSP });
  const seen = { dialogs: [], errors: [] };
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
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
