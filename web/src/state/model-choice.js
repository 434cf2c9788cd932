// A state that names a model (options.js `model`): its matrices are the model's, derived from its
// name, layer and tokens (engine/model-run.js), so a link and the embed code name the model and
// the sentence, never the weights.
//   modelText(tokens)        the text the model's tokenizer reads the tokens again from
//   withModelInputs(input)   a state named by a link, with stand-in matrices until it is read
//   withoutModelInputs(s)    what a link keeps of a model state
//   MODEL_EXAMPLES           the sentence a model is first shown with
//   firstVisitState(lang)    what a fresh visit of the page opens on (FIRST_VISIT)

import { MAX_TOKENS, MAX_HEADS, validateState } from './schema.js';
import { followTokens } from './vectors.js';
import { TUTORIAL, tutorialState } from './presets.js';

const START = /^<\w+>$/; // a start token (<s>): the tokenizer puts it first itself

// Tokens of one character each (我 爱 你, or h e l l o split by character) are one word again.
export function modelText(tokens) {
  const words = tokens.length > 0 && START.test(tokens[0]) ? tokens.slice(1) : tokens;
  return words.join(words.every((t) => Array.from(t).length === 1) ? '' : ' ');
}

// The sentence each shipped model is first shown with (scripts/train-models.mjs's kind of text),
// when the sentence on screen has too few tokens it knows.
export const MODEL_EXAMPLES = {
  'learner-words': 'i love you . 我爱你。',
  'animal-street': "The animal didn't cross the street because it was too tired",
  induction: 'ABCDEFGHABCDEFGH',
};

// A fresh visit of the page (no link, no stored work) opens on attention that visibly picks:
// animal-street's layer 2, head 2 (0-based 1, 1; its role "coreference" holds in 100% of the
// held-out pairs) on the classic sentence, where "it" puts 0.999 of its weight on "animal"
// (numpy: tests/fixtures/model_page_cases.json; the tutorial's rows stay within 0.31–0.36).
// The tokens are the model's tokenizer's (io/model-tokens.js reads them back to the same).
export const FIRST_VISIT = {
  model: 'animal-street', layer: 1, head: 1, step: 'softmax',
  tokens: ['the', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired'],
};

export function firstVisitState(lang) {
  const tutorial = tutorialState(lang);
  const { model, layer, head, step, tokens } = FIRST_VISIT;
  const first = { ...tutorial, model, layer, tokens, keyPadding: tokens.map(() => false), view: { ...tutorial.view, head, step } };
  delete first.x; // (the model's matrices, stand-ins until it is read)
  delete first.heads;
  const checked = validateState(withModelInputs(first));
  return checked.state;
}

const named = (input) => input && typeof input === 'object' && typeof input.model === 'string' && input.model !== '';

// Stand-in matrices (made-up vectors of the tutorial's width, the tutorial's head as often as
// the view's head asks) for a model state read without its matrices: replaced by the model's
// once it is loaded, meanwhile said to be loading.
export function withModelInputs(input) {
  if (!named(input) || input.x !== undefined || !Array.isArray(input.tokens) || input.tokens.length > MAX_TOKENS
    || !input.tokens.every((t) => typeof t === 'string')) return input;
  const head = input.view && Number.isInteger(input.view.head) ? input.view.head : 0;
  const heads = Math.max(1, Math.min(MAX_HEADS, head + 1));
  return {
    ...input,
    x: followTokens(input.tokens, [], [], { width: TUTORIAL.x[0].length }),
    heads: Array.from({ length: heads }, () => ({ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv })),
  };
}

// A model state as a link holds it: the model, the layer and the tokens; not its matrices.
export function withoutModelInputs(state) {
  if (!named(state)) return state;
  const rest = { ...state };
  for (const field of ['x', 'heads', 'wo', 'bo']) delete rest[field];
  return rest;
}
