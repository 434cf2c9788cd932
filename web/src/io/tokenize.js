// Splits the sentence into tokens in one of three ways:
//   'char'  one token per character (the default for Chinese), spaces skipped;
//   'space' split at whitespace;
//   'word'  words and punctuation as Intl.Segmenter finds them.
// 'char' walks grapheme clusters (Intl.Segmenter), so an emoji stays one
// character even when it is several code points (a skin tone, a ZWJ family,
// a flag); without Intl.Segmenter, code points (Array.from).

export function defaultMode(text) {
  return /\s/u.test(text.trim()) ? 'space' : 'char';
}

export function tokenize(text, mode) {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (mode === 'char') {
    const chars = typeof Intl.Segmenter === 'function'
      ? Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(trimmed), (s) => s.segment)
      : Array.from(trimmed);
    return chars.filter((ch) => !/\s/u.test(ch));
  }
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
