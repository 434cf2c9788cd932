// What the user built on the full page, kept in localStorage so that it
// survives a reload and a closed tab. Nothing the user made is ever lost to
// something else arriving:
//
// - The newest edit wins a reload. Every state this page keeps is marked with
//   a revision ({writer, rev}: writer is this page load, rev counts its
//   states); the same mark goes into history.state with each hash the page
//   writes. A browser may drop history.replaceState in a burst of edits
//   (Chromium throttles it), leaving an older hash in the address bar: on
//   reload, a hash whose mark is the stored state's writer at the same or an
//   older revision is this page's own and the stored state opens. Any other
//   hash is a link, and the link wins (it is what the sender meant to show).
// - Work replaced by a link, a state file or a preset is set aside under its
//   own key (PREVIOUS_KEY, PREVIOUS_KEY.2, …) when the user made it, and
//   offered back (restore or discard) on every visit until the user decides.
//   A newer copy of the same work (the same inputs, another view) takes the
//   older copy's key. With SHELF_SIZE different works set aside, the next one
//   stays under STATE_KEY (nothing is saved over it) until the user discards
//   or restores one: then it takes the freed key and saving resumes.
// - A stored state that cannot be read (damaged, or from a future version) is
//   set aside under DAMAGED_KEY (or DAMAGED_KEY.2, …), reported and offered
//   for download. Where it cannot be set aside (storage full, or SHELF_SIZE
//   set aside already) it stays under STATE_KEY, nothing is saved over it,
//   and the notice says so.
// - Storage may be unavailable (blocked, private mode, full): the page works
//   on without it and says so once.
// - A large state (over DEFER_CHARS) is written in a task of its own, the
//   latest of a burst only, and one that differs from the last in its view alone
//   (the step or head shown) only with the next change of the inputs; it is
//   written at once before the page is hidden or left and before anything else
//   reads or writes storage, so no order changes. A state over PART_CHARS is
//   written in parts, one a task (setItem of 1.5 MB took 20–190 ms of a task at
//   n = 4096; of 256 K characters, 1–4 ms), then the value under STATE_KEY that
//   names them; the parts it named before are removed after it. The parts
//   named are always whole: a tab closed midway leaves parts no value names,
//   removed by a later load once STALE_PART_MS old.
//
// The stored value: `${MARK_PREFIX}{"writer","rev","made"}\n` + the state's JSON
// (made: the user edited it since it arrived), or, for a state in parts,
// `${MARK_PREFIX}{"writer","rev","made","parts":{"id","count","chars"}}\n`
// alone, its JSON in `${PART_PREFIX}${id}.${i}` for i < count (chars: their
// length together). A value without the mark line (saved before marks) reads as
// a state of an unknown writer.

import { parseStateJson } from './json.js';
import { sameInputs } from './history.js';

export const STATE_KEY = 'attention-visualizer.state';
export const DAMAGED_KEY = 'attention-visualizer.state.damaged';
export const PREVIOUS_KEY = 'attention-visualizer.state.previous';
export const SHELF_SIZE = 10;
export const MARK_PREFIX = 'av-mark ';
export const DEFER_CHARS = 1 << 16;
export const PART_CHARS = 1 << 18;
export const PART_PREFIX = `${STATE_KEY}.part.`;
export const STALE_PART_MS = 60000;

// The keys one kind of set-aside state may take: base, base.2, … base.SHELF_SIZE.
export const shelfKeys = (base) => Array.from({ length: SHELF_SIZE }, (_, i) => (i === 0 ? base : `${base}.${i + 1}`));

const isMark = (mark) => Boolean(mark) && typeof mark === 'object' && typeof mark.writer === 'string'
  && Number.isSafeInteger(mark.rev) && mark.rev >= 0;

// {mark, text} of a stored value: mark null when it has no (readable) mark line.
function splitStored(value) {
  if (!value.startsWith(MARK_PREFIX)) return { mark: null, text: value };
  const end = value.indexOf('\n');
  let mark = null;
  try {
    mark = JSON.parse(value.slice(MARK_PREFIX.length, end));
  } catch {
    // a damaged mark line: the state below it is read on its own
  }
  return { mark: isMark(mark) && typeof mark.made === 'boolean' ? mark : null, text: end < 0 ? '' : value.slice(end + 1) };
}

