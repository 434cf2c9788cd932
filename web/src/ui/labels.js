// The labels of a matrix's dimensions and of the heads, as the steps, the
// exports, the learn step and the editor's grids write them.
import { STRINGS, translate } from './i18n.js';

export const dimLabel = (c) => `d${c + 1}`;
// d1 … d<count>: the column (or row) labels of a matrix by dimension
export const dimLabels = (count) => Array.from({ length: count }, (_, i) => dimLabel(i));
export const headName = (h) => `head_${h + 1}`;

// A head's role as a reader reads it: a shipped role's name in zh or en (strings-models.js
// roleName_*), an author's own role as its model file writes it (shown as text).
export function roleName(lang, role) {
  const key = `roleName_${role}`;
  return key in STRINGS ? translate(lang, key) : role;
}
