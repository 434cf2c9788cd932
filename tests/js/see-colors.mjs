// Where a colour lies along a colour map given by its stops (color.js's), for
// the tests that read colours back from what the page drew: the nearest point
// of the polyline through the stops in RGB, as t from 0 (first stop) to 1
// (last), each segment an equal share as color.js interpolates, and the
// distance to it (how far the colour is from the map at all).
export function alongMap(rgb, stops) {
  let best = { t: 0, distance: Infinity };
  for (let i = 0; i + 1 < stops.length; i++) {
    const a = stops[i];
    const d = stops[i + 1].map((v, k) => v - a[k]);
    const length2 = d.reduce((s, v) => s + v * v, 0);
    const f = length2 === 0 ? 0 : Math.min(1, Math.max(0, d.reduce((s, v, k) => s + v * (rgb[k] - a[k]), 0) / length2));
    const distance = Math.hypot(...rgb.map((v, k) => v - (a[k] + f * d[k])));
    if (distance < best.distance) best = { t: (i + f) / (stops.length - 1), distance };
  }
  return best;
}

