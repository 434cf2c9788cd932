// Presenter mode (index.html's "Present"): the steps alone, full screen, in type large enough
// for the back of a room, one step at a time, driven by the keys a slide clicker sends:
//   PageDown, →, ↓: the next step · PageUp, ←, ↑: the previous one (the arrows move between a
//   matrix's cells while one has the focus) · B or .: a blank screen, again to come back ·
//   Esc (or leaving full screen): back to the page.
// The cell explained (pointed at, focused, or the one a step arrives on) is ringed large: the
// pointer. No editor: the page's chrome, "Edit the example" and the share tools are hidden (CSS).
// It moves through the steps with the page's own buttons (#prev, #next, #overview), so the
// element, its link and its storage see the same as a click.

import { translate } from '../ui/i18n.js';

const NEXT = new Set(['PageDown', 'ArrowRight', 'ArrowDown']);
const PREVIOUS = new Set(['PageUp', 'ArrowLeft', 'ArrowUp']);
const BLANK = new Set(['b', 'B', '.']);

export function startPresenter(av) {
  const $ = (id) => document.getElementById(id);
  const root = document.documentElement;
  const blank = $('presenter-blank');
  const exit = $('presenter-exit');
  const keys = $('presenter-keys');
  const presenting = () => root.classList.contains('presenting');
  let returnFocus = null;

  const setBlank = (on) => {
    blank.hidden = !on;
    root.classList.toggle('presenter-blanked', on);
  };

  function enter() {
    const { lang } = av.store.state.view;
    exit.textContent = translate(lang, 'presentExit');
    keys.textContent = translate(lang, 'presentKeys');
    returnFocus = document.activeElement;
    if ($('edit-toggle')?.getAttribute('aria-expanded') === 'true') $('edit-toggle').click(); // no editor
    if ($('overview')?.getAttribute('aria-pressed') === 'true') $('overview').click(); // one step at a time
    root.classList.add('presenting');
    exit.hidden = false;
    keys.hidden = false;
    // full screen where the browser allows it (a click asked for it); the mode works without
    if (root.requestFullscreen && !document.fullscreenElement) root.requestFullscreen().catch(() => {});
    $('steps')?.querySelector('.step')?.scrollIntoView({ block: 'start' });
    $('step-controls')?.focus({ preventScroll: true });
  }

  function leave() {
    if (!presenting()) return;
    root.classList.remove('presenting');
    setBlank(false);
    exit.hidden = true;
    keys.hidden = true;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    (returnFocus?.isConnected ? returnFocus : $('present')).focus({ preventScroll: true });
  }

  const move = (id) => {
    const button = $(id);
    if (!button || button.disabled) return;
    button.click();
    $('steps')?.querySelector('.step')?.scrollIntoView({ block: 'start' });
  };

  $('present').addEventListener('click', enter);
  exit.addEventListener('click', leave);
  document.addEventListener('fullscreenchange', () => {
    if (!document.fullscreenElement) leave();
  });
  // Before the element's own keys (capture): a clicker's key is one step, never two.
  window.addEventListener('keydown', (event) => {
    if (!presenting() || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.composedPath()[0];
    const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (typing && event.key !== 'Escape') return;
    const inMatrix = target instanceof HTMLElement && target.closest('table.matrix td');
    let handled = true;
    if (event.key === 'Escape') leave();
    else if (BLANK.has(event.key)) setBlank(blank.hidden);
    else if (NEXT.has(event.key) && !(inMatrix && event.key.startsWith('Arrow'))) move('next');
    else if (PREVIOUS.has(event.key) && !(inMatrix && event.key.startsWith('Arrow'))) move('prev');
    else handled = false;
    if (!handled) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);
}