// The parts a stored value names ({id, count, chars}), or null.
function partsOf(mark) {
  const parts = mark && mark.parts;
  const ok = parts && typeof parts.id === 'string' && Number.isSafeInteger(parts.count) && parts.count > 0
    && Number.isSafeInteger(parts.chars);
  return ok ? { id: parts.id, count: parts.count, chars: parts.chars } : null;
}

const partKey = (id, i) => `${PART_PREFIX}${id}.${i}`;

// The value a stored value stands for: its mark line and the text of its parts
// joined (a part missing leaves the text short, and it reads as damaged).
function gather(storage, value, parts) {
  let text = '';
  for (let i = 0; i < parts.count; i++) text += storage.getItem(partKey(parts.id, i)) ?? '';
  return `${value}${text}`;
}

// This page load's id among the loads of one browser (no secret).
const randomWriter = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

export class Store {
  // storage: a function returning the Storage (it may throw when blocked).
  // onProblem(): called when a deferred write changed `problem`.
  constructor(storage = () => globalThis.localStorage, writer = randomWriter(), onProblem = () => {}) {
    this.storage = storage;
    this.writer = writer;
    this.onProblem = onProblem;
    this.pending = null; // a large value waiting for its own task (or, a change of view alone, for the page to be left)
    this.timer = 0; // that task
    this.writing = null; // {value, text, parts, done} of a value being written in parts (text: its JSON; done: the parts written)
    this.savedParts = null; // the parts the value under STATE_KEY names, as this page last wrote or read it
    this.partWrites = 0; // counts this page's writes in parts (each has its own id)
    this.flushNow = () => this.flush();
    this.writeSomeNow = () => this.writeSome();
    this.rev = 0; // the revision of the latest state given to save()
    this.latest = null; // that state's JSON
    this.problem = null; // null | 'unavailable' | 'full' | 'damaged'
    this.damaged = null; // {text, message, key} of a stored value that could not be read; key null: not set aside
    this.stored = null; // {text, mark} of the state loaded from storage
    this.saved = null; // the value last written
    this.readOnly = false; // true while STATE_KEY holds something that must not be overwritten
    this.unshelved = null; // {text} of replaced work that could not be set aside
    this.lastAside = null; // the key of the work set aside last in this tab (the notice names it)
    this.made = false; // the latest state given to save() is the user's own
  }

  // The stored state, or null (nothing stored, storage blocked, or damaged).
  load() {
    this.flush();
    let storage;
    let value;
    try {
      storage = this.storage();
      value = storage.getItem(STATE_KEY);
    } catch {
      this.problem = 'unavailable';
      return null;
    }
    if (value === null) {
      this.sweep(storage, null);
      return null;
    }
    const { mark } = splitStored(value);
    const parts = partsOf(mark);
    const whole = parts ? gather(storage, value, parts) : value;
    const { text } = splitStored(whole);
    this.sweep(storage, parts);
    const parsed = parts && text.length !== parts.chars
      ? { ok: false, message: { key: 'errStateParts', params: { count: parts.count, got: text.length, chars: parts.chars } } }
      : parseStateJson(text);
    if (parsed.ok) {
      this.saved = whole;
      this.savedParts = parts;
      this.stored = { text, mark };
      return parsed.state;
    }
    this.problem = 'damaged';
    const key = this.shelve(DAMAGED_KEY, whole);
    this.damaged = { text: whole, message: parsed.message, key };
    if (key) {
      storage.removeItem(STATE_KEY);
      removeParts(storage, parts);
    } else {
      this.readOnly = true; // it stays where it is: nothing overwrites it
    }
    return null;
  }

