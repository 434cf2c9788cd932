// The full mode of <attention-visualizer> (mode="full", element.js): the
// whole page's layout, in the element's light DOM (one per document: it
// carries the page's ids, and it is styled by the page's style.css). The
// example above the steps with the "Edit the example" toggle, the editor
// beside the steps (wide) or above them (narrow), the sticky toolbar
// (Previous/Next, the pipeline diagram), play, "show all steps", the head
// tabs, the colour legend, the status, the steps (with the before/after
// comparison and "How it learns") and the share tools.
//
// The element computes and holds the state; this view reads it through the element's
// view host (av.state(), av.result(), av.ctx()) and changes the view through av.setView().
// One of the element's two views (compact.js the other), answering the same calls (element.js
// names them).

import { translate, describeLoadFailure } from '../ui/i18n.js';
import { stepsFor, shownCell, settleSteps, holdSteps } from '../views/steps.js';
import { showSteps } from './steps-list.js';
import { showPipeline, revealCurrent } from '../views/pipeline.js';
import { el, setDisabled, setText, setAttr } from '../ui/dom.js';
import { applyStrings } from '../edit/panel.js';
import { readState } from '../state/model.js';
import { COALESCE_CELLS } from '../engine/updates.js';
import { fillHeadTabs } from '../edit/headtabs.js';
import { stepMove } from './keys.js';

const PLAY_INTERVAL_MS = 3000;
// The first EXAMPLE_TOKENS tokens of a long sentence are shown above the steps.
const EXAMPLE_TOKENS = 24;

// One node of the layout: attributes (data-i18n* name its strings: panel.js
// applyStrings) and children.
function node(tag, attributes = {}, children = []) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) made.setAttribute(name, '');
    else made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}

