// What a model's head picks, under the sentence on the page (issue 36: the first screen shows
// attention visibly picking something): the row of the head on screen whose largest weight is the
// largest (a row with one key to see, the first of a causal model's, left out), each token's
// weight in the Weights colours, the most weighted marked; the tutorial's example one click away.
//   pickedRow(weights) → the row's index, or -1    weights: (n, n), rows summing to 1
//   renderPicks(lang, { tokens, weights, layer, head, decimals, role, onTutorial })

import { translate } from '../ui/i18n.js';
import { roleName } from '../ui/labels.js';
import { el, button } from '../ui/dom.js';
import { formatNumber } from '../ui/format.js';
import { cellColor, rgbCss, textColorFor } from '../ui/color.js';

const largest = (row) => row.reduce((best, w, j) => (w > row[best] ? j : best), 0);

export function pickedRow(weights) {
  let picked = -1;
  weights.forEach((row, i) => {
    if (row.filter((w) => w > 0).length < 2) return;
    if (picked < 0 || Math.max(...row) > Math.max(...weights[picked])) picked = i;
  });
  return picked;
}

export function renderPicks(lang, { tokens, weights, layer, head, decimals, role, onTutorial }) {
  const t = (key, params) => translate(lang, key, params);
  const section = el('section', 'model-picks');
  section.setAttribute('aria-labelledby', 'picks-title');
  const i = pickedRow(weights);
  const where = { layer: layer + 1, head: head + 1 };
  const named = role ? roleName(lang, role) : '';
  const title = el('p', 'picks-title');
  title.id = 'picks-title';
  section.append(title);
  if (i < 0) {
    title.textContent = t('picksNone', where);
  } else {
    const row = weights[i];
    const j = largest(row);
    title.textContent = t(named ? 'picksRole' : 'picksHead', { ...where, role: named, query: tokens[i], key: tokens[j], percent: `${(100 * row[j]).toFixed(1)}%` });
    const list = el('ol', 'picks-row');
    list.setAttribute('aria-label', t('picksRowLabel', { ...where, query: tokens[i] }));
    tokens.forEach((token, k) => {
      const item = el('li', k === j ? 'pick picked' : k === i ? 'pick pick-query' : 'pick');
      const rgb = cellColor('weights', row[k], 1);
      item.style.backgroundColor = rgbCss(rgb);
      item.style.color = textColorFor(rgb);
      item.append(el('span', 'pick-token', token), el('span', 'pick-weight', formatNumber(row[k], decimals)));
      item.dataset.k = String(k);
      list.append(item);
    });
    section.append(list);
  }
  section.append(button(t('picksTutorial'), onTutorial, 'button-small picks-tutorial'));
  return section;
}
