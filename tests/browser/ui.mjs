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
