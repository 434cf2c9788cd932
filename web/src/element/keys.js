// The element's keys: ←/→ walk the steps (compact and full alike), and key events that start
// in the element's fields or that it handles stay inside its shadow root.

// A key pressed here belongs to these (a field, a matrix's cells, the lines view, a table's
// own arrows), not to the walk through the steps.
const OWN_KEYS = 'input, textarea, select, [contenteditable], .matrix-view, .lines-view, table';

// The move through the steps a keydown asks for: +1 (→), −1 (←), or 0 (any other key, a
// modifier held, or a key that belongs to where it was pressed).
export function stepMove(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return 0;
  if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return 0;
  const target = event.composedPath()[0];
  if (target instanceof Element && target.closest(OWN_KEYS)) return 0;
  return event.key === 'ArrowRight' ? 1 : -1;
}

// Key events that start in the element's fields, or that it handles (←/→, a table's arrows,
// a button's Enter or Space), end at its shadow root: a host page's own shortcuts (a slide
// deck's keys, a site's search) never see them, and the element keeps working.
export function keepKeys(shadowRoot) {
  const kept = new Set(); // codes of keys whose keydown stayed inside: their keyup stays too
  const keep = (event) => {
    const target = event.composedPath()[0];
    const field = target instanceof Element && (target.isContentEditable || target.closest('input, textarea, select') !== null);
    const activates = target instanceof Element && target.closest('button') !== null && (event.key === 'Enter' || event.key === ' ');
    const stays = field || activates || event.defaultPrevented || (event.type !== 'keydown' && kept.has(event.code));
    if (event.type === 'keydown' && stays) kept.add(event.code);
    if (event.type === 'keyup') kept.delete(event.code);
    if (stays) event.stopPropagation();
  };
  for (const type of ['keydown', 'keypress', 'keyup']) shadowRoot.addEventListener(type, keep);
}
