// The presets: the tutorial's worked example ("finding a person in a
// classroom") and the same numbers with English tokens, whose weights are
// near-uniform, then three small hand-built heads where attention visibly
// does something. Each has a line in i18n.js (presetNote_<name>) saying what
// to look at. tests/make_preset_fixtures.py builds the same inputs from the
// rationale below and checks the pattern with numpy.

import { sameNumbers } from './model.js';
import { tokenize } from '../io/tokenize.js';
import { STATE_VERSION } from './schema.js';
import { OPTION_DEFAULTS } from './options.js';
import { DEFAULT_DECIMALS } from '../ui/format.js';

const TUTORIAL_NUMBERS = {
  x: [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
  wq: [[0.5, 0.2], [0.1, 0.6]],
  wk: [[0.4, 0.3], [0.2, 0.7]],
  wv: [[0.8, 0.1], [0.3, 0.9]],
};

export const TUTORIAL = TUTORIAL_NUMBERS;

// The tutorial as a whole state (schema.js), every option at its default.
export function tutorialState(lang = 'zh') {
  return {
    version: STATE_VERSION,
    tokens: ['我', '爱', '你'],
    x: TUTORIAL.x,
    heads: [{ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }],
    ...OPTION_DEFAULTS,
    keyPadding: [false, false, false],
    view: { step: 'input', head: 0, lang, decimals: DEFAULT_DECIMALS },
  };
}

// "it" finds "animal". X's columns (d_model = 4), one feature each:
//   dim 0: is a noun (animal, street)    dim 1: is alive (animal)
//   dim 2: is a pronoun (it)             dim 3: is a feeling (tired)
// Every other word has none of them. Q's columns (d_k = 2): "wants a noun",
// "wants something alive"; "it" wants both (a trained model learns this from
// "tired"; here it is set by hand), "tired" wants something alive. K's
// columns: "is a noun", "is alive", at strength 2. So it·animal = 4,
// it·street = 2, and 0 elsewhere. V (d_v = 2) carries "noun" and "alive":
// "it"'s output picks up "alive" from "animal".
const ANIMAL = {
  sentence: 'The animal didn’t cross the street because it was too tired',
  mode: 'space',
  x: [
    [0, 0, 0, 0], // The
    [1, 1, 0, 0], // animal
    [0, 0, 0, 0], // didn’t
    [0, 0, 0, 0], // cross
    [0, 0, 0, 0], // the
    [1, 0, 0, 0], // street
    [0, 0, 0, 0], // because
    [0, 0, 1, 0], // it
    [0, 0, 0, 0], // was
    [0, 0, 0, 0], // too
    [0, 0, 0, 1], // tired
  ],
  wq: [[0, 0], [0, 0], [1, 1], [0, 1]],
  wk: [[2, 0], [0, 2], [0, 0], [0, 0]],
  wv: [[1, 0], [0, 1], [0, 0], [0, 0]],
};

// The identity of size n, times `scale`.
const identity = (n, scale = 1) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? scale : 0)));

// Each token looks at the one before it. X's column i (d_model = 6) says "I
// am at position i". W_Q moves position i to query column i − 1 ("I look
// for position i − 1"; the first token, with nothing before it, looks for
// itself), at strength 6; W_K = I (a key is its position), so the score is 6
// for the token before and 0 elsewhere: after ÷ √6, e^2.45 ≈ 11.6 times the
// weight of any other token. W_V = I: the output copies the previous position.
const PREVIOUS = {
  sentence: 'the cat sat on the mat',
  mode: 'space',
  x: identity(6),
  wq: [
    [6, 0, 0, 0, 0, 0],
    [6, 0, 0, 0, 0, 0],
    [0, 6, 0, 0, 0, 0],
    [0, 0, 6, 0, 0, 0],
    [0, 0, 0, 6, 0, 0],
    [0, 0, 0, 0, 6, 0],
  ],
  wk: identity(6),
  wv: identity(6),
};

// Each token looks at every copy of its own word. X's columns (d_model = 6)
// are the words: the, cat, saw, dog, and, ran. W_Q = 6·I and W_K = I read the
// word, so the score is 6 between copies of one word and 0 otherwise; the
// position plays no part (compare "previous").
const SAME_WORD = {
  sentence: 'the cat saw the dog and the cat ran',
  mode: 'space',
  x: [
    [1, 0, 0, 0, 0, 0], // the
    [0, 1, 0, 0, 0, 0], // cat
    [0, 0, 1, 0, 0, 0], // saw
    [1, 0, 0, 0, 0, 0], // the
    [0, 0, 0, 1, 0, 0], // dog
    [0, 0, 0, 0, 1, 0], // and
    [1, 0, 0, 0, 0, 0], // the
    [0, 1, 0, 0, 0, 0], // cat
    [0, 0, 0, 0, 0, 1], // ran
  ],
  wq: identity(6, 6),
  wk: identity(6),
  wv: identity(6),
};

// In the order of the buttons.
export const PRESETS = {
  tutorial: { sentence: '我爱你', mode: 'char', ...TUTORIAL_NUMBERS },
  english: { sentence: 'I love you', mode: 'space', ...TUTORIAL_NUMBERS },
  animal: ANIMAL,
  previous: PREVIOUS,
  same: SAME_WORD,
};

// The name of the example of `examples` ({name: {sentence, mode, x, wq, wk, wv}}: the presets,
// the learned ones of learned.js) whose tokens and numbers (X, and W_Q, W_K, W_V of head 0)
// these are, or null.
export function exampleOf(examples, tokens, matrices) {
  const name = Object.keys(examples).find((key) => {
    const example = examples[key];
    const own = tokenize(example.sentence, example.mode);
    return own.length === tokens.length && own.every((token, i) => token === tokens[i])
      && ['x', 'wq', 'wk', 'wv'].every((f) => sameNumbers(matrices[f], example[f]));
  });
  return name || null;
}

export const presetOf = (tokens, matrices) => exampleOf(PRESETS, tokens, matrices);

// What the tutorial prints (wrongly) in its eight-digit blocks, next to which
// the page shows the true values (tests/REFERENCE.md). Keyed by result.
export const TUTORIAL_PRINTED = {
  scaled: [[0.18384776, 0.1767767, 0.16970563], [0.16970563, 0.20506082, 0.24041631], [0.15556349, 0.23334524, 0.31112698]],
  weights: [[0.33614837, 0.33310516, 0.33074647], [0.32184448, 0.33343385, 0.34472167], [0.30815179, 0.33241613, 0.35943208]],
  output: [[0.55158713, 0.49825904], [0.5443457, 0.50918687], [0.53701315, 0.52096187]],
};
