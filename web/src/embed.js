// embed.html: one <attention-visualizer> filling an iframe. Its state lives in
// the URL hash (share.js), its display options in the query (steps, panels,
// editable, theme), and a host page talks to it with postMessage:
//
//   host → frame  { type: 'attention-visualizer:set', state: { …some or all fields… }, id? }
//                 { type: 'attention-visualizer:get', id? }
//   frame → host  { type: 'attention-visualizer:ready', state, result }     once computed
//                 { type: 'attention-visualizer:change', state, result }    after every change
//                 { type: 'attention-visualizer:state', id, state, result } the reply to get and set
//                 { type: 'attention-visualizer:error', id, message: { zh, en } }
//
// Messages are checked field by field and only ever read as data.

import { encodeHash, decodeHash } from './share.js';
import { say, sayMessage } from './i18n-embed.js';
import { detectLanguage, htmlLang } from './i18n.js';

const PREFIX = 'attention-visualizer:';
const CONFIG = ['steps', 'panels', 'editable', 'theme'];
const visualizer = document.querySelector('attention-visualizer');
const openFull = document.getElementById('open-full');

for (const [name, value] of new URLSearchParams(location.search)) {
  if (CONFIG.includes(name)) visualizer.setAttribute(name, value);
}

function showHash() {
  const decoded = decodeHash(location.hash);
  if (decoded.ok || decoded.message) visualizer.setAttribute('state', location.hash.slice(1));
}
// With no state in the hash the browser's languages decide (the element has
// read this file's <html lang>, which only says something once this has run).
if (!decodeHash(location.hash).ok) visualizer.state = { view: { lang: detectLanguage(navigator.languages) } };
showHash();
showLanguage(visualizer.state.view.lang);
window.addEventListener('hashchange', () => {
  if (location.hash.slice(1) === encodeHash(visualizer.state)) return;
  showHash();
  if (visualizer.result) update('change');
});

function post(message) {
  if (window.parent !== window) window.parent.postMessage(message, '*'); // the state is no secret; any host may embed it
}

function update(type) {
  const { state, result } = visualizer;
  const hash = `#${encodeHash(state)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  showLanguage(state.view.lang);
  openFull.href = `index.html${hash}`;
  post({ type: PREFIX + type, state, result });
}

// The document speaks the element's language: <html lang>, its title, the link.
function showLanguage(lang) {
  document.documentElement.lang = htmlLang(lang);
  document.title = say(lang, 'embedTitle');
  openFull.textContent = say(lang, 'openFull');
}
// The engine may be ready before this script ran (it loads while the page is parsed).
if (visualizer.result) update('ready');
else visualizer.addEventListener('ready', () => update('ready'), { once: true });
visualizer.addEventListener('change', () => update('change'));

const isPlainObject = (value) => Object.prototype.toString.call(value) === '[object Object]';
const KEYS = { set: ['type', 'state', 'id'], get: ['type', 'id'] };
const OUTBOUND = ['ready', 'change', 'state', 'error'];

// {kind, id, state} of a well-formed message, or {error} saying what is wrong.
function readMessage(data) {
  if (!isPlainObject(data) || typeof data.type !== 'string' || !data.type.startsWith(PREFIX)) return null; // not for us
  const kind = data.type.slice(PREFIX.length);
  if (OUTBOUND.includes(kind)) return null; // what frames send, never answered (no echo loops)
  const detail = (text) => ({ error: { key: 'errMessage', params: { detail: text } }, id: data.id });
  if (!KEYS[kind]) return detail(`type ${JSON.stringify(data.type.slice(0, 60))}`);
  const extra = Object.keys(data).find((key) => !KEYS[kind].includes(key));
  if (extra) return detail(`field ${JSON.stringify(extra.slice(0, 60))}`);
  if (data.id !== undefined && !(typeof data.id === 'string' && data.id.length <= 200) && !Number.isFinite(data.id)) return detail('id');
  if (kind === 'set' && !isPlainObject(data.state)) return detail('state');
  return { kind, id: data.id, state: data.state };
}

window.addEventListener('message', (event) => {
  const message = readMessage(event.data);
  if (!message || !event.source) return;
  const reply = (body) => event.source.postMessage({ ...body, ...(message.id !== undefined ? { id: message.id } : {}) },
    event.origin && event.origin !== 'null' ? event.origin : '*');
  const both = (descriptor) => ({ zh: sayMessage('zh', descriptor), en: sayMessage('en', descriptor) });
  if (message.error) {
    reply({ type: `${PREFIX}error`, message: both(message.error) });
    return;
  }
  if (message.kind === 'set') {
    try {
      visualizer.state = message.state;
    } catch (error) {
      reply({ type: `${PREFIX}error`, message: both(error.descriptor) });
      return;
    }
  }
  reply({ type: `${PREFIX}state`, state: visualizer.state, result: visualizer.result });
});
