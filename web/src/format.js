// Number formatting for the matrices: a fixed number of decimals for reading,
// the shortest round-trip text (like Python's repr) for the full value.

export const DEFAULT_DECIMALS = 4;

export function formatNumber(value, decimals = DEFAULT_DECIMALS) {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1e6) return value.toExponential(decimals - 1);
  const text = value.toFixed(decimals);
  // -0.00001 rounds to "-0.0000"; a sign on zero only distracts.
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

export function fullNumber(value) {
  return String(value);
}
