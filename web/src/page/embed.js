// embed.html: one <attention-visualizer> filling an iframe. Its state lives in
// the URL hash (state/link.js), its display options in the query (steps, panels,
// editable, theme), and a host page talks to it with postMessage:
//
//   host → frame  { type: 'attention-visualizer:set', state: { …some or all fields… }, id? }
//                 { type: 'attention-visualizer:get', id? }
//   frame → host  { type: 'attention-visualizer:ready', state, result }     once computed
//                 { type: 'attention-visualizer:change', state, result }    after every change
//                 { type: 'attention-visualizer:state', id, state, result } the reply to get and set
//                 { type: 'attention-visualizer:error', id, message: { zh, en } }
//                     a message not understood, or a set the state checks or the
//                     engine refuse (an overflow, say): the state stays as it was
//                 { type: 'attention-visualizer:resize', height }           whenever the content's height changes
//
// Only the parent window (the host page; the page itself when not framed) is
// listened to: another window (an opener, a popup, another frame) gets no
// answer. Messages are checked field by field and only ever read as data.
//
// A result is
// always that of the state beside it: while a large edit is computed (in the
// background, element.js) change and the replies wait for it, and changes made
// meanwhile are sent as one. From 1024 × 1024 attention cells on, a result's
// matrices come in the engine's typed form, { rows, cols, data } (row-major
// Float64Array; masks Uint8Array): between processes, rows of typed arrays
// took seconds to copy, one block each takes milliseconds.

import { encodeHash, decodeHash } from '../state/link.js';
import { typedResult } from '../engine/rows.js';
import { translate, describe, detectLanguage, htmlLang } from '../ui/i18n.js';

const PREFIX = 'attention-visualizer:';
const CONFIG = ['steps', 'panels', 'editable', 'theme'];
const visualizer = document.querySelector('attention-visualizer');
const openFull = document.getElementById('open-full');

for (const [name, value] of new URLSearchParams(location.search)) {
  if (CONFIG.includes(name)) visualizer.setAttribute(name, value);
}
// theme=dark or light sets the page around the element too: its backdrop, the link below it
const theme = new URLSearchParams(location.search).get('theme');
if (theme === 'dark' || theme === 'light') document.documentElement.dataset.theme = theme;

// The hash's state, decoded here once (a large one takes a while). A link that
// is damaged or refused leaves the state shown as it is and says so, in the
// reader's language, about the link (the reader never set an attribute).
let fromHash = false; // the element shows the hash's state, unchanged since
let snapshot = null; // {state, result} for the messages waiting (below)
function showHash(start = false) {
  if (location.hash.length <= 1) return false;
  snapshot = null;
  const link = decodeHash(location.hash);
  // the state check's words without its "The state is not valid:" (the link's message says it)
  const { message } = link;
  visualizer.statusMessage = link.ok ? null : { key: start ? 'errLink' : 'errLinkKept', params: { detail: message.key === 'errState' ? message.params.detail : message } };
  if (!link.ok) return false;
  visualizer.load(link.state); // the whole state, replacing the one shown (the state property would merge); an engine's refusal shows over it
  fromHash = true;
  return true;
}
// With no state in the hash, or one that does not open, the browser's languages decide (the
// element has read this file's <html lang>, which only says something once this has run).
const language = () => ({ view: { lang: detectLanguage(navigator.languages) } });

// Messages with the state and its result wait, in order, until the newest
// state's result is on screen (a large one computes in the background), and go
// out each in a task of its own: at 2048 tokens a result is 100 MB to copy.
// They share one copy of the state, read when the first goes; each has its
// own copy of the result, whose buffers it moves to the host.
const outbox = []; // functions of ({state, result}, transfer)
let flushing = false;

function send(deliver) {
  outbox.push(deliver);
  if (!flushing) {
    flushing = true;
    setTimeout(flush);
  }
}

function flush() {
  if (outbox.length === 0) {
    flushing = false;
  } else if (visualizer.computing) {
    visualizer.addEventListener('computed', () => setTimeout(flush), { once: true });
  } else if (!snapshot) {
    snapshot = { state: visualizer.state };
    setTimeout(flush);
  } else {
    const { result, transfer } = resultToSend();
    outbox.shift()({ state: snapshot.state, result }, transfer);
    setTimeout(flush);
  }
}

// A copy of the result for a message, and the buffers it moves to the host: as
// the element gives it, or a large one (rows of typed arrays) in the typed form.
function resultToSend() {
  const result = visualizer.result;
  if (!result || !ArrayBuffer.isView(result.heads[0].weights[0])) return { result, transfer: [] };
  const typed = typedResult(result);
  const matrices = [...Object.values(typed), ...typed.heads.flatMap(Object.values)];
  return { result: typed, transfer: [...new Set(matrices.filter((m) => m && m.data).map((m) => m.data.buffer))] };
}

