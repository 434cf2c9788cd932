// Printing index.html gives the worksheet (views/worksheet.js), not the page: the "Print a
// worksheet" button and the browser's own Ctrl+P alike. The worksheet is kept current, hidden on
// screen (style.css), so that whatever prints the page (a print dialog, Chromium's PDF) finds
// it: made again after each result and view change (its language follows the page's), and
// before printing.

import { renderWorksheet } from '../views/worksheet.js';

export function startPrinting(av) {
  let sheet = null;
  const update = () => {
    const state = av.shownState;
    const next = renderWorksheet({ lang: state.view.lang, state, result: av.result });
    if (sheet) sheet.replaceWith(next);
    else document.body.append(next);
    sheet = next;
  };
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      if (av.result) update();
    }, 0);
  };
  for (const type of ['computed', 'change']) av.addEventListener(type, later);
  window.addEventListener('beforeprint', () => {
    if (av.result) update();
  });
  document.getElementById('print').addEventListener('click', () => {
    if (av.result) update();
    window.print();
  });
}
