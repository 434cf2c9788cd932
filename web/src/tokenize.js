// Splits the sentence into tokens: by whitespace when the text has spaces
// (English-like input), otherwise one token per character. Array.from walks
// code points, so an emoji or other astral character stays one token.
export function tokenize(text) {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (/\s/u.test(trimmed)) return trimmed.split(/\s+/u);
  return Array.from(trimmed);
}
