// What attention is for: a model's next-token predictions at each position (top 5, with their
// probabilities), from runModel()'s probabilities; with the head on screen switched off
// (runModel's headsOff), the predictions without it beside those with it.
//   renderPredictions(lang, { tokens, vocab, probabilities, without, off, onToggle, layer, head, causal }, previous)
//     probabilities, without: (n, vocab) rows (without: null while the head is on); previous: the
//     section it gave before, or null: in the same language (and mask), its table made again and its toggle
//     kept (a focus on it stays, with no .focus() and the layout that forces)
//     causal: the model's mask; a model that reads the whole sentence gives its task's output, not the next token

import { translate } from '../ui/i18n.js';
import { el, button } from '../ui/dom.js';

const TOP = 5;

// The k most probable ids of a row, most probable first (ties: the lower id first).
export function topIds(row, k = TOP) {
  return Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);
}

const percent = (p) => `${(100 * p).toFixed(1)}%`;

function list(row, vocab, changedFrom) {
  const items = el('ol', 'prediction-list');
  const first = changedFrom ? topIds(changedFrom, 1)[0] : null;
  for (const id of topIds(row)) {
    const item = el('li', changedFrom && id !== first && topIds(row, 1)[0] === id ? 'prediction changed' : 'prediction');
    item.append(el('span', 'prediction-token', vocab[id]), ' ', el('span', 'prediction-p', percent(row[id])));
    items.append(item);
  }
  return items;
}

const toggles = new WeakMap(); // a section's toggle → its latest onToggle

export function renderPredictions(lang, { tokens, vocab, probabilities, without, off, onToggle, layer, head, causal }, previous = null) {
  const t = (key, params) => translate(lang, key, params);
  const kind = `${lang} ${causal ? 'next' : 'task'}`;
  const reused = previous && previous.dataset.kind === kind;
  const section = reused ? previous : el('section', 'panel predictions');
  let toggle = section.querySelector('.head-off');
  if (!reused) {
    section.dataset.kind = kind;
    section.setAttribute('aria-labelledby', 'predictions-title');
    const title = el('h3', 'predictions-title', t(causal ? 'predictionsTitle' : 'predictionsTitleTask'));
    title.id = 'predictions-title';
    toggle = button('', () => toggles.get(toggle)(), 'button-small head-off');
    section.append(title, el('p', 'hint', t(causal ? 'predictionsHint' : 'predictionsHintTask')), toggle);
  }
  toggles.set(toggle, onToggle);
  toggle.textContent = t(off ? 'headOnAgain' : 'headOff', { layer: layer + 1, head: head + 1 });
  toggle.setAttribute('aria-pressed', off ? 'true' : 'false');
  const table = el('table', 'predictions-table');
  const header = el('tr');
  header.append(el('th', '', t('predictionsAfter')), el('th', '', t('predictionsWith')));
  if (without) header.append(el('th', '', t('predictionsWithout', { layer: layer + 1, head: head + 1 })));
  for (const th of header.children) th.scope = 'col';
  table.append(header);
  tokens.forEach((token, i) => {
    const row = el('tr');
    const th = el('th', 'prediction-at', token);
    th.scope = 'row';
    const cell = el('td');
    cell.append(list(probabilities[i], vocab, null));
    row.append(th, cell);
    if (without) {
      const changed = el('td');
      changed.append(list(without[i], vocab, probabilities[i]));
      row.append(changed);
    }
    table.append(row);
  });
  const scroll = el('div', 'table-scroll');
  scroll.append(table);
  const last = section.querySelector('.table-scroll');
  if (last) last.replaceWith(scroll);
  else section.append(scroll);
  return section;
}
