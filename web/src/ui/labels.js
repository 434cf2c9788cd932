// The labels of a matrix's dimensions and of the heads, as the steps, the
// exports, the learn step and the editor's grids write them.

export const dimLabel = (c) => `d${c + 1}`;
// d1 … d<count>: the column (or row) labels of a matrix by dimension
export const dimLabels = (count) => Array.from({ length: count }, (_, i) => dimLabel(i));
export const headName = (h) => `head_${h + 1}`;
