// Undo and redo of edits (the store's, store.js). Each entry is a state
// (schema.js), recorded whenever the inputs or options change; a change of
// step, head, language or decimals alone is not an edit. States are never
// changed in place (store.js), so an entry is the state itself, not a copy.
// Entries are kept up to MAX_ENTRIES and MAX_NUMBERS matrix numbers in all
// (a few of 4096 tokens, many small ones).

const MAX_ENTRIES = 200;
const MAX_NUMBERS = 4 * 1024 * 1024;

// Whether two states have the same inputs (their views may differ, and `guess`: a setting of the
// walk, options.js, which changes nothing computed). States
// never change in place (store.js), so the last answer for each field (X, the
// heads, C, …) is kept: a commit asks of the same matrices twice (the history
// against its entry, then the element against the state it last saw, which a
// change of view alone made another object holding the same matrices), and at
// n = 4096 equal inputs (a fill with the same seed) take 2–5 ms each time.
const lastAnswers = new Map(); // field → {a, b, same}
export function sameInputs(a, b) {
  if (!a || !b) return false;
  return Object.keys({ ...a, ...b }).every((key) => key === 'view' || key === 'guess' || sameField(key, a[key], b[key]));
}

function sameField(key, a, b) {
  if (a === b || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return sameValue(a, b);
  const last = lastAnswers.get(key);
  if (last && ((last.a === a && last.b === b) || (last.a === b && last.b === a))) return last.same;
  const same = sameValue(a, b);
  lastAnswers.set(key, { a, b, same });
  return same;
}

// JSON-like values (a state's): equal numbers, strings and booleans, arrays (typed too) and objects of them.
function sameValue(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || ArrayBuffer.isView(a)) {
    if (!(Array.isArray(b) || ArrayBuffer.isView(b)) || a.length !== b.length) return false;
    if (typeof a[0] === 'number') return sameRow(a, b);
    if (Array.isArray(a[0]) && typeof a[0][0] === 'number') return sameMatrix(a, b);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameValue(a[i], b[i])) return false;
    return true;
  }
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => sameValue(a[key], b[key]));
}

// Matrices and rows of numbers get loops of their own, which compare with !==
// alone (they hold numbers only); sameMatrix takes matrices of as many rows
// (model.js sameNumbers checks that). A matrix is one loop over all its numbers,
// which V8 optimises while it runs; as a loop of 64 numbers called for each row
// (and sameValue's loop, which sees tokens, flags and rows as well) a compare
// of X and C of 4096 × 64 with equal numbers took 23–80 ms on the page, the
// loop left unoptimised or thrown back to the interpreter by a kind of array
// it had not seen.
export function sameMatrix(a, b) {
  for (let r = 0; r < a.length; r++) {
    const x = a[r];
    const y = b[r];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) {
      if (!sameValue(x, y)) return false;
      continue;
    }
    for (let c = 0; c < x.length; c++) if (x[c] !== y[c]) return false;
  }
  return true;
}

function sameRow(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
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
