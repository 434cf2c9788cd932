// The page: one <attention-visualizer mode="full"> (element.js, full.js)
// and its chrome: the title, the language switch, the storage notice, the
// skip link and the footer. The page keeps what the element shows: the state
// in the URL hash (#av1.…) and in localStorage (persist.js: a link never
// destroys stored work, the newest edit wins a reload, damaged states are set
// aside), restored at start and when the hash changes.

import './page-owns-full.js'; // first: the element below may take mode="full" here
import '../element/element.js';
import { detectLanguage, htmlLang, translate, LANGUAGES } from '../ui/i18n.js';
import { applyStrings } from '../edit/panel.js';
import { decodeHash, encodeHash } from '../state/link.js';
import { fitLearn } from '../state/schema.js';
import { jsonInSlices } from '../state/json.js';
import { readState } from '../state/model.js';
import { tutorialState } from '../state/presets.js';
import { Store as Storage, sentenceOf } from '../state/persist.js';
import { renderStorageNotice } from './storage-notice.js';
import { sameInputs, numbersOf } from '../state/history.js';
import { presetOf } from '../state/presets.js';
import { learnedOf } from '../state/learned.js';
import { firstVisitState } from '../state/model-choice.js';
import { PRESET_KEYS } from '../edit/panel.js';
import { startPresenter } from './presenter.js';
import { startPrinting } from './print.js';

const $ = (id) => document.getElementById(id);
const LANG_KEY = 'attention-visualizer.lang';

const av = document.querySelector('attention-visualizer');
const store = av.store; // the element's state and history (store.js)
const view = () => store.state.view;
startPresenter(av); // "Present": the steps full screen, for a classroom
startPrinting(av); // printing gives the worksheet
const storage = new Storage(undefined, undefined, () => showStorageNotice()); // the state kept in localStorage (persist.js); a deferred write that fails shows the notice

const state = {
  writtenHash: '', // the hash this page wrote last (a different one comes from the user)
  // The history entry of the state that last arrived whole (a link, a file, a
  // preset, the tutorial) while it is the one on screen: not the user's work.
  arrival: null,
  arriving: false, // the next state kept is such an arrival
  computed: false, // the element has shown a result (its 'computed' event)
  kept: null, // the state last given to storage
};

function storedLanguage() {
  try {
    const lang = localStorage.getItem(LANG_KEY);
    return LANGUAGES.includes(lang) ? lang : null;
  } catch {
    return null; // storage can be blocked; the browser language decides then
  }
}

function storeLanguage(lang) {
  try {
    localStorage.setItem(LANG_KEY, lang);
  } catch {
    // not remembered, nothing else lost
  }
}

// The chrome's strings (the element writes its own).
function applyStaticStrings() {
  const { lang } = view();
  document.documentElement.lang = htmlLang(lang);
  document.documentElement.dataset.lang = lang;
  document.title = translate(lang, 'docTitle');
  for (const part of document.querySelectorAll('body > .skip-link, body > header, body > footer')) applyStrings(part, lang);
  showStorageNotice();
  showFooterExample();
  // The switch button is written in the language it switches to.
  $('lang-toggle-name').lang = htmlLang(lang === 'zh' ? 'en' : 'zh');
}

// The footer names the example on screen: the tutorial's, another preset, a
// trained example of "How it learns", a model's sentence, or the reader's own.
function showFooterExample() {
  const { lang } = view();
  const current = store.state;
  const { matrices } = readState(current);
  const preset = presetOf(current.tokens, matrices);
  const learned = preset ? null : learnedOf(current.tokens, matrices);
  let text;
  if (preset === 'tutorial') text = translate(lang, 'footerSource');
  else if (preset) text = translate(lang, 'footerPreset', { name: translate(lang, PRESET_KEYS[preset]) });
  else if (learned) text = translate(lang, 'footerLearned', { name: translate(lang, `learnedButton_${learned}`) });
  else if (current.model) text = translate(lang, 'footerModel', { name: current.model, text: sentenceOf(current), n: current.tokens.length });
  else text = translate(lang, 'footerOwn', { text: sentenceOf(current), n: current.tokens.length });
  const node = $('footer-example');
  if (node.textContent !== text) node.textContent = text;
}

// ---- share: the state in the URL hash ----

