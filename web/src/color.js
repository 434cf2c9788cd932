// Heatmap colours: viridis (perceptually uniform, colour-blind safe), with the
// text colour in each cell chosen for contrast.

const VIRIDIS = [
  [0x44, 0x01, 0x54], [0x47, 0x2c, 0x7a], [0x3b, 0x51, 0x8b],
  [0x2c, 0x71, 0x8e], [0x21, 0x90, 0x8d], [0x27, 0xad, 0x81],
  [0x5c, 0xc8, 0x63], [0xaa, 0xdc, 0x32], [0xfd, 0xe7, 0x25],
];

export function viridis(t) {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const position = clamped * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(position), VIRIDIS.length - 2);
  const f = position - i;
  return VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
}

function relativeLuminance([r, g, b]) {
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
