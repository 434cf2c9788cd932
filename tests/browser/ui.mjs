// The page's layout for its browser tests, in one place: the inputs sit in
// the "Edit the example" panel, closed at first, and the steps open from the
// stages of the pipeline diagram.

// Waits for the first computed step on screen (a fresh page opens on the weights).
export async function waitForSteps(page) {
  await page.waitForSelector('#steps .step table');
}

// Opens the edit panel unless it is open.
export async function openEditor(page) {
  if (await page.getAttribute('#edit-toggle', 'aria-expanded') !== 'true') await page.click('#edit-toggle');
}

// Opens step n (1-based) by clicking its (first) stage in the diagram.
export async function openStep(page, n) {
  await page.locator(`#pipeline .pipeline-stage[data-n="${n}"]`).first().click();
}

// The diagram's stage(s) of step n.
export const stageOf = (page, n) => page.locator(`#pipeline .pipeline-stage[data-n="${n}"]`).first();

// The count of results the page has rendered (data-render-count on <html>).
export const renders = (page) => page.evaluate(() => Number(document.documentElement.dataset.renderCount || 0));

// The steps on screen and the editor open.
export async function ready(page) {
  await waitForSteps(page);
  await openEditor(page);
}

// Types into a cell and waits for the recompute it causes.
export async function typeCell(page, selector, text) {
  const count = await renders(page);
  await page.fill(selector, text);
  await page.waitForFunction((n) => Number(document.documentElement.dataset.renderCount) > n, count);
}

// A page of the context at url, ready, with its page errors and console errors collected.
export async function newPage(context, url) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  await page.goto(url);
  await ready(page);
  return { page, problems };
}
