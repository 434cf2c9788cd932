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
// Messages are checked field by field and only ever read as data. A result is
// always that of the state beside it: while a large edit is computed (in the
// background, element.js) change and the replies wait for it, and changes made
// meanwhile are sent as one.

import { encodeHash } from './share.js';
import { say, sayMessage } from './i18n-embed.js';

const PREFIX = 'attention-visualizer:';
const CONFIG = ['steps', 'panels', 'editable', 'theme'];
const visualizer = document.querySelector('attention-visualizer');
const openFull = document.getElementById('open-full');

for (const [name, value] of new URLSearchParams(location.search)) {
  if (CONFIG.includes(name)) visualizer.setAttribute(name, value);
}

// The element reads the hash (a damaged one, it says so); decoding a large
// one takes a while, so only once, there.
let fromHash = false; // the element shows the hash's state, unchanged since
function showHash() {
  if (location.hash.length <= 1) return;
  visualizer.setAttribute('state', location.hash.slice(1));
  fromHash = true;
}
showHash();
window.addEventListener('hashchange', () => {
  if (location.hash.slice(1) !== encodeHash(visualizer.state)) showHash();
});

// The typed arrays' buffers of a large result (element.js): moved to the host, not copied again.
function buffers(value, out = new Set()) {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) buffers(v, out);
  return out;
}

// The state and its result to the host, if any.
function post(type, extra = {}) {
  if (window.parent === window) return;
  const { state, result } = visualizer;
  // the state is no secret; any host may embed it
  window.parent.postMessage({ type: PREFIX + type, ...extra, state, result }, '*', [...buffers(result)]);
}

// `send` once the result of the newest state is on screen.
function whenComputed(send) {
  if (visualizer.computing) visualizer.addEventListener('computed', () => whenComputed(send), { once: true });
  else send();
}

// The address, language, title and full-page link follow the state (the
// hash it came from stays as it is: encoding 4096 tokens takes a while).
function showState() {
  const { state } = visualizer;
  const hash = fromHash ? location.hash : `#${encodeHash(state)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  document.documentElement.lang = state.view.lang === 'zh' ? 'zh-CN' : 'en';
  document.title = say(state.view.lang, 'embedTitle');
  openFull.textContent = say(state.view.lang, 'openFull');
  openFull.href = `index.html${hash}`;
}

function ready() {
  showState();
  post('ready');
}
// The engine may be ready before this script ran (it loads while the page is parsed).
if (visualizer.result) ready();
else visualizer.addEventListener('ready', ready, { once: true });
let changeWaiting = false;
visualizer.addEventListener('change', () => {
  fromHash = false;
  showState();
  if (changeWaiting) return;
  changeWaiting = true;
  whenComputed(() => {
    changeWaiting = false;
    post('change');
  });
});

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
  const reply = (body, transfer = []) => event.source.postMessage({ ...body, ...(message.id !== undefined ? { id: message.id } : {}) },
    event.origin && event.origin !== 'null' ? event.origin : '*', transfer);
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
  whenComputed(() => {
    const { state, result } = visualizer;
    reply({ type: `${PREFIX}state`, state, result }, [...buffers(result)]);
  });
});