// To the host, if any (the state is no secret; any host may embed it).
function post(type) {
  if (window.parent !== window) send((shown, transfer) => window.parent.postMessage({ type: PREFIX + type, ...shown }, '*', transfer));
}

// The address, language, title and full-page link follow the state (the
// hash it came from stays as it is: encoding 4096 tokens takes a while).
function showState() {
  const { state } = visualizer;
  const hash = fromHash ? location.hash : `#${encodeHash(state)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  showLanguage(state.view.lang);
  openFull.href = `index.html${hash}`;
}

function ready() {
  showState();
  post('ready');
}

// The document speaks the element's language: <html lang>, its title, the link.
function showLanguage(lang) {
  document.documentElement.lang = htmlLang(lang);
  document.title = translate(lang, 'embedTitle');
  openFull.textContent = translate(lang, 'openFull');
}
// After a change: the address once for a burst of changes, in a task of its own; one change message.
let showTimer = 0;
let changeQueued = false;
function changed() {
  fromHash = false;
  snapshot = null;
  if (!showTimer) {
    showTimer = setTimeout(() => {
      showTimer = 0;
      showState();
    });
  }
  if (changeQueued || window.parent === window) return;
  changeQueued = true;
  send((shown, transfer) => {
    changeQueued = false;
    window.parent.postMessage({ type: `${PREFIX}change`, ...shown }, '*', transfer);
  });
}

// The content's height in CSS pixels, whenever it changes: a host can size the iframe to it
// (docs/authoring.md). The page has no height of its own, so the frame's size never feeds back.
let height = 0;
const resizeObserver = new ResizeObserver(() => {
  const now = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (now === height) return;
  height = now;
  if (window.parent !== window) window.parent.postMessage({ type: `${PREFIX}resize`, height }, '*');
});

const isPlainObject = (value) => Object.prototype.toString.call(value) === '[object Object]';
const KEYS = { set: ['type', 'state', 'id'], get: ['type', 'id'] };
const OUTBOUND = ['ready', 'change', 'state', 'error', 'resize'];

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

// Requests are taken one at a time, in order: a `set` is applied once the reply to the
// request before it has gone, so each reply carries its own request's state and that
// state's result (two quick sets were one computation, and both replies the second's state).
const inbox = []; // [message, reply] waiting
let answering = false;

function answerNext() {
  if (answering || inbox.length === 0) return;
  const [message, reply] = inbox.shift();
  const both = (descriptor) => ({ zh: describe('zh', descriptor), en: describe('en', descriptor) });
  if (message.kind === 'set') {
    try {
      visualizer.state = message.state;
    } catch (error) {
      reply({ type: `${PREFIX}error`, message: both(error.descriptor) });
      answerNext();
      return;
    }
  }
  answering = true;
  // A set computed in the background may be refused by the engine only then.
  send((shown, transfer) => {
    if (message.kind === 'set' && visualizer.error) reply({ type: `${PREFIX}error`, message: visualizer.error });
    else reply({ type: `${PREFIX}state`, ...shown }, transfer);
    answering = false;
    answerNext();
  });
}

function received(event) {
  if (event.source !== window.parent) return; // only the host page drives this frame
  const message = readMessage(event.data);
  if (!message || !event.source) return;
  const reply = (body, transfer = []) => event.source.postMessage({ ...body, ...(message.id !== undefined ? { id: message.id } : {}) },
    event.origin && event.origin !== 'null' ? event.origin : '*', transfer);
  if (message.error) {
    reply({ type: `${PREFIX}error`, message: { zh: describe('zh', message.error), en: describe('en', message.error) } });
    return;
  }
  inbox.push([message, reply]);
  answerNext();
}

// embed.html loads the element's script after this one, so that the element is defined only once
// the state and the language are known here: defined first, it computed and drew the tutorial in
// <html lang>'s Chinese for as long as this script took to arrive (a slow network, a parser that
// yields on a loaded machine), then switched (tests/browser/embed-first-language.test.mjs).
function start() {
  if (location.hash.length <= 1) visualizer.state = language();
  else if (!showHash(true)) visualizer.state = language();
  showLanguage(visualizer.state.view.lang);
  window.addEventListener('hashchange', () => {
    if (location.hash.slice(1) === encodeHash(visualizer.state)) return;
    showHash(); // (a state loaded is a change event: changed() sends its message)
    showLanguage(visualizer.state.view.lang);
  });
  visualizer.addEventListener('computed', () => { snapshot = null; });
  // The engine may be ready already (it loads while the page is parsed): `ready` is resolved
  // then. (Where it cannot load the element says so, and no ready message goes.)
  visualizer.ready.then(ready, () => {});
  visualizer.addEventListener('change', changed);
  resizeObserver.observe(document.documentElement);
  window.addEventListener('message', received);
}
customElements.whenDefined('attention-visualizer').then(start);
