// What the element's views read of its state and result, as functions of them (element.js
// hands them on through its view host): the inputs the pipeline diagram draws, the steps'
// context, the status over the steps, and the engine's refusal of an edit as a message.

import { translate, describe } from '../ui/i18n.js';
import { quotedTokens } from '../ui/quote.js';
import { isPlain } from '../views/steps.js';
import { madeUpTokens } from '../state/vectors.js';
import { sameNumbers, locate, headField, fieldName, readState } from '../state/model.js';
import { TUTORIAL, presetOf } from '../state/presets.js';

// The engine's operands as the editor's fields.
const ENGINE_FIELDS = { x: 'x', wq: 'wq', wk: 'wk', wv: 'wv', wo: 'wo', context: 'c' };

// The inputs of `state` as the views read them (all the pipeline diagram needs;
// the steps' ctx adds the result), shown as `current` (the state on screen) says.
export function viewInputs(lang, state, current) {
  const { matrices, options } = readState(state);
  const head = Math.min(current.view.head, options.heads - 1);
  const tokens = state.tokens;
  const keyTokens = state.context ? state.context.tokens : tokens;
  return {
    lang, decimals: current.view.decimals, tokens, keyTokens, options, head, matrices,
    inputs: { x: matrices.x, c: matrices.c, wo: matrices.wo, ...state.heads[head], ...(state.bo ? { bo: state.bo } : {}) },
  };
}

// The steps' context: the result on screen with `view`, the inputs it was computed from
// (viewInputs); before: the comparison's {result, changes}, or null; more: what the steps
// call back and "How it learns" (onCloseCompare, onOpenHead, learn, learnSettings).
export function stepsContext(view, result, before, more) {
  const { options, tokens, matrices, head } = view;
  return {
    ...view,
    result: result.heads[head], full: result,
    // the tutorial's printed values are of temperature 1
    tutorial: isPlain(options) && options.temperature === 1 && tokens.length === 3 && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(matrices[f], TUTORIAL[f])),
    // the preset whose numbers these are (head 0's, on its own tokens), whatever the options:
    // its note says what the weights on screen now show (hints.js)
    preset: !options.cross && head === 0 ? presetOf(tokens, matrices) : null,
    compare: before && before.changes.length > 0 ? {
      before: { weights: before.result.heads[head].weights, masked: before.result.masked },
      after: { weights: result.heads[head].weights, masked: result.masked },
      changes: before.changes,
    } : null,
    ...more,
  };
}

// The engine's refusal of `state`, naming the field, row and column (the token) it is about:
// a descriptor of i18n.js.
export function engineRefusal(error, state) {
  const base = ENGINE_FIELDS[error.operand];
  const field = base && (['wq', 'wk', 'wv'].includes(base) ? headField(base, error.head || 0) : base);
  const tokens = field === 'c' ? state.context.tokens : state.tokens;
  const params = { ...locate(field, error.row, error.column, tokens), name: field ? fieldName(field) : error.operand, message: error.message };
  return { key: error.code === 'overflow' ? 'errOverflow' : 'errEngine', params };
}

// The status over the steps, full and compact alike: [kind, text] of each message, from s: {
// errors (descriptors: the attributes that do not read), engineError ({code, message}: the
// engine did not load) and loadFailure(it) (its words), loaded, running (a computation under
// way), refusals (descriptors: the engine's refusal of the newest edit, the page's message),
// shown (the state shown), stale (what is typed does not read), after (descriptors) }.
export function statusMessages(lang, s) {
  const messages = [];
  const add = (kind, text) => messages.push([kind, text]);
  for (const descriptor of s.errors) add('error', describe(lang, descriptor));
  if (s.engineError) add('error', s.loadFailure(s.engineError));
  else if (!s.loaded) add('loading', translate(lang, 'loading'));
  else if (s.running) add('loading', translate(lang, 'computing'));
  for (const descriptor of s.refusals) add('error', describe(lang, descriptor));
  const madeUp = s.shown ? madeUpTokens(s.shown) : [];
  if (madeUp.length > 0) add('note', translate(lang, 'madeUpVectors', quotedTokens(madeUp)));
  // what is typed in the editor does not read (its message is under its field): the steps show the last that did
  if (s.stale) add('stale', translate(lang, 'staleNote'));
  for (const descriptor of s.after) add('error', describe(lang, descriptor));
  return messages;
}
