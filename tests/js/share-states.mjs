// States the share tests read (tests/js/web-share.test.mjs, web-share-large.test.mjs).
import { tutorialState } from '../../web/src/state/presets.js';

// two heads, W_O, masks, temperature and positional encoding, odd numbers (1e-17, 0.1 + 0.2)
export const variant = () => ({
  ...tutorialState('en'),
  heads: [
    { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] },
    { wq: [[-0.1, 1e-17], [0.3, 2]], wk: [[0.1, 0.2], [0.3, 0.4]], wv: [[1, 2], [3, 4]] },
  ],
  wo: [[1, 0], [0, 1], [0.5, 0.5], [0.1 + 0.2, -3]],
  causal: true,
  keyPadding: [false, true, false],
  temperature: 0.7,
  positionalEncoding: true,
  view: { step: 'softmax', head: 1, lang: 'en', decimals: 6 },
});

// A state at n = 4096, d = 64 (some 5 MB of JSON) with the shapes a state has.
export const largeState = () => {
  const random = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.random() - 0.5));
  return {
    ...tutorialState('zh'),
    tokens: Array.from({ length: 4096 }, (_, i) => String.fromCodePoint(0x4e00 + i)),
    x: random(4096, 64),
    heads: [{ wq: random(64, 64), wk: random(64, 64), wv: random(64, 64) }],
    keyPadding: Array.from({ length: 4096 }, (_, i) => i % 7 === 0),
    view: { step: 'softmax', head: 0, lang: 'zh', decimals: 4 },
  };
};
