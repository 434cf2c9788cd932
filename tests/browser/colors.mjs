// Colours the browser tests expect, computed from the stops (not from the page's colour tables).
import { VIRIDIS_STOPS } from '../../web/src/ui/color.js';

// viridis(t) from its stops (color.js's VIRIDIS), as sRGB integers.
export function viridis(t) {
  const position = t * (VIRIDIS_STOPS.length - 1);
  const i = Math.min(Math.floor(position), VIRIDIS_STOPS.length - 2);
  return VIRIDIS_STOPS[i].map((a, k) => Math.round(a + (VIRIDIS_STOPS[i + 1][k] - a) * (position - i)));
}
