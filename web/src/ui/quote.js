// How a value from outside (a link, a file, an attribute, a host's message)
// is quoted in a message: cut short, with work bounded whatever the value is
// (a megabyte string, an array nested 10 000 deep: String() and
// JSON.stringify() of one recurse until the stack runs out).

export const QUOTE_CHARS = 40;

// The first `max` characters of text, '…' when cut; never half a surrogate pair.
export function excerpt(text, max = QUOTE_CHARS) {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

// A value as a short text: numbers, booleans and null as JSON writes them,
// strings quoted and cut, arrays and objects by their kind and size only
// (their contents are never visited).
export function quote(value) {
  if (typeof value === 'string') return `"${excerpt(value)}"`;
  if (Array.isArray(value)) return '[…]';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return '{…}';
  return typeof value; // undefined, a function, a symbol or a bigint
}

// Tokens as a message lists them: the first `max`, each quoted “…” and cut
// short, and how many more there are.
export function quotedTokens(tokens, max = 5) {
  return { list: tokens.slice(0, max).map((token) => `“${excerpt(token)}”`).join(', '), more: Math.max(0, tokens.length - max) };
}