  // Removes parts that no stored value names, left by a page closed while it
  // wrote them (older than STALE_PART_MS: a page writing now is not disturbed).
  sweep(storage, named) {
    const stale = [];
    try {
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (!key || !key.startsWith(PART_PREFIX)) continue;
        const id = key.slice(PART_PREFIX.length, key.lastIndexOf('.'));
        const made = parseInt(id, 36);
        if ((!named || id !== named.id) && !(Date.now() - made < STALE_PART_MS)) stale.push(key);
      }
      for (const key of stale) storage.removeItem(key);
    } catch {
      // left for a later load
    }
  }

  // Whether the user made the stored state (edited it since it arrived).
  storedMade() {
    return Boolean(this.stored) && (!this.stored.mark || this.stored.mark.made);
  }

  // How a hash with this mark (its history.state) relates to the stored
  // state: 'stored-newer' (this page's own hash, and the stored state is the
  // same or later work), 'own-older-stored' (this page's own, but storage
  // kept only an earlier state) or 'link'.
  hashOrigin(mark) {
    const own = this.stored && this.stored.mark;
    if (!isMark(mark) || !own || mark.writer !== own.writer) return 'link';
    return mark.rev <= own.rev ? 'stored-newer' : 'own-older-stored';
  }

  // The mark of the latest state given to save(), for history.state.
  mark() {
    return { writer: this.writer, rev: this.rev };
  }

  // Keeps `text` (a state as JSON); made: the user edited it since it arrived;
  // viewOnly: its inputs are those of the state saved before (another step or
  // head shown). Returns false when it could not be kept (a large state is kept
  // later: a problem writing it is told through onProblem).
  save(text, made, viewOnly = false) {
    if (text !== this.latest) {
      this.rev += 1;
      this.latest = text;
    }
    this.made = made;
    const value = `${MARK_PREFIX}${JSON.stringify({ writer: this.writer, rev: this.rev, made })}\n${text}`;
    if (this.readOnly || this.problem === 'unavailable') return false;
    if (value === this.saved) {
      this.pending = null;
      return true;
    }
    if (value.length <= DEFER_CHARS) {
      this.pending = null;
      return this.write(value);
    }
    if (this.pending === null && globalThis.addEventListener) {
      // before the page is hidden or left (a reload) the write cannot wait
      globalThis.addEventListener('pagehide', this.flushNow);
      globalThis.addEventListener('visibilitychange', this.flushNow);
    }
    // A change of view alone waits for the next change of the inputs or for the
    // page to be hidden or left: at n = 4096 each write of 1.5 MB took 20–190 ms
    // of a task, for another step or head shown.
    if (!viewOnly && !this.timer && globalThis.addEventListener) this.timer = setTimeout(this.writeSomeNow, 0);
    this.pending = value;
    if (!globalThis.addEventListener) this.flush(); // no page to keep responsive (node)
    return true;
  }

  // Writes what waits: a value in parts one part a task (the next task is asked
  // for until it is written), any other whole.
  writeSome() {
    this.timer = 0;
    try {
      if (this.pending !== null && this.pending.length > PART_CHARS && !this.readOnly && this.problem !== 'unavailable'
        && this.writePart(this.pending)) {
        this.timer = setTimeout(this.writeSomeNow, 0);
        return;
      }
    } catch {
      // flush() meets it again, and tells it
    }
    this.flush();
  }

  // Writes the value waiting, if any, at once; onProblem() when that changed `problem`.
  flush() {
    clearTimeout(this.timer);
    this.timer = 0;
    const value = this.pending;
    this.pending = null;
    if (value === null) {
      this.abandon();
      return;
    }
    globalThis.removeEventListener?.('pagehide', this.flushNow);
    globalThis.removeEventListener?.('visibilitychange', this.flushNow);
    const problem = this.problem;
    if (!this.readOnly && problem !== 'unavailable') this.write(value);
    else this.abandon();
    if (this.problem !== problem) this.onProblem();
  }

  // Writes the next part of `value` unless all are (a write in parts of
  // another value is dropped first). Returns whether parts remain to be
  // written; throws what storage threw.
  writePart(value) {
    const storage = this.storage();
    if (this.writing && this.writing.value !== value) this.dropWriting(storage);
    if (!this.writing) {
      this.partWrites += 1;
      const id = `${Date.now().toString(36)}-${this.writer}-${this.partWrites}`;
      const text = value.slice(value.indexOf('\n') + 1); // the state's JSON, below the mark line
      this.writing = { value, text, parts: { id, count: Math.ceil(text.length / PART_CHARS), chars: text.length }, done: 0 };
    }
    const { text, parts, done } = this.writing;
    if (done < parts.count) {
      storage.setItem(partKey(parts.id, done), text.slice(done * PART_CHARS, (done + 1) * PART_CHARS));
      this.writing.done += 1;
    }
    return this.writing.done < parts.count;
  }

  // Removes the parts written of a write in parts no longer wanted.
  dropWriting(storage) {
    const { parts, done } = this.writing;
    this.writing = null;
    removeParts(storage, { id: parts.id, count: done });
  }

  abandon() {
    if (!this.writing) return;
    try {
      this.dropWriting(this.storage());
    } catch {
      this.writing = null; // storage blocked since: a later load removes them
    }
  }

  // Keeps value (a mark line and a state's JSON) under STATE_KEY: over
  // PART_CHARS in parts (those not written yet first), named by the mark line
  // alone under STATE_KEY. The parts of the value it replaced are removed after
  // it. Where the parts do not fit, those written are removed, and the value
  // under STATE_KEY stays as it was.
  write(value) {
    let storage = null;
    try {
      storage = this.storage();
      if (this.writing && this.writing.value !== value) this.dropWriting(storage);
      let named = null;
      if (value.length > PART_CHARS) {
        while (this.writePart(value));
        named = this.writing.parts;
      }
      const markEnd = value.indexOf('\n') - 1; // the mark line's closing brace
      storage.setItem(STATE_KEY, named ? `${value.slice(0, markEnd)},"parts":${JSON.stringify(named)}}\n` : value);
      this.writing = null;
      if (this.savedParts && this.savedParts.id !== named?.id) removeParts(storage, this.savedParts);
      this.savedParts = named;
      this.saved = value;
      if (this.problem === 'full') this.problem = null;
      return true;
    } catch (error) {
      if (storage) this.abandon();
      // QuotaExceededError: this state is too large; a smaller one may fit later.
      this.problem = error && error.name === 'QuotaExceededError' ? 'full' : 'unavailable';
      return false;
    }
  }

  // Puts `text` under the first free key of base's shelf, or under the key
  // that holds it already (or, given same(held, text), an older copy of it).
  // Returns the key, or null when it could not be kept.
  shelve(base, text, same = () => false) {
    this.flush();
    try {
      const storage = this.storage();
      let free = null;
      for (const key of shelfKeys(base)) {
        const held = storage.getItem(key);
        if (held === text) return key;
        if (held !== null && same(held, text)) {
          storage.setItem(key, text);
          return key;
        }
        if (held === null && free === null) free = key;
      }
      if (free) storage.setItem(free, text);
      return free;
    } catch {
      return null;
    }
  }

  // Sets aside work (a state's JSON) that something else is about to replace.
  // When it cannot be, STATE_KEY (which holds it, or its latest stored form)
  // is not overwritten, and the notice offers it for download.
  setAsideWork(text) {
    if (this.problem === 'unavailable') return; // nothing is stored at all; undo still has it
    // work already waiting is the one under STATE_KEY: it keeps its place (the
    // later work is in the link and in undo, as the notice says)
    const key = this.shelve(PREVIOUS_KEY, text, sameWork);
    if (key) this.lastAside = key;
    else if (!this.unshelved) {
      this.unshelved = { text };
      this.readOnly = true;
    }
  }

  // The work set aside on earlier replacements: [{key, state}], readable ones only.
  previousWork() {
    this.flush();
    try {
      const storage = this.storage();
      return shelfKeys(PREVIOUS_KEY).flatMap((key) => {
        const text = storage.getItem(key);
        const parsed = text === null ? null : parseStateJson(text);
        return parsed && parsed.ok ? [{ key, state: parsed.state }] : [];
      });
    } catch {
      return [];
    }
  }

  // The user restored or discarded set-aside work (key null: the unshelved
  // one). Work waiting for room on the shelf takes the freed key, and the
  // latest state is saved again.
  forget(key) {
    this.flush();
    if (key !== null) {
      try {
        this.storage().removeItem(key);
      } catch {
        return; // blocked since: it stays; nothing is lost
      }
      if (key === this.lastAside) this.lastAside = null;
      const shelved = this.unshelved && this.shelve(PREVIOUS_KEY, this.unshelved.text, sameWork);
      if (!shelved) return;
      this.lastAside = shelved;
    }
    this.unshelved = null;
    if (!this.damaged || this.damaged.key) this.readOnly = false;
    if (key !== null && this.latest !== null) this.save(this.latest, this.made);
  }
}

function removeParts(storage, parts) {
  if (!parts) return;
  for (let i = 0; i < parts.count; i++) storage.removeItem(partKey(parts.id, i));
}

// Two states' JSON hold the same work: the same inputs (the view aside).
function sameWork(a, b) {
  const [x, y] = [parseStateJson(a), parseStateJson(b)];
  return x.ok && y.ok && sameInputs(x.state, y.state);
}

const SENTENCE_CHARS = 40;

// A set-aside state as a reader recognises it: its first tokens.
export function sentenceOf(state) {
  const joined = state.tokens.every((t) => Array.from(t).length === 1) ? state.tokens.join('') : state.tokens.join(' ');
  const chars = Array.from(joined);
  return chars.length > SENTENCE_CHARS ? `${chars.slice(0, SENTENCE_CHARS).join('')}…` : joined;
}