// The layout, as index.html held it before it was this element.
function layout() {
  const exampleLine = (id, label, lineId) => node('p', { class: 'example-line', ...(lineId ? { id: lineId, hidden: true } : {}) }, [
    node('span', { class: 'example-label', 'data-i18n': label }), ' ', node('span', { id, class: 'example-tokens' })]);
  const example = node('section', { class: 'example-bar', 'data-i18n-aria-label': 'exampleLabel' }, [
    node('div', { class: 'example-sentences' }, [
      exampleLine('example-tokens', 'sentenceLabel'),
      exampleLine('example-context', 'contextSentenceLabel', 'example-context-line'),
    ]),
    node('button', { type: 'button', id: 'edit-toggle', class: 'edit-toggle', 'aria-expanded': 'false', 'aria-controls': 'edit-panel' }, [
      node('span', { class: 'edit-toggle-mark', 'aria-hidden': 'true' }), node('span', { 'data-i18n': 'editToggle' })]),
  ]);
  const toolbar = node('div', { class: 'steps-toolbar', id: 'steps-toolbar' }, [
    node('div', { class: 'step-controls', id: 'step-controls', role: 'group', 'aria-labelledby': 'steps-title', tabindex: '-1' }, [
      node('button', { type: 'button', id: 'prev', 'data-i18n': 'prev' }),
      node('span', { id: 'step-position', class: 'step-position', 'aria-live': 'polite' }),
      node('button', { type: 'button', id: 'next', 'data-i18n': 'next' }),
    ]),
    node('nav', { id: 'pipeline', class: 'pipeline-box', 'data-i18n-aria-label': 'stepNavLabel' }),
  ]);
  const options = node('div', { class: 'step-options' }, [
    node('button', { type: 'button', id: 'play', 'aria-pressed': 'false' }),
    node('button', { type: 'button', id: 'overview', 'aria-pressed': 'false' }),
    // "Guess first" (the `guess` option): a question before each step's numbers (views/guess.js)
    node('button', { type: 'button', id: 'guess', 'aria-pressed': 'false', 'data-i18n': 'guessToggle', 'data-i18n-title': 'guessToggleTitle' }),
    node('div', { id: 'view-heads', class: 'head-tabs', role: 'group', 'aria-labelledby': 'view-heads-label', hidden: true }, [
      node('span', { id: 'view-heads-label', class: 'head-tabs-label', 'data-i18n': 'viewHeadLabel' })]),
    node('span', { class: 'hint keys-hint', 'data-i18n': 'keysHint' }),
  ]);
  const steps = node('section', { class: 'steps-section', 'aria-labelledby': 'steps-title' }, [
    node('h2', { id: 'steps-title', class: 'visually-hidden', 'data-i18n': 'stepsTitle' }),
    toolbar, // stays in view (sticky) while a long step scrolls
    options,
    node('div', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
    node('ol', { id: 'steps', class: 'steps' }),
  ]);
  return [
    example,
    node('div', { id: 'workspace', class: 'workspace' }, [
      // "Edit the example": the editor (editor.js) goes into it
      node('section', { id: 'edit-panel', class: 'panel inputs', 'aria-labelledby': 'inputs-title', hidden: true }),
      steps,
    ]),
    node('section', { id: 'share-tools', class: 'share-tools' }),
  ];
}

export class FullView {
  // av: what the view reads of the element and asks of it (element.js _viewHost: its state,
  // result, ctx(lang), setView(view), …; never its private fields); host: the element itself,
  // where the layout goes.
  constructor(av, host) {
    this.av = av;
    this.host = host;
    this.$ = (id) => host.querySelector(`#${id}`);
    this.lang = null; // the language the static strings are in
    this.playTimer = null;
    this.stepIndex = 4; // where to go when the step in view disappears
    this.toolsKey = '';
    this.arrival = null; // {from}: the step shown next is reached from another (goTo)
  }

  // The layout in the element's own children; its keys and dropped files are taken from the
  // whole document.
  mount() {
    const { host, $ } = this;
    host.append(...layout());
    $('edit-toggle').addEventListener('click', () => this.toggleEditor());
    // a drag let go (its one change event): the steps out of view get what it left
    host.addEventListener('change', () => settleSteps($('steps')));
    $('prev').addEventListener('click', () => { this.stopPlay(); this.goTo(this.currentIndex(this.steps()) - 1); });
    $('next').addEventListener('click', () => { this.stopPlay(); this.goTo(this.currentIndex(this.steps()) + 1); });
    $('play').addEventListener('click', () => this.togglePlay());
    // a setting of the walk, in the state (the link carries it), computing nothing (history.js sameInputs)
    $('guess').addEventListener('click', () => {
      const state = this.av.state();
      this.host.store.dispatch('load', { ...state, guess: !state.guess });
    });
    $('overview').addEventListener('click', () => {
      this.stopPlay();
      const steps = this.steps();
      this.av.setView({ step: this.overview() ? steps[this.currentIndex(steps)].id : 'all' });
    });
    // Whatever is scrolled to (a step, a focused cell) stops below the sticky toolbar;
    // a narrower toolbar (the edit panel opened beside it) keeps the lit stage in sight.
    new ResizeObserver(() => {
      document.documentElement.style.scrollPaddingTop = `${$('steps-toolbar').offsetHeight + 8}px`;
      if ($('pipeline').firstElementChild) revealCurrent($('pipeline').firstElementChild);
    }).observe($('steps-toolbar'));
    return { root: host, keys: document, drops: document };
  }

  // The editor's panel (editor.js), built by the element, goes into #edit-panel.
  mountEditor(panel) {
    this.$('edit-panel').append(panel);
  }

  view() {
    return this.av.state().view;
  }

  overview() {
    return this.view().step === 'all';
  }

  // The steps of the result on screen (the six plain ones before any).
  steps() {
    return stepsFor(readState(this.av.resultState() || this.av.state()).options);
  }

  currentIndex(steps) {
    const i = steps.findIndex((step) => step.id === this.view().step);
    return i >= 0 ? i : Math.min(this.stepIndex, steps.length - 1);
  }

  // The state with the step on screen (the step in view may be one the last
  // computed inputs do not have: the one shown instead).
  shownState() {
    const current = this.av.state();
    const steps = this.steps();
    const step = this.overview() ? 'all' : steps[this.currentIndex(steps)].id;
    return step === current.view.step ? current : { ...current, view: { ...current.view, step } };
  }

  // Everything, from the element's state and result. counted: a result (or an input that
  // does not read) is shown: counted in <html data-render-count> (for tests and the
  // page-latency benchmark).
  render({ counted = false } = {}) {
    const arrival = this.arrival;
    this.arrival = null;
    const { lang } = this.view();
    if (lang !== this.lang) {
      this.lang = lang;
      applyStrings(this.host, lang);
      this.$('steps').dataset.staleLabel = translate(lang, 'staleLabel');
    }
    this.av.editor().render();
    this.renderExample();
    // what a model's head picks, under the sentence (element.js), drawn anew
    this.host.querySelector('.model-picks')?.remove();
    const picks = this.av.picks(lang);
    if (picks) this.$('example-tokens').closest('.example-bar').after(picks);
    this.renderStatus();
    this.renderNav();
    this.renderSteps(arrival);
    // a model's panels under the steps (models.js): one box, kept (not moved: a focus in it stays)
    const predictions = this.av.predictions(lang);
    const last = this.host.querySelector('.model-panels');
    if (last && last !== predictions) last.remove();
    if (predictions && this.$('steps').nextElementSibling !== predictions) this.$('steps').after(predictions);
    if (counted) {
      const root = document.documentElement;
      root.dataset.renderCount = String(Number(root.dataset.renderCount || 0) + 1);
    }
  }

  // While a computation runs: the edit and the status (the steps keep the last result, marked).
  renderWaiting() {
    if (!this.av.editor()) {
      this.av.render(); // (not drawn yet)
      return;
    }
    this.av.editor().render();
    this.renderStatus();
  }

  renderExample() {
    const { tokens, context, view: { lang } } = this.av.state();
    showTokens(this.$('example-tokens'), tokens, lang);
    this.$('example-context-line').hidden = !context;
    if (context) showTokens(this.$('example-context'), context.tokens, lang);
  }

  // The edit panel: closed at first; beside the steps on a wide screen, above them on a narrow one.
  toggleEditor() {
    const toggle = this.$('edit-toggle');
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    this.$('edit-panel').hidden = !open;
    this.$('workspace').classList.toggle('editing', open);
  }

  renderStatus() {
    const messages = this.av.statusMessages(this.view().lang);
    const box = this.$('status');
    // (a live region: messages unchanged are left alone, not announced again)
    const same = box.children.length === messages.length && messages.every(([kind, text], i) => box.children[i].className === `status-${kind}` && box.children[i].textContent === text);
    if (!same) box.replaceChildren(...messages.map(([kind, text]) => el('p', `status-${kind}`, text)));
    const running = Boolean(this.av.running());
    this.$('steps').classList.toggle('stale', messages.some(([kind]) => kind === 'stale') || running);
    document.documentElement.toggleAttribute('data-computing', running); // for tests and the bench
  }

  renderNav() {
    const { lang } = this.view();
    const $ = this.$;
    const steps = this.steps();
    const index = this.currentIndex(steps);
    const overview = this.overview();
    this.renderPipeline();
    setDisabled([[$('prev'), overview || index === 0], [$('next'), overview || index === steps.length - 1],
      [$('play'), overview], [$('overview'), false]]);
    setText($('play'), translate(lang, this.playTimer ? 'pause' : 'play'));
    setAttr($('play'), 'aria-pressed', this.playTimer ? 'true' : 'false');
    setAttr($('overview'), 'aria-pressed', overview ? 'true' : 'false');
    setAttr($('guess'), 'aria-pressed', this.av.state().guess ? 'true' : 'false');
    setText($('overview'), translate(lang, overview ? 'guided' : 'overview'));
    setText($('step-position'), overview ? translate(lang, 'allSteps')
      : translate(lang, 'stepOf', { n: index + 1, total: steps.length }));
    this.renderHeadTabs();
  }

  // The diagram of the last computed variant, its current step lit (none in the overview).
  renderPipeline() {
    const box = this.$('pipeline');
    if (!this.av.result()) {
      box.replaceChildren();
      return;
    }
    const steps = this.steps();
    const current = this.overview() ? null : steps[this.currentIndex(steps)].id;
    revealCurrent(showPipeline(box, this.av.ctx(this.view().lang), { current, onOpen: (id) => this.openStep(id) }));
  }

  // The head buttons above the steps; they choose the head in view (as the
  // editor's do). A head with a bad cell (in the editor) is marked.
  renderHeadTabs() {
    const container = this.$('view-heads');
    const { lang } = this.view();
    fillHeadTabs(container, {
      lang, count: this.av.resultState() ? this.av.resultState().heads.length : 1, current: this.view().head, errors: this.av.editor().errors,
      onChoose: (h, tab) => {
        this.av.setView({ head: h });
        tab.focus();
      },
    });
  }

  // A stage chosen in the diagram: its step alone, or in the overview the step scrolled to.
  openStep(id) {
    this.stopPlay();
    const i = this.steps().findIndex((step) => step.id === id);
    if (!this.overview()) {
      this.goTo(i);
      return;
    }
    this.scrollUnder(this.$('steps').children[i]);
  }

  // Scrolls `node` to just under the sticky toolbar (the page's scroll padding):
  // always, or (passed) only when the reader is already below its top.
  scrollUnder(node, passed = false) {
    if (!passed || node.getBoundingClientRect().top < this.$('steps-toolbar').getBoundingClientRect().bottom) node.scrollIntoView({ block: 'start' });
  }

  // arrival: {from} when the one step shown is reached from another (steps.js renderStep).
  renderSteps(arrival) {
    const av = this.av;
    const container = this.$('steps');
    if (!av.result()) {
      container.replaceChildren();
      this.renderTools();
      return;
    }
    const steps = this.steps();
    const overview = this.overview();
    const indices = overview ? steps.map((_, i) => i) : [this.currentIndex(steps)];
    // guessWalk: "Guess first" asks before each step shown alone (views/guess.js)
    const ctx = { ...av.ctx(this.view().lang), guessWalk: !overview && Boolean(av.state().guess) };
    // steps out of view wait during a drag, and after any edit of a large input (steps.js near)
    const defer = av.holding() || ctx.tokens.length * ctx.keyTokens.length > COALESCE_CELLS;
    showSteps(container, av, { steps, indices, all: steps, ctx, arrival: overview ? null : arrival, defer });
    this.renderTools(false, ctx);
  }

  // A drag pressed or let go (changes.js hold): from its press, before its
  // first move, the tables in view watch which of their cells are in sight (steps.js holdSteps).
  hold(on) {
    holdSteps(this.$('steps'), on);
  }

  // The panel reads the inputs and results when used, so it is rebuilt only
  // when its lists (matrices to export, import targets) or language change.
  // ctx: the steps' context in the view's language, when the caller has it.
  renderTools(force = false, ctx = undefined) {
    const panel = this.$('share-tools');
    if (!this.av.result()) {
      this.toolsKey = '';
      panel.replaceChildren();
      return;
    }
    const { lang } = this.view();
    const key = this.av.tools.listsKey(lang, ctx);
    if (key === this.toolsKey && !force) return;
    this.toolsKey = key;
    const focused = panel.contains(document.activeElement) ? document.activeElement.dataset.focusId : null;
    panel.replaceChildren(this.av.tools.render(lang));
    if (focused) panel.querySelector(`[data-focus-id="${focused}"]`)?.focus();
  }

  // A head of the "all heads" grid: its steps, from its weights.
  openHead(h) {
    this.stepIndex = this.steps().findIndex((step) => step.id === 'softmax');
    this.av.setView({ head: h, step: 'softmax' });
    this.scrollUnder(this.$('steps').querySelector('[data-step="softmax"]'));
    this.$('view-heads').querySelector(`.head-tab[data-head="${h}"]`).focus({ preventScroll: true });
  }

  // (started at once: never far; the theme is the page's own, style.css)
  renderFar() {}

  themeStale() {
    return false;
  }

  // The status's words: the page takes no display attributes, and names its own script
  // when the engine did not load (loadFailure below).
  attributeProblems() {
    return [];
  }

  headingProblems() {
    return [];
  }

  loadFailure(lang, failure) {
    return loadFailure(lang, failure);
  }

  // The comparison closed: the steps without it, the weights' step focused.
  closedComparison() {
    this.$('steps').querySelector('[data-step="softmax"]')?.focus();
  }

  goTo(i) {
    const steps = this.steps();
    const from = this.overview() ? null : shownCell(this.$('steps').firstElementChild);
    this.stepIndex = Math.min(steps.length - 1, Math.max(0, i));
    this.arrival = { from };
    this.av.setView({ step: steps[this.stepIndex].id });
    this.scrollUnder(this.$('steps'), true); // deep in a long step, the next one starts at its top
  }

  stopPlay() {
    if (this.playTimer) clearInterval(this.playTimer);
    this.playTimer = null;
  }

  togglePlay() {
    if (this.playTimer) {
      this.stopPlay();
      this.renderNav();
      return;
    }
    const last = this.steps().length - 1;
    if (this.currentIndex(this.steps()) === last) this.goTo(0);
    this.playTimer = setInterval(() => {
      const index = this.currentIndex(this.steps()) + 1;
      if (index >= this.steps().length - 1) this.stopPlay();
      this.goTo(index);
    }, PLAY_INTERVAL_MS);
    this.renderNav();
  }

  // Left/Right walk the steps unless the key belongs to a field or a matrix.
  keys(event) {
    const move = stepMove(event);
    if (!move || this.overview()) return;
    event.preventDefault();
    this.stopPlay();
    this.goTo(this.currentIndex(this.steps()) + move);
  }
}

// Why the engine did not load, on the page: its own script named when it is
// missing (the element's words for that are for an author's page).
export function loadFailure(lang, failure) {
  if (failure.code === 'missing') return translate(lang, 'loadFailed', { detail: 'attention-engine.js did not load' });
  if (failure.code === 'load') return translate(lang, 'loadFailed', { detail: failure.message });
  return describeLoadFailure(lang, failure);
}

function showTokens(box, tokens, lang) {
  const shown = tokens.slice(0, EXAMPLE_TOKENS);
  const more = tokens.length > shown.length ? translate(lang, 'moreTokens', { n: tokens.length }) : '';
  const key = JSON.stringify([shown, more]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...shown.map((token) => el('span', 'example-token', token)), ...(more ? [el('span', 'example-more', more)] : []));
}
