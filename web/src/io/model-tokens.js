// A sentence read the way a model file's `tokenizer` says (scripts/train-models.mjs writes it):
//   'words'          one token per word, lowercased when `lowercase`; punctuation dropped, an
//                    apostrophe inside a word kept (didn’t → didn't)
//   'words-and-han'  English words and "." one token each, lowercased when `lowercase`; Chinese
//                    one token per character, "。" its own; `start` (e.g. <s>) first
//   'characters'     one token per character, spaces skipped
// Every token is looked up in the model's vocab: { text, id } with id −1 for a token the model
// does not know, which the caller marks and says what it does instead (never a silent zero).
//   modelTokens(model, text) → { tokens: [{ text, id }], unknown: [positions], started }

export const TOKENIZER_KINDS = ['words', 'words-and-han', 'characters'];

const APOSTROPHES = /[’‘`´]/g;
const HAN = /\p{Script=Han}/gu;

function graphemes(text) {
  if (typeof Intl.Segmenter === 'function') {
    return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (s) => s.segment);
  }
  return Array.from(text);
}

function split(kind, text) {
  if (kind === 'characters') return graphemes(text).filter((ch) => !/\s/u.test(ch));
  if (kind === 'words') return text.match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) || [];
  // words-and-han: each Han character is a token of its own; between them, a run of letters or
  // digits is a word, and "." or any other mark that is not a space is a token of its own
  return text.replace(HAN, ' $& ').match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*|\S/gu) || [];
}

export function modelTokens(model, text) {
  const spec = model.tokenizer || {};
  if (!TOKENIZER_KINDS.includes(spec.kind)) {
    throw Object.assign(new Error(`tokenizer.kind must be one of ${TOKENIZER_KINDS.join(', ')}`), { code: 'choice', path: 'tokenizer.kind' });
  }
  let normal = String(text).normalize('NFC').replace(APOSTROPHES, "'");
  if (spec.lowercase) normal = normal.toLowerCase();
  const ids = new Map(model.vocab.map((token, id) => [token, id]));
  const pieces = split(spec.kind, normal);
  const started = typeof spec.start === 'string' && ids.has(spec.start);
  const texts = started ? [spec.start, ...pieces] : pieces;
  const tokens = texts.map((t) => ({ text: t, id: ids.has(t) ? ids.get(t) : -1 }));
  const unknown = tokens.flatMap((t, i) => (t.id < 0 ? [i] : []));
  return { tokens, unknown, started };
}
