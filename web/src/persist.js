// What the user built on the full page, kept in localStorage so that it
// survives a reload and a closed tab. Precedence at start: a link's hash wins
// (it is what the sender meant to show), else the stored state, else the
// tutorial. A stored state that cannot be read (damaged, or from a future
// version) is moved to DAMAGED_KEY, reported and offered for download: never
// silently dropped. Storage may be unavailable (blocked, private mode, full):
// the page works on without it and says so once.

import { parseStateJson } from './share.js';
import { sayMessage } from './i18n-embed.js';
import { translate } from './i18n.js';
import { el, button, download } from './dom.js';

export const STATE_KEY = 'attention-visualizer.state';
export const DAMAGED_KEY = 'attention-visualizer.state.damaged';

export class Store {
  // storage: a function returning the Storage (it may throw when blocked).
  constructor(storage = () => globalThis.localStorage) {
    this.storage = storage;
    this.problem = null; // null | 'unavailable' | 'full' | 'damaged'
    this.damaged = null; // {text, message} of a stored state that could not be read
    this.saved = null; // the text last written
  }

  // The stored state, or null (nothing stored, storage blocked, or damaged).
  load() {
    let storage;
    let text;
    try {
      storage = this.storage();
      text = storage.getItem(STATE_KEY);
    } catch {
      this.problem = 'unavailable';
      return null;
    }
    if (text === null) return null;
    const parsed = parseStateJson(text);
    if (parsed.ok) {
      this.saved = text;
      return parsed.state;
    }
    this.problem = 'damaged';
    this.damaged = { text, message: parsed.message };
    try {
      storage.setItem(DAMAGED_KEY, text);
      storage.removeItem(STATE_KEY);
    } catch {
      this.readOnly = true; // it could not be set aside: nothing overwrites it this session
    }
    return null;
  }

  // Keeps `text` (a state as JSON). Returns false when it could not be kept.
  save(text) {
    if (this.readOnly || this.problem === 'unavailable' || text === this.saved) return this.saved === text;
    try {
      this.storage().setItem(STATE_KEY, text);
      this.saved = text;
      if (this.problem === 'full') this.problem = null;
      return true;
    } catch (error) {
      // QuotaExceededError: this state is too large; a smaller one may fit later.
      this.problem = error && error.name === 'QuotaExceededError' ? 'full' : 'unavailable';
      return false;
    }
  }
}

// The notice about storage under the page's status line (not a live region:
// it is said once, not on every render). Empty when all is well.
export function renderStorageNotice(container, lang, store) {
  const nodes = [];
  if (store.problem === 'unavailable' || store.problem === 'full') {
    nodes.push(el('p', 'hint', translate(lang, store.problem === 'full' ? 'storageFull' : 'storageOff')));
  }
  if (store.damaged) {
    const p = el('p', 'status-error', translate(lang, 'storageDamaged', {
      detail: sayMessage(lang, store.damaged.message), key: DAMAGED_KEY,
    }));
    p.append(' ', button(translate(lang, 'storageDamagedDownload'), () => {
      download('attention-state-damaged.json', new Blob([store.damaged.text], { type: 'application/json;charset=utf-8' }));
    }, 'button-small'));
    nodes.push(p);
  }
  container.hidden = nodes.length === 0;
  container.replaceChildren(...nodes);
}
