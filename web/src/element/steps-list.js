// The list of steps both views draw (compact.js, full.js): each step rendered, or given the
// new numbers in place when its layout is the same (views/steps.js).

import { renderStep, updateStep, settleSteps, forgetStep } from '../views/steps.js';
import { skippableOnceLaidOut, stopSkipping } from '../ui/dom.js';

// The steps `indices` of `steps` (a compact element may offer some of them)
// in `list`, numbered within `all` ("step 3 of 6" even when only step 3 is
// offered), for the view host av (its selections, holding()); arrival: {from} when the one
// step shown is reached from another (steps.js renderStep). Steps of the same
// layout as those on screen get the new numbers in place (defer: those out of
// view may get them later, steps.js updateStep, then settleSteps). Full and compact alike.
export function showSteps(list, av, { steps, indices, all, ctx, arrival, defer = false }) {
  const shown = [...list.children];
  const nodes = indices.map((i, k) => {
    const id = steps[i].id;
    const options = {
      selection: av.selections[id] || null,
      onSelection: (selection) => { av.selections[id] = selection; },
      defer,
    };
    const n = all.indexOf(steps[i]);
    if (shown[k] && updateStep(shown[k], steps[i], n, all.length, ctx, options)) return shown[k];
    const replacing = shown[k] && shown[k].dataset.step === id ? shown[k] : null; // (its lines carried: steps.js)
    return renderStep(steps[i], n, all.length, ctx, { ...options, arrival, replacing });
  });
  if (nodes.length !== shown.length || nodes.some((node, k) => node !== shown[k])) {
    for (const node of shown) {
      if (nodes.includes(node)) continue;
      forgetStep(node);
      stopSkipping(node);
    }
    list.replaceChildren(...nodes);
  }
  // several steps: each skippable once laid out (style.css); one step is always laid out
  if (nodes.length === 1) stopSkipping(nodes[0]);
  else {
    const fresh = nodes.filter((node) => !node.classList.contains('skippable'));
    skippableOnceLaidOut(fresh, (node) => node.parentNode === list && list.children.length > 1);
  }
  if (!av.holding()) settleSteps(list); // the updates kept, a step a task (a drag keeps them to its end)
}
