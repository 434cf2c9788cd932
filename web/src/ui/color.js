// Cell colours. Weights (0 to 1) use viridis, a sequential scale; signed
// matrices use ColorBrewer's RdBu, a diverging scale centred on 0. Both are
// colour-blind safe. The text colour of each cell is chosen for contrast.

const VIRIDIS = [
  [0x44, 0x01, 0x54], [0x47, 0x2c, 0x7a], [0x3b, 0x51, 0x8b],
  [0x2c, 0x71, 0x8e], [0x21, 0x90, 0x8d], [0x27, 0xad, 0x81],
  [0x5c, 0xc8, 0x63], [0xaa, 0xdc, 0x32], [0xfd, 0xe7, 0x25],
];

// Blue for negative, near-white for 0, red for positive.
const RDBU = [
  [0x21, 0x66, 0xac], [0x43, 0x93, 0xc3], [0x92, 0xc5, 0xde], [0xd1, 0xe5, 0xf0],
  [0xf7, 0xf7, 0xf7],
  [0xfd, 0xdb, 0xc7], [0xf4, 0xa5, 0x82], [0xd6, 0x60, 0x4d], [0xb2, 0x18, 0x2b],
];

export const VIRIDIS_STOPS = VIRIDIS;
export const DIVERGING_STOPS = RDBU;

function interpolate(stops, t) {
  const position = t * (stops.length - 1);
  const i = Math.min(Math.floor(position), stops.length - 2);
  const f = position - i;
  return stops[i].map((a, k) => Math.round(a + (stops[i + 1][k] - a) * f));
}

const clamp = (t, lo, hi) => Math.min(hi, Math.max(lo, Number.isFinite(t) ? t : 0));

export function viridis(t) {
  return interpolate(VIRIDIS, clamp(t, 0, 1));
}

// t in [-1, 1]: the value divided by the largest magnitude in its matrix.
export function diverging(t) {
  return interpolate(RDBU, (clamp(t, -1, 1) + 1) / 2);
}

// WCAG relative luminance of an sRGB colour ([r, g, b], 0–255 channels).
export function relativeLuminance([r, g, b]) {
  const linear = (channel) => {
    const s = channel / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

// Black or white, whichever contrasts more with the background (WCAG ratio).
export function textColorFor(rgb) {
  const l = relativeLuminance(rgb);
  const onBlack = (l + 0.05) / 0.05;
  const onWhite = 1.05 / (l + 0.05);
  return onBlack >= onWhite ? '#000000' : '#ffffff';
}

export function rgbCss([r, g, b]) {
  return `rgb(${r}, ${g}, ${b})`;
}

export function gradientCss(stops) {
  return `linear-gradient(to right, ${stops.map(rgbCss).join(', ')})`;
}

// The colour of a value in a matrix of the given kind; `magnitude` is the
// largest absolute value of a signed matrix (0 for an all-zero matrix).
export function cellColor(kind, value, magnitude) {
  if (kind === 'weights') return viridis(value);
  return diverging(magnitude > 0 ? value / magnitude : 0);
}

// Masked scores (−∞) do not count, nor the cells of `skip` (a Set of r * cols + c, optional): an
// exercise's blanks, whose size the other cells' shades would otherwise hint at.
export function largestMagnitude(data, skip = null) {
  let m = 0;
  for (let r = 0; r < data.length; r++) {
    const row = data[r];
    for (let c = 0; c < row.length; c++) {
      if (Number.isFinite(row[c]) && !(skip && skip.has(r * row.length + c))) m = Math.max(m, Math.abs(row[c]));
    }
  }
  return m;
}

// The same colours for canvases, as a table of TABLE_SIZE packed RGBA pixels
// (Uint32, the byte order of ImageData on this machine): a heatmap of a
// million cells looks its colours up instead of interpolating each one.
const TABLE_SIZE = 1024;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const tables = {};

export function packRgba([r, g, b]) {
  return LITTLE_ENDIAN ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

// {pixels, scale, offset, last}: a value v of the kind's scale (weights 0 to
// 1; signed values with the matrix's magnitude) has the entry
// clamp(round(v · scale + offset), 0, last); a non-finite one (a masked
// −∞) counts as 0, as in cellColor.
export function colorTable(kind, magnitude) {
  tables[kind] ||= Uint32Array.from({ length: TABLE_SIZE }, (_, i) => {
    const t = i / (TABLE_SIZE - 1);
    return packRgba(kind === 'weights' ? viridis(t) : diverging(2 * t - 1));
  });
  const last = TABLE_SIZE - 1;
  if (kind === 'weights') return { pixels: tables[kind], scale: last, offset: 0, last };
  return { pixels: tables[kind], scale: magnitude > 0 ? last / (2 * magnitude) : 0, offset: last / 2, last };
}
