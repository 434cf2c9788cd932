// Training the attention's matrices by gradient descent on a loss, with backward.h's gradients.
//
// A step: the forward pass, the loss on the step's query rows R, the backward pass, one update.
//   output_mse:            L = Σ_(i ∈ R, j) (Output[i][j] − T[i][j])² / (|R|·d_out)
//   weights_cross_entropy: L = Σ_(h ∈ H, i ∈ R) Σ_(j unmasked) −T_h[i][j]·log Weights_h[i][j] /
//   (|H|·|R|)
//     (H: the heads with a target; masked cells are left out, so a fully masked row adds 0).
//     Its gradient enters at Scaled_h directly, (Weights_h[i][j]·Σ_l T_h[i][l] − T_h[i][j]) /
//     (|H|·|R|) at unmasked cells, never through −T / Weights (which a weight near 0 would blow
//     up).
//   sgd:  P ← P − lr·dP
//   adam: as torch.optim.Adam with its defaults (β1 = 0.9, β2 = 0.999, ε = 1e-8), step t from 1:
//         m ← β1·m + (1 − β1)·dP,  v ← β2·v + (1 − β2)·dP ⊙ dP,
//         P ← P − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε)   (element-wise)
// R is every query row, or rows_per_step rows drawn for step t (counted over calls, from
// state.step) by a partial Fisher–Yates shuffle driven by mulberry32(seed + t·0x9E3779B9 mod 2^32):
// the same steps give the same bits whether taken in one call or in several.
// The trained values, in the order of Adam's moments: x, context, then per head W_Q, b_Q, W_K,
// b_K, W_V, b_V, then W_O, b_O (only those trained; a bias with its matrix, where the input has
// it), each row-major.
#pragma once

#include <cstdint>
#include <vector>

#include "attention.h"
#include "backward.h"

namespace attn {

constexpr int kMaxTrainSteps = 10000;  // per call
// heads × n_q × n_k while training: a step keeps each head's scores, scaled scores, weights,
// their three gradients, and the weights' target and loss gradient, so this bounds them to
// 8 × 8 B × 2^22 = 256 MiB (a quarter of compute()'s kMaxAttentionCells: training that size
// would take minutes a step anyway).
constexpr long long kMaxTrainAttentionCells = 1LL << 22;

enum class Loss { output_mse, weights_cross_entropy };
enum class Optimizer { sgd, adam };

// Which matrices a step changes (wq, wk, wv: those of every head).
struct Trained {
  bool x = false;
  bool context = false;
  bool wq = false;
  bool wk = false;
  bool wv = false;
  bool wo = false;
};

struct TrainOptions {
  Loss loss = Loss::output_mse;
  Matrix target;                       // output_mse: (n_q, d_out), the output's shape
  std::vector<Matrix> target_weights;  // weights_cross_entropy: per head (n_q, n_k) of values >= 0,
                                       // or 0 rows: that head is not in the loss
  Trained trained;
  Optimizer optimizer = Optimizer::sgd;
  double learning_rate = 0.01;  // finite, > 0
  long long steps = 1;          // 1 … kMaxTrainSteps
  uint32_t seed = 0;            // picks each step's rows when rows_per_step is set
  long long rows_per_step = 0;  // 1 … n_q query rows in each step's loss; 0: every row
};

// What carries over from one call to the next.
struct TrainState {
  long long step = 0;        // steps taken so far
  std::vector<double> m, v;  // adam: the moments of every trained value (order above); sgd: empty
};

// The buffers of the steps, kept by the caller from call to call so that repeated calls reuse
// them (the bindings keep one, shared with compute() and backward()).
struct Workspace {
  MultiHeadResult forward;       // after train(): the forward pass of the trained input
  Gradients gradients;           // after train(): the last step's gradients
  Seed seed;                     // output_mse's gradient (n_q, d_out); loss_backward()'s seed
  std::vector<Matrix> d_scaled;  // per head (n_q, n_k), weights_cross_entropy's gradient
};

// A state from a previous call against what the next one trains: step >= 0 (range); moments
// either empty (a fresh start) or m and v of n_values each for adam, none for sgd (shape: "…
// are needed for <needed_for>"); finite (not_finite), v >= 0 (range). Operand "state".
Error check_state(const TrainState& state, Optimizer optimizer, size_t n_values,
                  const std::string& needed_for);

// One optimizer step on n values from their gradient d (the update described above): sgd, or
// adam with its moments m and v (n each, updated) at step t (counted from 1).
void optimizer_update(Optimizer optimizer, double learning_rate, long long t, size_t n,
                      double* values, const double* d, double* m, double* v);

// Takes options.steps steps from `start`, into `trained` (start with the trained matrices
// updated) and `state`; losses gets steps + 1 values: the loss over every query row before
// the first step and after each step. Errors (then trained, state and losses are unchanged):
// every error of multi_head_attention(); bad options (range, limit, shape, conflict for
// training a context or W_O the input does not have, not_finite; limit beyond
// kMaxTrainAttentionCells); a state whose moments do not
// fit the trained matrices (shape); a step that overflows (overflow, its message naming the step).
Error train(const MultiHeadInput& start, const TrainOptions& options, TrainState* state,
            MultiHeadInput* trained, std::vector<double>* losses, Workspace* workspace);

// The loss of options.loss and options.target over every query row at `in` (the value train()
// reports before its first step), into `loss`, and its backward pass into workspace->forward and
// workspace->gradients, the loss's gradient entering as the seed (workspace->seed):
//   output_mse:            G = dL/dOutput = 2·(Output − T) / (n_q·d_out)
//   weights_cross_entropy: S_h = dL/dWeights_h = −T_h / (Weights_h·|H|·n_q) at unmasked cells
//                          where T_h ≠ 0, else 0 (a fully masked row: 0)
// so that every intermediate gradient is the loss's, dL/dWeights included. The other options
// are not used. Errors: every error of multi_head_attention(); a bad target (as train());
// a target weight > 0 on a weight that underflowed to 0 or a gradient that overflows float64
// (overflow: the loss's gradient there is not finite).
Error loss_backward(const MultiHeadInput& in, const TrainOptions& options, double* loss,
                    Workspace* workspace);

}  // namespace attn
