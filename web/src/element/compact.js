// The compact mode of <attention-visualizer> (element.js), the one an author embeds: in a
// shadow root with adopted stylesheets, so that the host page's CSS neither breaks it nor is
// touched by it. Previous/Next and the pipeline diagram (panel nav), the head tabs, the status,
// the steps the `steps` attribute offers, the editor under them (editable) and the export panel
// (panel tools).
//
// One of the element's two views (full.js the other), answering the same calls (element.js
// names them); it reads the element through its view host (state(), result(), ctx(lang),
// setView(view), …), never its private fields.

import PAGE_CSS from '../../style.css';
import ELEMENT_CSS from '../../element.css';
import { translate, describeLoadFailure, htmlLang } from '../ui/i18n.js';
import { stepsFor, shownCell } from '../views/steps.js';
import { createPipeline, revealCurrent } from '../views/pipeline.js';
import { el, button, setAttr } from '../ui/dom.js';
import { headTab, markHeadTab } from '../edit/headtabs.js';
import { readState } from '../state/model.js';
import { PANELS, headingLevel, displayConfig, configProblems } from './attributes.js';
import { showSteps } from './steps-list.js';
import { viewInputs } from './context.js';
import { stepMove, keepKeys } from './keys.js';

// ---- styles: one set of sheets for every element ----

