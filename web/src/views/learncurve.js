// The loss curve of "How it learns" (learn.js, learninduction.js).

import { formatCompact } from '../ui/format.js';
import { svg } from '../ui/dom.js';

// The charts of "How it learns" (the loss here, the scores in learninduction.js): W × H user
// units, the plot inside PAD; x(i) of `count` steps across, y(v) of 0 to `top` upward.
const W = 320;
const H = 120;
const PAD = { l: 34, r: 6, t: 8, b: 18 };
export const CHART_VIEWBOX = `0 0 ${W} ${H}`;
export function chartScale(count, top) {
  return {
    x: (i) => PAD.l + ((W - PAD.l - PAD.r) * i) / count,
    y: (v) => PAD.t + (H - PAD.t - PAD.b) * (1 - v / top),
  };
}
export const chartAxis = () => svg('path', { d: `M${PAD.l} ${PAD.t}V${H - PAD.b}H${W - PAD.r}`, class: 'learn-axis' });
// a level across the plot, at y
export const chartLevel = (y, className) => svg('path', { d: `M${PAD.l} ${y.toFixed(1)}H${W - PAD.r}`, class: className });
// a value's tick left of the axis, at y
export const chartTick = (text, y) => svg('text', { x: PAD.l - 4, y, 'text-anchor': 'end', class: 'learn-tick' }, text);
// the top's tick, 0's, and `steps` at the end of the axis
export const chartTicks = (topText, stepsText) => [
  chartTick(topText, PAD.t + 8), chartTick('0', H - PAD.b),
  svg('text', { x: W - PAD.r, y: H - 4, 'text-anchor': 'end', class: 'learn-tick' }, stepsText),
];

// The losses as a line, the first at the left and the newest at the right,
// 0 at the bottom and the largest loss at the top; `steps` labels the end of the
// axis (one loss a step by default).
export function drawCurve(node, losses, t, steps = losses.length - 1) {
  const top = Math.max(...losses.filter(Number.isFinite), 1e-12);
  // at most ~2 points a pixel
  const stride = Math.max(1, Math.floor(losses.length / 600));
  let points = [];
  for (let i = 0; i < losses.length; i += stride) points.push(i);
  if (points[points.length - 1] !== losses.length - 1) points.push(losses.length - 1);
  points = points.filter((i) => Number.isFinite(losses[i])); // a loss the engine could not give
  const { x, y } = chartScale(Math.max(losses.length - 1, 1), top);
  const line = svg('polyline', { points: points.map((i) => `${x(i).toFixed(1)},${y(losses[i]).toFixed(1)}`).join(' '), class: 'learn-loss' });
  node.replaceChildren(chartAxis(), line, ...chartTicks(formatCompact(top, 3), t('learnSteps', { n: steps })));
}
