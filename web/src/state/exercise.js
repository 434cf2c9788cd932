// The `exercise` option's text: which values the reader fills in. A step's matrix
// ("weights"), a row ("weights[1]") or cells ("weights[0][0],output[2][1]"), 0-based, apart by
// commas; a step's id stands for its result (softmax → weights, scale → scaled, project → q, k, v).
//   parseExercise(text) → { ok, items: [{ matrix, row?, column? }], text (canonical) } or { ok: false, item }

export const EXERCISE_MATRICES = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];
const STEP_MATRICES = { project: ['q', 'k', 'v'], scale: ['scaled'], softmax: ['weights'] };
const ITEM = /^([a-z]+)(?:\[(\d{1,4})\])?(?:\[(\d{1,4})\])?$/;
const MAX_ITEMS = 64;

export function parseExercise(text) {
  const parts = String(text).toLowerCase().replace(/\s+/g, '').split(',').filter(Boolean);
  const items = [];
  if (parts.length > MAX_ITEMS) return { ok: false, item: parts[MAX_ITEMS] };
  for (const part of parts) {
    const m = ITEM.exec(part);
    const matrices = m && (EXERCISE_MATRICES.includes(m[1]) ? [m[1]] : STEP_MATRICES[m[1]]);
    if (!matrices || (m[3] !== undefined && m[2] === undefined) || (STEP_MATRICES[m[1]] && m[2] !== undefined)) return { ok: false, item: part };
    for (const matrix of matrices) {
      items.push({ matrix, ...(m[2] !== undefined ? { row: Number(m[2]) } : {}), ...(m[3] !== undefined ? { column: Number(m[3]) } : {}) });
    }
  }
  const canonical = items.map(({ matrix, row, column }) => `${matrix}${row !== undefined ? `[${row}]` : ''}${column !== undefined ? `[${column}]` : ''}`);
  return { ok: true, items, text: [...new Set(canonical)].join(',') };
}