// What is on screen as a state (state/schema.js): the inputs and the view (the element's
// shownState, read and never changed here).
function shareState() {
  const shared = av.shownState;
  return shared.learn ? fitLearn(shared) : shared;
}

// A state from a link or storage: the chrome follows its language.
function loadState(restored) {
  av.load(restored);
  if (document.documentElement.dataset.lang !== view().lang) applyStaticStrings();
}

// The hash follows the screen: at once for a small state, HASH_PAUSE_MS after
// the last change for a larger one (at d = 64 the link is some 100 KB, and
// encoding and replacing it takes 15–25 ms, more than a frame), and before
// the page is hidden or left, so a copied address is never behind. Nothing is
// written before the first result, while a drag is under way or the newest
// edit computes (encoding a large state would hold the page), nor while the
// engine refuses the newest edit (the steps show the last good result).
const HASH_AT_ONCE_NUMBERS = 1024;
const HASH_PAUSE_MS = 400;
let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = 0;
  slicing += 1; // a state being written in slices is no longer the newest
  if (store.holding || av.computing || !state.computed || av.error) return; // 'computed' comes later
  if (numbersOf(store.state) <= HASH_AT_ONCE_NUMBERS) writeHash();
  else hashTimer = setTimeout(writeHashInSlices, HASH_PAUSE_MS);
}

// A large state's JSON (~5 MB at n = 4096: some 50 ms) is made in slices
// with tasks between them (state/json.js jsonInSlices), then written; a change
// meanwhile drops it (the change schedules its own).
let slicing = 0; // the latest write started; a slice that finds it moved on stops
let slicesPending = false;
async function writeHashInSlices() {
  hashTimer = 0;
  const turn = ++slicing;
  const current = shareState();
  slicesPending = true;
  const text = await jsonInSlices(current, () => turn !== slicing);
  if (turn !== slicing) return;
  slicesPending = false;
  writeHash(current, text);
}

function flushHash() {
  if (hashTimer || slicesPending) writeHash();
}

// A state whose JSON is longer than this gets no link in the address bar: the
// link would pass Chromium's 2 MB URL limit (at n = 4096 it would be ~7 MB,
// and encoding it would stall the page). The hash is then cleared, so that a
// reload does not bring back an older state; storage still keeps this one.
const HASH_MAX_JSON_CHARS = 1400000;

function writeHash(current = shareState(), text = JSON.stringify(current)) {
  clearTimeout(hashTimer);
  hashTimer = 0;
  slicing += 1;
  slicesPending = false;
  keepState(current, text);
  const hash = text.length <= HASH_MAX_JSON_CHARS ? `#${encodeHash(current)}` : '';
  const mark = storage.mark(); // tells a reload that this hash is the page's own (persist.js)
  const marked = history.state && history.state.writer === mark.writer && history.state.rev === mark.rev;
  if (hash === location.hash && marked) return;
  state.writtenHash = hash;
  try {
    history.replaceState(mark, '', hash || `${location.pathname}${location.search}`);
  } catch {
    // a URL too long for the browser, or (Firefox) too many calls: as below
  }
  // In a burst of edits the browser may drop the call (Chromium throttles it,
  // silently): the address would stay behind, so it is written again a little
  // later (a reload opens the newer stored state meanwhile: persist.js).
  hashRetries = location.hash === hash ? 0 : hashRetries + 1;
  if (hashRetries > 0 && hashRetries <= HASH_RETRIES) hashTimer = setTimeout(writeHash, HASH_RETRY_MS);
}
const HASH_RETRY_MS = 2000;
const HASH_RETRIES = 10; // Chromium's limit lasts some 10 s; a URL it never takes is not tried forever
let hashRetries = 0;

// ---- nothing lost: storage (persist.js), undo and redo (history.js) ----

// A link's hash wins over the stored state, but a hash this page wrote itself
// does not win over later work stored since (persist.js). The stored work a
// link replaces is first in the undo history, and set aside when the user
// made it. A damaged link still reports its error, over the stored state (or
// the tutorial) it opens instead.
function restoreAtStart() {
  const link = decodeHash(location.hash);
  const stored = storage.load(); // read even when the link wins: a damaged one is set aside before anything is saved
  const origin = link.ok ? storage.hashOrigin(history.state) : null;
  if (link.ok && origin !== 'stored-newer') {
    if (stored && origin === 'link') {
      store.history.record(stored); // undo brings it back
      if (storage.storedMade() && !sameInputs(stored, link.state)) storage.setAsideWork(storage.stored.text);
    }
    state.arriving = origin === 'link';
    loadState(link.state);
  } else if (stored) {
    state.arriving = !storage.storedMade();
    loadState(stored);
  } else {
    state.arriving = true;
    loadState(firstState());
  }
  if (!link.ok) av.statusMessage = link.message;
  showStorageNotice();
}

