// When the element tells of a change (event `change`, detail {state}: docs/authoring.md): after
// every edit and step change the user makes, a drag (scrub.js) once, when let go; a change the
// element makes itself (a state set, the attributes read, an undo) is made quietly: its caller
// sends the event, or none is due. Undo and redo are the store's (store.js, history.js).

export class Changes {
  // store: the element's StateStore; tell(): sends the change event; hold(on): the view's (a drag)
  constructor({ store, tell, hold }) {
    this._store = store;
    this._tell = tell;
    this._holdView = hold;
    this.quiet = false; // a change made quietly, under way: the store's subscriber does not tell it
    this.holding = false; // a drag under way (scrub.js): its change event waits for its end
    this._held = false; // a change during the drag, not told yet
  }

  // Runs fn, then tells the store's subscribers, without a change event.
  quietly(fn) {
    this.quiet = true;
    try {
      fn();
      this._store.flush();
    } finally {
      this.quiet = false;
    }
  }

  // A change by the user: told now, or (a drag under way) when let go.
  changed() {
    if (this.holding) this._held = true;
    else this._tell();
  }

  // A drag updates the steps as it goes, and is one change (and one undo entry) when let go.
  hold(on) {
    this._store.hold(on);
    this.holding = on;
    this._holdView(on);
    if (on || !this._held) return;
    this._held = false;
    this._tell();
  }

  // Undo and redo (editable: Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z, Ctrl+Y): the inputs before (after)
  // the last edit, with the view on screen; told at once.
  undoRedo(action) {
    if (!(action === 'undo' ? this._store.undo() : this._store.redo())) return;
    this.quietly(() => {});
    this._tell();
  }
}
