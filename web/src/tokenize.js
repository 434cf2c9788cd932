// Splits the sentence into tokens in one of three ways:
//   'char'  one token per character (the default for Chinese), spaces skipped;
//   'space' split at whitespace;
//   'word'  words and punctuation as Intl.Segmenter finds them.
// Array.from walks code points, so an emoji stays one character.

export function defaultMode(text) {
  return /\s/u.test(text.trim()) ? 'space' : 'char';
}

export function tokenize(text, mode) {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (mode === 'char') return Array.from(trimmed).filter((ch) => !/\s/u.test(ch));
  if (mode === 'word' && typeof Intl.Segmenter === 'function') {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
    return Array.from(segmenter.segment(trimmed), (s) => s.segment).filter((s) => s.trim() !== '');
  }
  return trimmed.split(/\s+/u);
}

// The sentence that a list of tokens reads as, after tokens were edited by hand.
export function joinTokens(tokens, mode) {
  return tokens.join(mode === 'char' ? '' : ' ');
}
