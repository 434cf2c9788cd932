// Files the page saves, as the browser tests receive them.
//
// Chromium here now and then drops a download the page did start: measured
// with 200 clicks of "Download" (CSV), after some tens of downloads in one
// browser about one in eleven never reaches the download event, though the
// page clicked its <a download> and said "Saved …". trackDownloads(context)
// counts the <a download> clicks of its pages; downloaded(page, action) waits
// for the page to start its download, then clicks again, once, only if
// Chromium dropped it. A click that starts no download still fails. (With
// this wait, export.test.mjs's 80 downloads needed no second click in four
// runs; without it, its full-page test failed twice in a row on one.)
import { readFileSync } from 'node:fs';

const REPORTED_MS = 10000; // a started download is reported in well under a second

export async function trackDownloads(context) {
  await context.addInitScript(() => {
    const click = HTMLAnchorElement.prototype.click;
    window.downloadsStarted = 0;
    HTMLAnchorElement.prototype.click = function clickCounted() {
      if (this.hasAttribute('download')) window.downloadsStarted += 1;
      return click.call(this);
    };
  });
}

const saved = async (download) => ({ name: download.suggestedFilename(), bytes: readFileSync(await download.path()) });

export async function downloaded(page, action) {
  const before = await page.evaluate(() => window.downloadsStarted);
  if (typeof before !== 'number') throw new Error('downloaded(): call trackDownloads(context) before the page opens');
  let download = null;
  const reported = page.waitForEvent('download').then((d) => { download = d; }, () => {});
  await action();
  await page.waitForFunction((n) => window.downloadsStarted > n, before);
  await Promise.race([reported, new Promise((resolve) => { setTimeout(resolve, REPORTED_MS); })]);
  if (download) return saved(download);
  const [again] = await Promise.all([page.waitForEvent('download'), action()]);
  return saved(again);
}
