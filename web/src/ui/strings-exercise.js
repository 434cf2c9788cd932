// The strings of the exercises (checking a learner's own value: element/check.js,
// views/checkform.js), in Chinese and English; part of i18n.js's one table.

import { plural } from './format.js';

export const EXERCISE_STRINGS = {
  // Checking a learner's own value for a cell (engine/check.js): the verdict, then the likely mistake
  checkCorrect: {
    zh: '对了：{cell} 保留 {places} 位小数是 {expected}。',
    en: ({ cell, expected, places }) => `Right: ${cell} is ${expected} to the ${places === 1 ? 'decimal' : plural(places, 'decimal', 'decimals')} you wrote.`,
  },
  checkWrong: {
    zh: '不对：{cell} 保留 {places} 位小数是 {expected}，你写的是 {value}。',
    en: ({ cell, expected, places, value }) => `Not quite: ${cell} is ${expected} to ${plural(places, 'decimal', 'decimals')}; you wrote ${value}.`,
  },
  checkWrongWithheld: {
    zh: '还不对：{cell} 保留 {places} 位小数不是 {value}。',
    en: ({ cell, places, value }) => `Not yet: ${cell} is not ${value} to ${plural(places, 'decimal', 'decimals')}.`,
  },
  checkMisprint: {
    zh: '{wrong} 正是教程印出的数，但那是印错的：教程自己的 numpy 代码算出的是 {full}。',
    en: '{wrong} is what the tutorial prints, and it is a misprint: the tutorial’s own numpy code gives {full}.',
  },
  checkMisprintWithheld: {
    zh: '{wrong} 正是教程印出的数，但那是印错的：照教程自己的 numpy 代码再算一遍。',
    en: '{wrong} is what the tutorial prints, and it is a misprint: work it out again as the tutorial’s own numpy code does.',
  },
  checkTransposed: {
    zh: '{wrong} 是 {other}：行和列对调了（把 Kᵀ 看反了；或者把 W_Q 和 W_K 用反了，得到的数一样）。',
    en: '{wrong} is {other}: row and column the other way round (Kᵀ misread, or W_Q and W_K swapped, which gives the same numbers).',
  },
  checkTransposedRows: {
    zh: '{wrong} 是把缩放分数转置后再按行做 softmax 得到的：行和列对调了（把 Kᵀ 看反了；或者把 W_Q 和 W_K 用反了，得到的数一样）。',
    en: '{wrong} is what the softmax gives on the scaled scores transposed: row and column the other way round (Kᵀ misread, or W_Q and W_K swapped, which gives the same numbers).',
  },
  checkNoScaling: { zh: '不除以 √d_k（√{dk} = {root}）就得到 {wrong}：漏了 ÷√d_k 这一步。', en: 'Without the division by √d_k (√{dk} = {root}) it is {wrong}: the ÷√d_k was left out.' },
  checkScaledByDk: { zh: '除以 d_k = {dk} 而不是 √d_k = {root}，就得到 {wrong}。', en: 'Dividing by d_k = {dk} instead of √d_k = {root} gives {wrong}.' },
  checkColumnSoftmax: {
    zh: '沿着“{key}”这一列（而不是“{query}”这一行）做 softmax 就得到 {wrong}：注意力权重是每一行加起来等于 1，不是每一列。',
    en: 'The softmax taken down the column of “{key}” instead of along the row of “{query}” gives {wrong}: each row of the weights sums to 1, not each column.',
  },
  checkWrongCell: { zh: '{wrong} 是另一个格子 {other} 的值：行或列看错了。', en: '{wrong} is another cell, {other}: the wrong row or column.' },
  checkTermSlip: { zh: '在 {cell} 的求和里，{term} 这一项{slip}，就得到 {wrong}。', en: 'In the sum for {cell}, the term {term} was {slip}: that gives {wrong}.' },
  checkSlipLeftOut: { zh: '漏掉了', en: 'left out' },
  checkSlipSign: { zh: '符号弄反了', en: 'given the wrong sign' },
  checkSlipAdded: { zh: '做成了加法而不是乘法', en: 'added instead of multiplied' },
  checkRoundedEarly: {
    zh: '先把 {previous} 四舍五入到 {places} 位小数再算，就得到 {wrong}：中间步骤请保留全部精度，最后再取舍。',
    en: 'Rounding {previous} to {places} decimals first gives {wrong}: keep every digit until the last step, then round.',
  },
  checkTruncatedWithheld: { zh: '你把多余的位数直接去掉了：请四舍五入。', en: 'You cut the digits off instead of rounding: round the last digit.' },
  checkTruncated: { zh: '你把多余的位数直接去掉了：{full} 四舍五入是 {expected}。', en: 'You cut the digits off instead of rounding: {full} rounds to {expected}.' },

  // "Check my answer", under a cell's work
  exerciseCheckTitle: { zh: '核对我的答案', en: 'Check my answer' },
  exerciseCheckLabel: {
    zh: '你算出的 {cell}（或者整行 {row}，数之间用空格隔开）：',
    en: 'Your value for {cell} (or the whole row {row}, numbers apart by spaces):',
  },
  exerciseCheckButton: { zh: '核对', en: 'Check' },
  exerciseCheckEmpty: { zh: '先写下你算出的数。', en: 'Write the number you computed first.' },
  exerciseNotNumber: { zh: '“{text}”不是一个数：请写成 0.34 这样的小数。', en: '“{text}” is not a number: write it as a decimal, like 0.34.' },
  exerciseRowLength: {
    zh: '这一行有 {n} 个数，你写了 {got} 个。',
    en: ({ n, got }) => `This row has ${n} numbers; you wrote ${got}.`,
  },
  exerciseRowRight: { zh: '整行 {n} 个数都对了。', en: ({ n }) => `All ${n} numbers of the row are right.` },
  exerciseRowWrong: {
    zh: '这一行 {n} 个数里有 {wrong} 个不对。第一个：',
    en: ({ n, wrong }) => `${wrong} of the row’s ${n} numbers ${wrong === 1 ? 'is' : 'are'} not right. The first:`,
  },
  exerciseYours: { zh: '你的数', en: 'Yours' },
  exerciseRight: { zh: '正确的算法', en: 'The right computation' },
  exerciseLikely: { zh: '可能的算法：{name}', en: 'The likely computation: {name}' },
  exerciseUnexplained: { zh: '没认出是哪种常见错误：对照上面的每一步再算一遍。', en: 'This is none of the usual mistakes: go through the work above again.' },
  exerciseCellRight: { zh: '对', en: 'right' },
  exerciseCellWrong: { zh: '不对', en: 'wrong' },
  // "Fill in": an exercise's blanks (views/exercise.js)
  exerciseTitle: { zh: '动手填一填', en: 'Fill in' },
  exerciseIntro: {
    zh: '格子里的“?”留给你算：把结果写进下面的框里核对。需要时一次看一条提示：先是公式，再是另一个格子的计算过程，最后是答案。',
    en: 'The cells marked “?” are yours to compute: type each result below and check it. Hints come one at a time when you want them: the formula, then the work of another cell, then the answer.',
  },
  exerciseCount: {
    zh: '已完成 {count} / {n}。',
    en: ({ count, n }) => `${count} of ${n} done.`,
  },
  exerciseTooLarge: {
    zh: '{names} 太大，不适合手算（每边最多 24 个数），这里不留空。',
    en: '{names} is too large to compute by hand (at most 24 a side): no blanks there.',
  },
  exerciseOutside: { zh: '“{list}”超出了矩阵的范围（行和列从 0 数起），没有留空。', en: '“{list}” is outside the matrix (rows and columns count from 0): no blank for it.' },
  exerciseHintNext: { zh: '提示 {n}/{total}', en: 'Hint {n} of {total}' },
  exerciseHintAnswer: { zh: '显示答案', en: 'Show the answer' },
  exerciseHintFormula: { zh: '公式：', en: 'The formula:' },
  exerciseHintOther: { zh: '另一个格子 {cell} 的计算过程：', en: 'The work of another cell, {cell}:' },
  exerciseHintOtherBlank: {
    zh: '另一个格子 {cell} 的计算过程（它也是留空的，现在替你填上了）：',
    en: 'The work of another cell, {cell} (a blank too, filled in for you now):',
  },
  exerciseAnswerShown: { zh: '答案：{cell} = {value}（{full}）。', en: 'The answer: {cell} = {value} ({full}).' },
  exerciseWorkHidden: {
    zh: '{cell} 留给你来算：在下面“动手填一填”里写下你的结果。',
    en: '{cell} is yours to compute: write your result under “Fill in” below.',
  },
  exerciseWorkWaits: {
    zh: '{cell} 直接由 {from} 算出：它要等你先在“动手填一填”里算出 {from}。',
    en: '{cell} is made from {from} at once: it waits until you have computed {from} under “Fill in”.',
  },
  exercisePanelWaits: {
    zh: '先完成上面各步的“动手填一填”：这里的训练会画出权重和每个中间矩阵，会泄露答案。',
    en: 'Finish the “Fill in” of the steps above first: training here draws the weights and every matrix on the way, which would give the answers away.',
  },
  exerciseExportWaits: {
    zh: '{name} 还有 {n} 个留给你算的格子：先在“动手填一填”里填好（或看答案），再导出它。',
    en: ({ name, n }) => `${name} still has ${n === 1 ? 'a cell' : `${n} cells`} for you to compute: fill ${n === 1 ? 'it' : 'them'} in under “Fill in” (or show the answer) before exporting it.`,
  },
  // "Guess first" in the walk (views/guess.js)
  guessToggle: { zh: '先猜再看', en: 'Guess first' },
  guessToggleTitle: {
    zh: '一次一步时，每一步先回答一个问题，再显示这一步的结果',
    en: 'One step at a time: each step asks a question before it shows its numbers',
  },
  guessTitle: { zh: '先猜一猜', en: 'Guess first' },
  guessReveal: { zh: '揭晓', en: 'Reveal the numbers' },
  guessChooseFirst: { zh: '先选一个答案。', en: 'Choose an answer first.' },
  guessRight: { zh: '猜对了：你选的是“{choice}”。', en: 'Right: you chose “{choice}”.' },
  guessWrong: { zh: '这次没猜中：你选的是“{choice}”。', en: 'Not this time: you chose “{choice}”.' },
  guessWorkHidden: { zh: '先回答下面“先猜一猜”的问题，这一步的数才会显示。', en: 'Answer “Guess first” below: then this step shows its numbers.' },
  guessExportWaits: {
    zh: '{name} 要等你在第 {n} 步（{step}）先猜一猜：选好答案并点“揭晓”，再导出它。',
    en: '{name} waits for your guess in step {n} ({step}): choose an answer and reveal the numbers before exporting it.',
  },
  guessProject: {
    zh: 'Q = X·W_Q：哪个词的查询向量最长（长度 ‖q_i‖ 最大）？',
    en: 'Q = X·W_Q: whose query vector will be longest (the largest length ‖q_i‖)?',
  },
  guessProjectAnswer: { zh: '最长的是 {token} 的查询向量：‖q‖ = {value}。', en: 'The longest query is {token}’s: ‖q‖ = {value}.' },
  guessScores: { zh: '在“{token}”这一行，哪个键的分数 q·k 最大？', en: 'In the row of “{token}”, which key will get the largest score q·k?' },
  guessScoresAnswer: { zh: '这一行最大的分数是 {key} 的 {value}。', en: 'The row’s largest score is {key}’s, {value}.' },
  guessScale: {
    zh: '缩放这一步按上面的公式处理分数。“{token}”这一行会怎样？',
    en: 'The scale step applies the formula above to the scores. What happens to the row of “{token}”?',
  },
  guessScale_shrinks: { zh: '最大的还是同一个键；这一行的差距（最大 − 最小）变小', en: 'The same key stays the largest; the row’s spread (largest − smallest) shrinks' },
  guessScale_grows: { zh: '最大的还是同一个键；这一行的差距（最大 − 最小）变大', en: 'The same key stays the largest; the row’s spread (largest − smallest) grows' },
  guessScale_same: { zh: '什么都不变', en: 'Nothing changes' },
  guessScale_other: { zh: '另一个键变成最大的', en: 'Another key becomes the largest' },
  guessScaleAnswer: {
    zh: 'Scores 这一行最大的是 {key0} 的 {top0}，差距 {spread0}；Scaled 这一行最大的是 {key1} 的 {top1}，差距 {spread1}。',
    en: 'In Scores the row’s largest is {key0}’s, {top0}, its spread {spread0}; in Scaled the largest is {key1}’s, {top1}, its spread {spread1}.',
  },
  guessWeights: { zh: '“{token}”这一行最关注哪个键（权重最大）？', en: 'Which key does the row of “{token}” attend to most (the largest weight)?' },
  guessWeightsAnswer: { zh: '这一行最大的权重是 {key} 的 {value}。', en: 'The row’s largest weight is {key}’s, {value}.' },
  guessOutput: {
    zh: '{name}_i = Σ_j w_ij·v_j 把各个值向量混在一起。谁的输出离它自己的值向量最远（‖{name}_i − v_i‖ 最大），也就是被注意力改变得最多？',
    en: '{name}_i = Σ_j w_ij·v_j mixes the value vectors. Whose output ends up farthest from its own value vector (the largest ‖{name}_i − v_i‖), changed most by attention?',
  },
  guessOutputAnswer: { zh: '离得最远的是 {token}：‖{name} − v‖ = {value}。', en: 'The farthest is {token}’s: ‖{name} − v‖ = {value}.' },
  // presenter mode (page/presenter.js)
  presentButton: { zh: '演示', en: 'Present' },
  presentTitle: {
    zh: '全屏演示：大字号，一次一步；PageDown/→ 下一步，PageUp/← 上一步，B 或 . 黑屏，Esc 退出',
    en: 'Present full screen: large type, one step at a time; PageDown/→ next, PageUp/← previous, B or . blank screen, Esc to leave',
  },
  presentExit: { zh: '退出演示（Esc）', en: 'Leave (Esc)' },
  presentKeys: { zh: 'PageDown/→ 下一步 · PageUp/← 上一步 · B 或 . 黑屏 · Esc 退出', en: 'PageDown/→ next · PageUp/← previous · B or . blank · Esc leave' },
  // the worksheet (views/worksheet.js, page/print.js)
  printButton: { zh: '打印练习单', en: 'Print a worksheet' },
  printTitle: {
    zh: '把当前例子打印成 A4 练习单（也可以按 Ctrl+P）：输入、每一步留空的格子，答案另起一页',
    en: 'Print the example as an A4 worksheet (Ctrl+P too): the inputs, each step with blanks to fill in, the answer key on a page of its own',
  },
  worksheetTitle: { zh: '注意力练习单：缩放点积注意力', en: 'Attention worksheet: scaled dot-product attention' },
  worksheetExample: { zh: '例子：{tokens}', en: 'The example: {tokens}' },
  worksheetName: { zh: '姓名：＿＿＿＿＿＿＿＿　　日期：＿＿＿＿＿＿', en: 'Name: ____________________    Date: ____________' },
  worksheetNote: {
    zh: '用下面的输入按顺序算出每一步，把结果填进格子里（保留 {places} 位小数）。中间步骤请保留全部精度，最后再取舍。',
    en: 'Compute each step in order from the inputs below and write the results in the grids ({places} decimals). Keep every digit until the end, then round.',
  },
  worksheetTooLarge: {
    zh: '这个例子太大，不适合做成手算练习单（每边最多 {max} 个数）。请换一个小一点的例子再打印。',
    en: 'This example is too large for a worksheet to compute by hand (at most {max} a side). Choose a smaller example, then print.',
  },
  worksheetInputs: { zh: '输入', en: 'The inputs' },
  worksheetStep: { zh: '第 {n} 步：{name}', en: 'Step {n}: {name}' },
  worksheetCombined: { zh: '合并各头', en: 'The heads combined' },
  worksheetAnswers: { zh: '答案', en: 'Answer key' },
  worksheetAnswersNote: { zh: '保留 {places} 位小数。', en: 'To {places} decimals.' },
  // the `exercise` option (state/exercise.js)
  probExercise: {
    zh: '里的“{text}”认不出：要写一个步骤的矩阵（weights）、一行（weights[1]）或一个格子（weights[0][1]），从 0 数起，用逗号隔开。',
    en: 'has “{text}”, which is none of: a step’s matrix (weights), a row (weights[1]) or a cell (weights[0][1]), from 0, apart by commas.',
  },
  // the mistakes' short names (engine/check.js MISTAKES)
  'mistake_misprint': { zh: '教程印错的数', en: 'the tutorial’s misprint' },
  'mistake_transposed': { zh: '行和列对调', en: 'row and column swapped' },
  'mistake_no-scaling': { zh: '没有除以 √d_k', en: 'no ÷√d_k' },
  'mistake_scaled-by-dk': { zh: '除以 d_k 而不是 √d_k', en: '÷d_k instead of ÷√d_k' },
  'mistake_column-softmax': { zh: '沿列做 softmax', en: 'softmax down a column' },
  'mistake_wrong-cell': { zh: '看错了格子', en: 'the wrong cell' },
  'mistake_term-slip': { zh: '求和里一项算错', en: 'a slip in one term' },
  'mistake_rounded-early': { zh: '过早四舍五入', en: 'rounded too early' },
  'mistake_truncated': { zh: '截断而不是四舍五入', en: 'cut off, not rounded' },
};
