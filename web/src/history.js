// Undo and redo of edits on the full page. Each entry is a state (share.js)
// as JSON, recorded whenever the inputs or options on screen change; a change
// of step, head, language or decimals alone is not an edit. Entries are kept
// up to MAX_ENTRIES and MAX_CHARS in all (a few of 4096 tokens, many small ones).

const MAX_ENTRIES = 200;
const MAX_CHARS = 32 * 1024 * 1024;

export const inputsOf = (state) => JSON.stringify({ ...state, view: null });

// inputsOf(state) from text = JSON.stringify(state), without a second pass over
// its numbers (at n = 4096, 20–40 ms): the view, written after every matrix and
// followed only by `learn` (no strings of the user's), replaced by null in place.
function inputsOfText(state, text) {
  const view = `,"view":${JSON.stringify(state.view)}`;
  const at = text.lastIndexOf(view);
  return state.view === undefined || at < 0 ? inputsOf(state) : `${text.slice(0, at)},"view":null${text.slice(at + view.length)}`;
}

export class History {
  constructor() {
    this.entries = []; // {inputs, text}
    this.index = -1;
  }

  // text: JSON.stringify(state), when the caller has it already.
  record(state, text = JSON.stringify(state)) {
    const inputs = inputsOfText(state, text);
    const current = this.entries[this.index];
    if (current && current.inputs === inputs) {
      current.text = text; // the same inputs, seen with another view
      return;
    }
    this.entries.splice(this.index + 1);
    this.entries.push({ inputs, text });
    let chars = this.entries.reduce((sum, entry) => sum + entry.inputs.length + entry.text.length, 0);
    while (this.entries.length > 1 && (this.entries.length > MAX_ENTRIES || chars > MAX_CHARS)) {
      const [dropped] = this.entries.splice(0, 1);
      chars -= dropped.inputs.length + dropped.text.length;
    }
    this.index = this.entries.length - 1;
  }

  // The entry on screen ({inputs, text}, the same object while it stays), or null.
  current() {
    return this.entries[this.index] || null;
  }

  canUndo() {
    return this.index > 0;
  }

  canRedo() {
    return this.index < this.entries.length - 1;
  }

  // The state to show (parsed), or null. back: 0 gives the current entry
  // again (the last valid inputs, when what is typed on screen is invalid).
  undo(back = 1) {
    if (this.index - back < 0) return null;
    this.index -= back;
    return JSON.parse(this.entries[this.index].text);
  }

  redo() {
    if (!this.canRedo()) return null;
    this.index += 1;
    return JSON.parse(this.entries[this.index].text);
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
