// The presets: the tutorial's worked example ("finding a person in a
// classroom"), the same numbers with English tokens, and a longer sentence
// with reproducible random vectors.

import { randomInputs } from './random.js';

const TUTORIAL_NUMBERS = {
  x: [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
  wq: [[0.5, 0.2], [0.1, 0.6]],
  wk: [[0.4, 0.3], [0.2, 0.7]],
  wv: [[0.8, 0.1], [0.3, 0.9]],
};

export const TUTORIAL = TUTORIAL_NUMBERS;

const LONG_SENTENCE = 'The animal didn’t cross the street because it was too tired';
export const LONG_SEED = 2024;
const LONG_DIMS = { dModel: 4, dk: 4, dv: 4 };

export const PRESETS = {
  tutorial: { sentence: '我爱你', mode: 'char', ...TUTORIAL_NUMBERS },
  english: { sentence: 'I love you', mode: 'space', ...TUTORIAL_NUMBERS },
  long: {
    sentence: LONG_SENTENCE,
    mode: 'space',
    seed: LONG_SEED,
    ...randomInputs(LONG_SEED, LONG_SENTENCE.split(' ').length, LONG_DIMS),
  },
};

// What the tutorial prints (wrongly) in its eight-digit blocks, next to which
// the page shows the true values (shared/REFERENCE.md). Keyed by result.
export const TUTORIAL_PRINTED = {
  scaled: [[0.18384776, 0.1767767, 0.16970563], [0.16970563, 0.20506082, 0.24041631], [0.15556349, 0.23334524, 0.31112698]],
  weights: [[0.33614837, 0.33310516, 0.33074647], [0.32184448, 0.33343385, 0.34472167], [0.30815179, 0.33241613, 0.35943208]],
  output: [[0.55158713, 0.49825904], [0.5443457, 0.50918687], [0.53701315, 0.52096187]],
};
