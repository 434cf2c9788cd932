// The notice about the page's storage above the inputs (page/main.js): storage off or full, work
// set aside in localStorage (state/persist.js's Store) to restore or discard, a damaged value
// to download. The DOM side of persist.js, which holds no DOM.

import { parseStateJson } from '../state/json.js';
import { translate, describe } from '../ui/i18n.js';
import { el, button, download } from '../ui/dom.js';
import { STATE_KEY, sentenceOf } from '../state/persist.js';

const downloadButton = (lang, key, name, text) => button(translate(lang, key), () => {
  download(name, new Blob([text], { type: 'application/json;charset=utf-8' }));
}, 'button-small');

// The notice about storage above the inputs (not a live region: it is said
// once, not on every render). Empty when all is well. restore(state, key)
// brings set-aside work back; the notice is rendered again after a choice.
// linked: the work on screen is in the address bar's link (not too large for one).
export function renderStorageNotice(container, lang, store, { restore, linked }) {
  const nodes = [];
  const again = () => renderStorageNotice(container, lang, store, { restore, linked });
  if (store.problem === 'unavailable' || store.problem === 'full') {
    const key = { full: ['storageFull', 'storageFullNoLink'], unavailable: ['storageOff', 'storageOffNoLink'] }[store.problem][linked ? 0 : 1];
    nodes.push(el('p', 'hint', translate(lang, key)));
  }
  // One notice for all the work set aside: the latest (set aside last in this tab, else
  // the last key held), and how many more; restoring or discarding it shows the next.
  const aside = store.previousWork();
  if (aside.length > 0) {
    const { key, state } = aside.find((work) => work.key === store.lastAside) || aside[aside.length - 1];
    const p = el('p', 'storage-previous', translate(lang, 'previousWork', { text: sentenceOf(state), n: state.tokens.length, key }));
    if (aside.length > 1) p.append(lang === 'zh' ? '' : ' ', translate(lang, 'previousWorkMore', { n: aside.length - 1 })); // Chinese puts no space between sentences
    p.append(' ', button(translate(lang, 'previousRestore'), () => {
      restore(state, key);
      again();
    }, 'button-small'), ' ', button(translate(lang, 'previousDiscard'), () => {
      store.forget(key);
      again();
    }, 'button-small'));
    nodes.push(p);
  }
  if (store.unshelved) {
    const { text } = store.unshelved;
    const p = el('p', 'status-error', translate(lang, 'previousNotKept', { key: STATE_KEY }));
    p.append(' ', button(translate(lang, 'previousRestore'), () => {
      restore(parseStateJson(text).state, null);
      again();
    }, 'button-small'), ' ', downloadButton(lang, 'storageDamagedDownload', 'attention-state-previous.json', text));
    nodes.push(p);
  }
  if (store.damaged) {
    const { key, text, message } = store.damaged;
    const detail = describe(lang, message);
    const p = el('p', 'status-error', key ? translate(lang, 'storageDamaged', { detail, key })
      : translate(lang, 'storageDamagedKept', { detail, key: STATE_KEY }));
    p.append(' ', downloadButton(lang, 'storageDamagedDownload', 'attention-state-damaged.json', text));
    nodes.push(p);
  }
  container.hidden = nodes.length === 0;
  container.replaceChildren(...nodes);
}
