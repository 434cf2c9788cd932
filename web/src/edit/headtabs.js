// The head buttons (1, 2, …) that choose the head in view: above the editor's matrices, and
// above the steps (full and compact alike). A head the editor holds a bad cell of is marked.

import { translate } from '../ui/i18n.js';
import { button, setAttr } from '../ui/dom.js';
import { headField } from '../state/model.js';

const HEAD_EDITORS = ['wq', 'wk', 'wv', 'bq', 'bk', 'bv'];

// The button of head h (0-based); onChoose(tab) when clicked. focusId: the name the element
// finds it by again after drawing anew (data-focus-id), or null.
export function headTab(lang, h, onChoose, focusId = `head-${h}`) {
  const tab = button(String(h + 1), () => onChoose(tab), 'head-tab');
  tab.dataset.head = h;
  if (focusId) tab.dataset.focusId = focusId;
  tab.setAttribute('aria-label', translate(lang, 'headN', { n: h + 1 }));
  return tab;
}

// Whether head h is the one in view, and marked when the editor holds a bad cell of it.
export function markHeadTab(tab, h, current, errors) {
  setAttr(tab, 'aria-pressed', h === current ? 'true' : 'false');
  tab.classList.toggle('has-error', HEAD_EDITORS.some((base) => errors[headField(base, h)]));
}

// A bar of `count` tabs in `container` after its label (.head-tabs-label), hidden for one
// head; made again only when the language or the count changes, marked each time.
// onChoose(h, tab); focusIds: whether its tabs are found again by data-focus-id.
export function fillHeadTabs(container, { lang, count, current, errors, onChoose, focusIds = true }) {
  container.hidden = count === 1;
  const key = `${lang}|${count}`;
  if (container.dataset.key !== key) {
    container.dataset.key = key;
    const label = container.querySelector('.head-tabs-label');
    container.replaceChildren(label, ...Array.from({ length: count }, (_, h) => headTab(lang, h, (tab) => onChoose(h, tab), focusIds ? `head-${h}` : null)));
  }
  container.querySelectorAll('.head-tab').forEach((tab, h) => markHeadTab(tab, h, current, errors));
}
