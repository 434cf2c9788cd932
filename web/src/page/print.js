// Printing index.html gives the worksheet (views/worksheet.js), not the page: the "Print a
// worksheet" button and the browser's own Ctrl+P alike. The worksheet is kept current, hidden on
// screen (style.css), so that whatever prints the page (a print dialog, Chromium's PDF) finds
// it: made again after each result and view change (its language follows the page's), and
// before printing. (`av.result` is a copy of the whole result: the worksheet asks for it only when
// the example fits a sheet.)

import { renderWorksheet } from '../views/worksheet.js';

export function startPrinting(av) {
  let sheet = null;
  const update = () => {
    const state = av.shownState;
    if (!state) return; // (nothing shown yet)
    const next = renderWorksheet({ lang: state.view.lang, state, result: () => av.result });
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
      update();
    }, 0);
  };
  for (const type of ['computed', 'change']) av.addEventListener(type, later);
  window.addEventListener('beforeprint', update);
  document.getElementById('print').addEventListener('click', () => {
    update();
    window.print();
  });
}