let sheets = null;
function styleSheets() {
  if (!sheets) {
    // rem would follow the host page's root font size: sizes follow the element's own instead.
    const page = PAGE_CSS.replace(/(\d*\.?\d+)rem\b/g, 'calc($1 * var(--av-rem))');
    sheets = [page, ELEMENT_CSS].map((text) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
  }
  return sheets;
}

export class CompactView {
  // host: what the view reads of the element and asks of it (element.js _viewHost); element:
  // the <attention-visualizer> itself, whose shadow root the view draws in.
  constructor(host, element) {
    this.host = host;
    this.element = element;
    this.root = null;
    this.stepList = el('ol', 'steps');
    this.shownStep = null; // the step id shown last, or 'all'
    this.editorBox = null;
    this.headingObserver = null;
  }

  // A shadow root with adopted stylesheets; keys and dropped files are taken in it.
  mount() {
    this.element.attachShadow({ mode: 'open' });
    this.element.shadowRoot.adoptedStyleSheets = styleSheets();
    this.root = el('div', 'av av-far'); // (an empty frame until started: render() names its classes)
    this.root.setAttribute('role', 'group');
    this.element.shadowRoot.append(this.root);
    keepKeys(this.element.shadowRoot);
    return { root: this.root, keys: this.root, drops: this.root };
  }

  // The editor's panel (editor.js), built by the element, under the steps.
  mountEditor(panel) {
    this.editorBox = el('section', 'panel inputs av-editor');
    this.editorBox.setAttribute('aria-labelledby', 'inputs-title');
    this.editorBox.append(panel);
  }

  // Not started yet (far from the viewport): an empty frame of its theme.
  renderFar() {
    this.root.classList.toggle('dark', this.host.isDark(displayConfig(this.element).theme));
  }

  // Whether what theme="auto" follows changed the element's theme (theme.js): drawn again then.
  themeStale() {
    return this.root.classList.contains('dark') !== this.host.isDark(displayConfig(this.element).theme);
  }

  render() {
    const host = this.host;
    const lang = host.lang();
    const config = displayConfig(this.element);
    const root = this.root;
    root.lang = htmlLang(lang);
    root.setAttribute('aria-label', translate(lang, 'elementLabel'));
    root.className = ['av', ...PANELS.filter((p) => !config.panels.has(p)).map((p) => `no-${p}`),
      host.isDark(config.theme) ? 'dark' : ''].filter(Boolean).join(' ');
    const focusedId = this.element.shadowRoot.activeElement && this.element.shadowRoot.activeElement.dataset.focusId;
    // The editor stays in place (typing must keep its focus); the rest is drawn anew.
    if (host.editable()) host.editor().render();
    const parts = [];
    if (config.panels.has('nav')) parts.push(this.renderNav(lang));
    if (host.state().heads.length > 1) parts.push(this.renderHeads(lang));
    parts.push(this.renderStatus(lang), this.renderSteps(lang));
    const predictions = host.predictions(lang); // a model's (element.js)
    if (predictions) parts.push(predictions);
    // the example's steps first; its editor under them (on a phone the editor is a long page of fields)
    if (host.editable()) parts.push(this.editorBox);
    if (config.panels.has('tools') && host.result()) parts.push(host.tools.render(lang));
    const keep = parts.filter((node) => node.isConnected);
    for (const node of [...root.children]) if (!keep.includes(node)) node.remove();
    parts.forEach((node, i) => {
      if (root.children[i] !== node) root.insertBefore(node, root.children[i] || null);
    });
    if (focusedId) {
      const again = root.querySelector(`[data-focus-id="${focusedId}"]`);
      // Next pressed at the last step (Previous at the first) is disabled now: its focus goes
      // to the first of Previous, Next and "all steps" left enabled, not to the body.
      (again && again.disabled ? [...root.querySelectorAll('.av-bar > button')].find((b) => !b.disabled) : again)?.focus();
      // a stage left by ←/→ hands its focus to the stage of the step it opened (the one in the Tab order)
      if (again && focusedId.startsWith('stage-') && again.tabIndex < 0) root.querySelector('.pipeline-stage[tabindex="0"]')?.focus();
    }
    this.levelHeadings();
    // On a narrow screen the diagram scrolls sideways: keep the current stage in sight
    // (scrollIntoView would scroll the host page too).
    const pipeline = root.querySelector('.pipeline');
    if (pipeline) revealCurrent(pipeline);
  }

  // While the newest edit computes: drawn whole (the steps keep the last result, marked).
  renderWaiting() {
    this.host.render();
  }

  // The export panel anew (its lists changed): the element drawn again.
  renderTools() {
    this.host.render();
  }

  // heading-level="N": the steps' titles (h3) and the editor's (h2) are read as level N, what
  // they hold one or two below; headings drawn later (a step's learning panel) too.
  levelHeadings() {
    const { level } = headingLevel(this.element.getAttribute('heading-level'));
    this.headingObserver ||= new MutationObserver(() => this.levelHeadings());
    this.headingObserver.disconnect();
    for (const h of this.root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
      const below = Number(h.tagName[1]) - (this.editorBox?.contains(h) ? 2 : 3);
      if (level === null) h.removeAttribute('aria-level');
      else setAttr(h, 'aria-level', String(Math.min(6, Math.max(1, level + below))));
    }
    if (level !== null) this.headingObserver.observe(this.root, { childList: true, subtree: true });
  }

  // The steps of the result on screen (those of the newest edit once it is computed).
  visibleSteps() {
    const all = stepsFor(readState(this.host.resultState() || this.host.state()).options);
    const { steps } = displayConfig(this.element);
    const visible = steps ? all.filter((step) => steps.includes(step.id)) : all;
    return visible.length > 0 ? visible : all;
  }

  currentIndex(steps) {
    const i = steps.findIndex((step) => step.id === this.host.state().view.step);
    return i >= 0 ? i : 0;
  }

  // (The step is one of the steps on screen: `steps` may hide the one the state names.)
  shownState() {
    const state = this.host.state();
    const { step } = state.view;
    const steps = this.visibleSteps();
    const shown = step === 'all' ? step : steps[this.currentIndex(steps)].id;
    return shown === step ? state : { ...state, view: { ...state.view, step: shown } };
  }

  renderNav(lang) {
    const t = (key, params) => translate(lang, key, params);
    const steps = this.visibleSteps();
    const overview = this.host.state().view.step === 'all';
    const index = this.currentIndex(steps);
    const bar = el('div', 'av-bar');
    const go = (i) => this.host.setView({ step: steps[Math.max(0, Math.min(steps.length - 1, i))].id });
    const prev = button(t('prev'), () => go(index - 1));
    prev.disabled = overview || index === 0;
    prev.dataset.focusId = 'prev';
    const next = button(t('next'), () => go(index + 1));
    next.disabled = overview || index === steps.length - 1;
    next.dataset.focusId = 'next';
    // a labelled group, not a landmark: landmarks are the host page's (several elements, several navs)
    const nav = el('div', 'pipeline-box');
    nav.setAttribute('role', 'group');
    nav.setAttribute('aria-label', translate(lang, 'stepsLabel'));
    // the whole computation, its stages opening the steps this element shows, one of them in the Tab order
    const state = this.host.state();
    nav.append(createPipeline(viewInputs(lang, state, state), {
      current: overview ? null : steps[index].id, onOpen: (id) => this.host.setView({ step: id }), enabled: steps.map((step) => step.id), roving: true,
    }));
    const all = button(t(overview ? 'guided' : 'overview'), () => this.host.setView({ step: overview ? steps[0].id : 'all' }));
    all.setAttribute('aria-pressed', overview ? 'true' : 'false');
    all.dataset.focusId = 'all';
    bar.append(prev, nav, next, all);
    return bar;
  }

  renderHeads(lang) {
    const box = el('div', 'av-heads');
    box.setAttribute('role', 'group');
    box.append(el('span', 'head-tabs-label', translate(lang, 'viewHeadLabel')));
    const editor = this.host.editable() && this.host.editor();
    const errors = editor ? editor.errors : {};
    const state = this.host.state();
    state.heads.forEach((_, h) => {
      const tab = headTab(lang, h, () => this.host.setView({ head: h }));
      markHeadTab(tab, h, state.view.head, errors);
      box.append(tab);
    });
    return box;
  }

  renderStatus(lang) {
    const box = el('div', 'status');
    box.append(...this.host.statusMessages(lang).map(([kind, text]) => el('p', `status-${kind}`, text)));
    return box;
  }

  // Steps of the same layout as those on screen get the new numbers in place (as on the full page).
  renderSteps(lang) {
    const host = this.host;
    const list = this.stepList;
    if (!host.result()) {
      list.replaceChildren();
      return list;
    }
    list.classList.toggle('stale', host.refused() || (host.editable() && host.editor().hasErrors()) || host.waiting());
    list.dataset.staleLabel = translate(lang, 'staleLabel');
    const steps = this.visibleSteps();
    const current = host.state().view.step === 'all' ? 'all' : steps[this.currentIndex(steps)].id;
    // guessWalk: the `guess` attribute asks before each step shown alone (views/guess.js)
    const ctx = { ...host.ctx(lang), guessWalk: current !== 'all' && Boolean(host.state().guess) };
    const indices = current === 'all' ? steps.map((_, i) => i) : [this.currentIndex(steps)];
    // one step reached from another: its arrival plays (steps.js)
    const left = this.shownStep;
    const arrival = current !== 'all' && left && left !== 'all' && left !== current ? { from: shownCell(list.querySelector(':scope > .step')) } : null;
    this.shownStep = current;
    showSteps(list, host, { steps, indices, all: stepsFor(ctx.options), ctx, arrival });
    return list;
  }

  // Left/Right walk the steps unless the key belongs to a field or a matrix.
  keys(event) {
    const move = stepMove(event);
    if (!move || this.host.state().view.step === 'all') return;
    const steps = this.visibleSteps();
    const i = this.currentIndex(steps) + move;
    if (i < 0 || i >= steps.length) return;
    event.preventDefault();
    this.host.setView({ step: steps[i].id });
  }

  // A head of the "all heads" grid: its steps, from its weights.
  openHead(h) {
    this.host.setView({ head: h, step: 'softmax' });
  }

  // The status's words for what does not read: the display attributes (and mode), first ...
  attributeProblems() {
    return configProblems(this.element);
  }

  // ... heading-level, last.
  headingProblems() {
    const heading = headingLevel(this.element.getAttribute('heading-level'));
    return heading.error ? [heading.error] : [];
  }

  // Why the engine did not load, in an author's page's words.
  loadFailure(lang, failure) {
    return describeLoadFailure(lang, failure);
  }

  // (the before/after comparison, play and a drag's deferred steps are the full mode's)
  closedComparison() {}

  stopPlay() {}

  hold() {}
}
