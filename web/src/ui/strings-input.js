// The strings of reading what is typed: tokens and matrices (parse.js, model.js), in
// Chinese and English; part of i18n.js's one table.

import { plural } from './format.js';

export const INPUT_STRINGS = {
  row: { zh: '第 {row} 行', en: 'Row {row}' },
  rowWithToken: { zh: '第 {row} 行（{token}）', en: 'Row {row} ({token})' },
  errSentenceEmpty: { zh: '请至少输入一个字：句子里还没有词元。', en: 'Type at least one character: the sentence has no tokens yet.' },
  errTokenEmpty: { zh: '第 {n} 个词元是空的：请填上文字或删掉它。', en: 'Token {n} is empty: type a label or remove it.' },
  errTokenLong: { zh: '第 {n} 个词元有 {length} 个字符，最多 {max} 个。', en: 'Token {n} has {length} characters; at most {max} are allowed.' },
  errTooManyTokens: { zh: '有 {n} 个词元，最多 {max} 个。', en: 'There are {n} tokens; at most {max} are allowed.' },
  errMatrixEmpty: { zh: '请至少输入一行数字。', en: 'Enter at least one row of numbers.' },
  errEmptyRow: {
    zh: '{where}是空的：请删掉这一空行，或者填上数字。',
    en: '{where} is empty: delete the blank line or type its numbers.',
  },
  errEmptyCell: {
    zh: '{where}第 {col} 列是空的：两个逗号之间少了一个数。',
    en: '{where}, column {col} is empty: a number is missing between two commas.',
  },
  errCellEmpty: { zh: '{where}第 {col} 列是空的：请填一个数。', en: '{where}, column {col} is empty: type a number.' },
  errNotNumber: {
    zh: '{where}第 {col} 列：“{text}”不是数字，请写成 0.5 或 -2 这样的形式。',
    en: '{where}, column {col}: “{text}” is not a number; write it like 0.5 or -2.',
  },
  errDecimalComma: {
    zh: '{where}第 {col} 列：“{text}”用了逗号作小数点。请用小数点（写 0.5，不写 0,5），也不要用千位分隔符；几个数之间用空格或制表符隔开。',
    en: '{where}, column {col}: “{text}” has a decimal comma. Write decimals with a point (0.5, not 0,5) and no thousands separators; separate several numbers with spaces or tabs.',
  },
  errCellLong: {
    zh: '{where}第 {col} 列有 {length} 个字符，作为数字太长了（最多 {max} 个）。',
    en: '{where}, column {col} holds {length} characters: too long for a number (at most {max}).',
  },
  errNotFinite: {
    zh: '{where}第 {col} 列：“{text}”不是有限的数，请输入普通数字。',
    en: '{where}, column {col}: “{text}” is not a finite number; enter an ordinary number.',
  },
  errRagged: {
    zh: '{where}有 {count} 个数，但第 1 行有 {expected} 个：每一行的数字个数必须相同。',
    en: ({ where, count, expected }) =>
      `${where} has ${plural(count, 'number', 'numbers')}, but row 1 has ${expected}: every row needs the same number of columns.`,
  },
  errJson: {
    zh: '这段 JSON 读不出来：需要形如 [[1, 0], [0, 1]] 的数组，每行一个数组。',
    en: 'This JSON cannot be read: it needs an array of rows, such as [[1, 0], [0, 1]].',
  },
  errXRows: {
    zh: 'X 有 {rows} 行，但句子有 {tokens} 个词元：X 需要每个词元正好一行。',
    en: ({ rows, tokens }) =>
      `X has ${plural(rows, 'row', 'rows')} but the sentence has ${plural(tokens, 'token', 'tokens')}: X needs exactly one row per token.`,
  },
  errWRows: {
    zh: '{name} 有 {rows} 行，应该是 {expected} 行：行数要等于 X 的列数（d_model = {expected}）。',
    en: ({ name, rows, expected }) =>
      `${name} has ${plural(rows, 'row', 'rows')}; it needs ${expected}, one per column of X (d_model = ${expected}).`,
  },
  errTooWide: { zh: '有 {cols} 列，最多 {max} 列。', en: 'It has {cols} columns; at most {max} are allowed.' },
  errDim: { zh: '请输入 {min} 到 {max} 之间的整数。', en: 'Enter a whole number from {min} to {max}.' },
  errSeed: { zh: '种子要是 0 到 4294967295 之间的整数。', en: 'The seed must be a whole number from 0 to 4294967295.' },
  errOverflow: {
    zh: '数值太大：{name} 超出了浮点数的范围。请换用小一些的数。',
    en: 'The numbers are too large: {name} overflowed the range of floating-point numbers. Use smaller values.',
  },
  errEngine: { zh: '计算引擎拒绝了这组输入：{message}', en: 'The engine rejected this input: {message}' },
};
