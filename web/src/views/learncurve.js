// The loss curve of "How it learns" (learn.js, learninduction.js).

import { formatCompact } from '../ui/format.js';
import { svg } from '../ui/dom.js';

// The losses as a line, the first at the left and the newest at the right,
// 0 at the bottom and the largest loss at the top; `steps` labels the end of the
// axis (one loss a step by default).
export function drawCurve(node, losses, t, steps = losses.length - 1) {
  const W = 320;
  const H = 120;
  const pad = { l: 34, r: 6, t: 8, b: 18 };
  const top = Math.max(...losses.filter(Number.isFinite), 1e-12);
  const count = Math.max(losses.length - 1, 1);
  // at most ~2 points a pixel
  const stride = Math.max(1, Math.floor(losses.length / 600));
  let points = [];
  for (let i = 0; i < losses.length; i += stride) points.push(i);
  if (points[points.length - 1] !== losses.length - 1) points.push(losses.length - 1);
  points = points.filter((i) => Number.isFinite(losses[i])); // a loss the engine could not give
  const x = (i) => pad.l + ((W - pad.l - pad.r) * i) / count;
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / top);
  const axis = svg('path', { d: `M${pad.l} ${pad.t}V${H - pad.b}H${W - pad.r}`, class: 'learn-axis' });
  const line = svg('polyline', { points: points.map((i) => `${x(i).toFixed(1)},${y(losses[i]).toFixed(1)}`).join(' '), class: 'learn-loss' });
  const label = (text, attrs) => {
    const node2 = svg('text', attrs);
    node2.textContent = text;
    return node2;
  };
  node.replaceChildren(
    axis, line,
    label(formatCompact(top, 3), { x: pad.l - 4, y: pad.t + 8, 'text-anchor': 'end', class: 'learn-tick' }),
    label('0', { x: pad.l - 4, y: H - pad.b, 'text-anchor': 'end', class: 'learn-tick' }),
    label(t('learnSteps', { n: steps }), { x: W - pad.r, y: H - 4, 'text-anchor': 'end', class: 'learn-tick' }),
  );
}
