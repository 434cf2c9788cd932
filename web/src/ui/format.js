// Number formatting: a fixed number of decimals in the matrices, the same
// without trailing zeros in the arithmetic of "show the work" (0.5×0.2, not
// 0.5000×0.2000), and the shortest round-trip text (like Python's repr) for
// the full value.

// A count and its English noun: 1 token, 2 tokens (the strings' tables, i18n.js).
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export const DEFAULT_DECIMALS = 4;
export const MIN_DECIMALS = 1;
export const MAX_DECIMALS = 8;

// A masked score is −∞, written as such.
export function formatNumber(value, decimals = DEFAULT_DECIMALS) {
  if (value === -Infinity) return '−∞';
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1e6) return value.toExponential(decimals - 1);
  const text = value.toFixed(decimals);
  // -0.00001 rounds to "-0.0000"; a sign on zero only distracts.
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

export function formatCompact(value, decimals = DEFAULT_DECIMALS) {
  const text = formatNumber(value, decimals);
  if (/e/.test(text) || !text.includes('.')) return text;
  return text.replace(/\.?0+$/, '');
}

export function fullNumber(value) {
  return String(value);
}
