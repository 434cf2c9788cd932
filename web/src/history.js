// Undo and redo of edits (the store's, store.js). Each entry is a state
// (share.js), recorded whenever the inputs or options change; a change of
// step, head, language or decimals alone is not an edit. States are never
// changed in place (store.js), so an entry is the state itself, not a copy.
// Entries are kept up to MAX_ENTRIES and MAX_NUMBERS matrix numbers in all
// (a few of 4096 tokens, many small ones).

const MAX_ENTRIES = 200;
const MAX_NUMBERS = 4 * 1024 * 1024;

// Whether two states have the same inputs (their views may differ). States
// never change (store.js), so the last answer is kept: a commit asks it twice
// of the same two states (the history, then the element), and at n = 4096
// equal inputs (a fill with the same seed) take some 5 ms each time.
let lastAnswer = { a: null, b: null, same: false };
export function sameInputs(a, b) {
  if (!a || !b) return false;
  if ((a === lastAnswer.a && b === lastAnswer.b) || (a === lastAnswer.b && b === lastAnswer.a)) return lastAnswer.same;
  const same = Object.keys({ ...a, ...b }).every((key) => key === 'view' || sameValue(a[key], b[key]));
  lastAnswer = { a, b, same };
  return same;
}

// JSON-like values (a state's): equal numbers, strings and booleans, arrays (typed too) and objects of them.
function sameValue(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || ArrayBuffer.isView(a)) {
    if (!(Array.isArray(b) || ArrayBuffer.isView(b)) || a.length !== b.length) return false;
    return typeof a[0] === 'number' ? sameElements(a, b) : sameItems(a, b);
  }
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => sameValue(a[key], b[key]));
}

// Two loops of the same code, one for rows of numbers and one for everything
// else: each sees few kinds of array, so V8 reads their elements fast. As one
// loop over tokens, flags, rows and numbers alike it was ~10 ms a compare of
// X and C of 4096 × 64 once optimised, and 40–70 ms in a compare run cold.
function sameElements(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameValue(a[i], b[i])) return false; // (no call per equal number)
  return true;
}

function sameItems(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameValue(a[i], b[i])) return false;
  return true;
}

// The matrix numbers of a state: what an entry costs (and whether the page writes its link at once).
export function numbersOf(state) {
  const size = (m) => (Array.isArray(m) && m.length > 0 ? m.length * m[0].length : 0);
  let n = size(state.x) + size(state.wo) + (state.context ? size(state.context.x) : 0);
  for (const head of state.heads || []) n += size(head.wq) + size(head.wk) + size(head.wv);
  return n;
}

export class History {
  constructor() {
    this.entries = []; // states
    this.index = -1;
  }

  record(state) {
    const current = this.entries[this.index];
    if (current && sameInputs(current, state)) return; // the same inputs (another view): the same entry

    this.entries.splice(this.index + 1);
    this.entries.push(state);
    let numbers = this.entries.reduce((sum, entry) => sum + numbersOf(entry), 0);
    while (this.entries.length > 1 && (this.entries.length > MAX_ENTRIES || numbers > MAX_NUMBERS)) {
      const [dropped] = this.entries.splice(0, 1);
      numbers -= numbersOf(dropped);
    }
    this.index = this.entries.length - 1;
  }

  // The entry on screen (the same object while it stays), or null.
  current() {
    return this.entries[this.index] || null;
  }

  canUndo() {
    return this.index > 0;
  }

  canRedo() {
    return this.index < this.entries.length - 1;
  }

  // The state before (after) the current one, or null.
  undo() {
    if (this.index < 1) return null;
    this.index -= 1;
    return this.entries[this.index];
  }

  redo() {
    if (!this.canRedo()) return null;
    this.index += 1;
    return this.entries[this.index];
  }
}

// 'undo', 'redo' or null for a keydown: Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z, Ctrl+Y.
// Text fields keep the browser's own undo of their typing.
export function undoKey(event) {
  if (!(event.ctrlKey || event.metaKey) || event.altKey) return null;
  const key = event.key.toLowerCase();
  const action = key === 'z' ? (event.shiftKey ? 'redo' : 'undo') : key === 'y' && event.ctrlKey && !event.shiftKey ? 'redo' : null;
  if (!action) return null;
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  const ownUndo = target && typeof target.closest === 'function'
    && target.closest('textarea, [contenteditable=""], [contenteditable="true"], input:not([type=checkbox], [type=radio], [type=button], [type=file], [type=range], [type=color])');
  return ownUndo ? null : action;
}