// A whole state from a link, a state file or a preset (show() puts it on
// screen) replaces the work on screen: that stays in undo, and is set aside
// in storage when the user made it. made: the new state is the user's own
// work (restored from where it was set aside).
function replaceWork(next, made = false) {
  beforeReplace(made);
  loadState(next);
  showStorageNotice();
}

// What replacing the work on screen keeps of it (the element's `replace`
// event says the same of a state chosen in it).
function beforeReplace(made = false) {
  if (state.computed) {
    writeHash(); // the latest edit is recorded and kept first
    if (store.history.current() !== state.arrival) storage.setAsideWork(storage.latest);
  } else if (!state.arriving && storage.stored) {
    storage.setAsideWork(storage.stored.text); // the engine still loading: the stored work is on screen
  }
  state.arriving = !made;
  if (made) state.arrival = null;
}

function restoreWork(restored, key) {
  storage.forget(key);
  replaceWork(restored, true);
}

const linked = () => !storage.latest || storage.latest.length <= HASH_MAX_JSON_CHARS;
const showStorageNotice = () => renderStorageNotice($('storage-notice'), view().lang, storage, { restore: restoreWork, linked: linked() });

// Every state shown is kept in storage (the store's history has it: store.js),
// marked as the user's work unless it is the one that arrived.
function keepState(current, text) {
  store.flush(); // recorded in the history
  if (state.arriving) {
    state.arrival = store.history.current();
    state.arriving = false;
  }
  const shown = [storage.problem, linked()];
  const viewOnly = sameInputs(state.kept, current);
  state.kept = current;
  storage.save(text, store.history.current() !== state.arrival, viewOnly);
  if (storage.problem !== shown[0] || (storage.problem && linked() !== shown[1])) showStorageNotice();
}

// A link opened in this tab (the address edited, a link to #av1.… clicked).
function restoreHash() {
  const restored = decodeHash(location.hash);
  if (restored.ok) {
    replaceWork(restored.state);
  } else {
    av.statusMessage = restored.message;
  }
}

// ---- start ----

// A first visit opens on the attention weights: the one picture of attention
// (who listens to whom, each row summing to 1), with the diagram above it
// saying where they come from and where they go; a trained model's head that
// visibly picks (model-choice.js FIRST_VISIT), the tutorial's example one
// click away; `?example=tutorial` opens on the tutorial's instead (a link or
// stored work still win over either).
function firstState() {
  const lang = storedLanguage() || detectLanguage(navigator.languages);
  if (new URLSearchParams(location.search).get('example') !== 'tutorial') return firstVisitState(lang);
  const first = tutorialState(lang);
  return { ...first, view: { ...first.view, step: 'softmax' } };
}

function start() {
  restoreAtStart();
  applyStaticStrings();
  av.addEventListener('change', () => {
    if (document.documentElement.dataset.lang !== view().lang) applyStaticStrings();
    else showFooterExample();
    scheduleHash();
  });
  av.addEventListener('computed', () => {
    state.computed = true;
    scheduleHash();
  });
  // a preset, a state file or a learned example chosen in the element
  av.addEventListener('replace', () => {
    beforeReplace();
    queueMicrotask(showStorageNotice);
  });
  window.addEventListener('pagehide', flushHash);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushHash();
  });
  window.addEventListener('hashchange', () => {
    if (location.hash !== state.writtenHash) restoreHash();
  });
  $('lang-toggle').addEventListener('click', () => {
    const lang = view().lang === 'zh' ? 'en' : 'zh';
    storeLanguage(lang);
    store.dispatch('view', { lang });
    store.flush();
  });
  $('skip-link').addEventListener('click', (event) => {
    event.preventDefault(); // the hash holds the state: a fragment would read as a damaged link
    $('steps-title').scrollIntoView({ block: 'start' });
    $('step-controls').focus({ preventScroll: true });
  });
}

start();
