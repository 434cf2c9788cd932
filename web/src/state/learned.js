// The learned presets of "How it learns" (learned-data.js, written by
// scripts/make-learned-presets.mjs): weights this engine trained toward a
// goal, each with a line in i18n.js (learnedNote_<name>) saying what it
// learned and from which goal.

import { LEARNED } from './learned-data.js';
import { tokenize } from '../io/tokenize.js';
import { exampleOf } from './presets.js';
import { OPTION_DEFAULTS } from './options.js';
import { STATE_VERSION } from './schema.js';

export const LEARNED_NAMES = Object.keys(LEARNED);

// The learned preset whose tokens and numbers (X, W_Q, W_K, W_V) these are, or null.
export const learnedOf = (tokens, matrices) => exampleOf(LEARNED, tokens, matrices);

// The preset as a state (schema.js), every option at its default, shown at the "How it learns" step with its goal.
export function learnedState(name, view) {
  const preset = LEARNED[name];
  const tokens = tokenize(preset.sentence, preset.mode);
  return {
    version: STATE_VERSION,
    tokens,
    x: preset.x,
    heads: [{ wq: preset.wq, wk: preset.wk, wv: preset.wv }],
    ...OPTION_DEFAULTS,
    keyPadding: tokens.map(() => false),
    view: { ...view, step: 'learn', head: 0 },
    learn: { goal: preset.goal, lr: preset.learningRate, trainX: preset.trainX },
  };
}
