// A small pre-norm transformer (GPT-2's layout, nn.TransformerEncoderLayer(norm_first=True)) in
// float64: its parameters, its forward pass keeping every intermediate, its backward pass and
// training. The attention inside each layer is multi_head_attention() (attention.h) and its
// backward pass backpropagate() (backward.h).
//
//   ids (n) → x₀ = embed[ids] + P[0..n)                           (n, d_model)
//   for each layer l:
//     a   = norm1 ? LN(x) : x                                    (n, d_model)
//     per head: softmax(mask((a·W_Q + b_Q)(a·W_K + b_K)ᵀ / √d_k))·(a·W_V + b_V)
//     x  += concat(heads)·W_O + b_O                              (n, d_model)
//     with an MLP: m = norm2 ? LN(x) : x;  x += act(m·W1 + b1)·W2 + b2
//   logits = (finalNorm ? LN(x) : x)·U + b_U                     (n, vocab)
//
// LN is torch.nn.LayerNorm: (x − mean) / √(biased variance + 1e-5) · gain + bias, per row.
// GELU is the exact form x·(1 + erf(x/√2))/2 (torch's default); causal: query i sees keys j ≤ i.
// P is a learned (max_tokens, d_model) matrix or the sinusoidal encoding of compute();
// U is a learned (d_model, vocab) matrix or embedᵀ (tied). Every matrix is row-major and
// multiplies from the right (x·W), as in attention.h.
//
// Errors are Error values (attention.h) whose `path` names the array as the JS API does
// ("layers[1].heads[0].wq"), with `layer` and `head` where they apply; no exceptions.
#pragma once

#include <string>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "training.h"

namespace attn {

// Sizes a model may have, checked before anything is computed (attention.h has the rest:
// kMaxDimension for d_model, d_k and d_v, kMaxHeads per layer).
constexpr int kMaxVocab = 65536;
constexpr int kMaxLayers = 64;
constexpr int kMaxHidden = 16384;  // f, the MLP's width
// the values one run keeps: every layer's scores, scaled scores and weights (3 · h · n²), its
// MLP's hidden and activated values (2 · n · f) and the logits and probabilities (2 · n · vocab),
// so at most 8 B × 2^25 = 256 MiB
constexpr long long kMaxModelRunValues = 1LL << 25;
constexpr long long kMaxModelParameters = 1LL << 26;  // 512 MiB of float64, per copy
constexpr int kMaxBatches = 10000;                    // per trainModel() call

// LayerNorm's parameters; a norm that is absent has both empty.
struct Norm {
  std::vector<double> gain;  // (d_model)
  std::vector<double> bias;  // (d_model)
  bool present() const { return !gain.empty(); }
};

enum class Activation { gelu, relu };

struct Mlp {
  Matrix w1;               // (d_model, f)
  std::vector<double> b1;  // (f) or empty
  Matrix w2;               // (f, d_model)
  std::vector<double> b2;  // (d_model) or empty
  Activation activation = Activation::gelu;
};

struct Layer {
  Norm norm1;               // before the attention, or absent
  std::vector<Head> heads;  // wq, wk (d_model, d_k), wv (d_model, d_v), optional bq, bk, bv
  Matrix wo;                // (h·d_v, d_model)
  std::vector<double> bo;   // (d_model) or empty
  Norm norm2;               // before the MLP, or absent
  bool has_mlp = false;
  Mlp mlp;
};

// The parameters. A Model also holds gradients (model_gradients()): each array then the
// gradient of that array, in the same structure.
struct Model {
  int vocab = 0;  // the number of token strings (the strings themselves stay in JS)
  int d_model = 0;
  int max_tokens = 0;
  bool causal = false;
  Matrix embed;             // (vocab, d_model)
  bool sinusoidal = false;  // true: P is the sinusoidal encoding and `positions` is empty
  Matrix positions;         // (max_tokens, d_model), learned
  std::vector<Layer> layers;
  Norm final_norm;                   // or absent
  bool tied = false;                 // true: U = embedᵀ and `unembed` is empty
  Matrix unembed;                    // (d_model, vocab)
  std::vector<double> unembed_bias;  // (vocab) or empty
};

// A layer's and a head's path, as errors and the JS API name them: "layers[1]",
// "layers[1].heads[0]".
std::string layer_path(int l);
std::string head_path(int l, int h);

// Builds a vector from `n` values, rejecting none (empty) and NaN/±Infinity (not_finite, its
// column), the error's path `path`, operand `operand`, layer and head as given.
Error vector_from_values(const std::string& path, const std::string& operand, int layer, int head,
                         const double* values, int n, std::vector<double>* out);

// The number of a model's layers, and of heads of its layer l: at most kMaxLayers and kMaxHeads
// (limit, saying how many there are; a layer without heads: empty). check_model() checks them;
// the bindings check them before reading any layer or head.
Error check_layer_count(long long n_layers);
Error check_head_count(int l, long long n_heads);

// A model's shapes: every array against d_model, vocab, max_tokens and its layer's d_k, d_v, f;
// the sizes of the limits above. Errors name the array by its path.
Error check_model(const Model& model);

// Token ids from `n` numbers: each an integer in [0, vocab) (range; for targets also −1, no loss
// there), at most max_tokens of them (limit), at least one (empty). `name` is "ids" or "targets".
Error ids_from_values(const Model& model, const std::string& name, const double* values, int n,
                      bool targets, std::vector<int>* out);

// What one layer computed.
struct LayerRun {
  MultiHeadInput attention_input;  // x = the heads' input a (n, d_model); heads = the layer's
  std::vector<double> norm1_mean, norm1_rstd;  // (n) each, with norm1: LN's mean and 1/σ per row
  MultiHeadResult
      attention;            // per head q, k, v, scores, scaled, weights, output; concat (n, h·d_v)
  Matrix attention_output;  // (n, d_model) concat·W_O + b_O
  Matrix mlp_input;         // (n, d_model) m = norm2 ? LN(x) : x, with an MLP
  std::vector<double> norm2_mean, norm2_rstd;  // (n) each, with norm2
  Matrix hidden;                               // (n, f) m·W1 + b1
  Matrix activated;                            // (n, f) act(hidden)
  Matrix mlp_output;                           // (n, d_model) activated·W2 + b2
};

// Everything a forward pass computed: what the page shows and the backward pass reads.
struct ModelRun {
  std::vector<int> ids;                        // (n)
  std::vector<Matrix> residual;                // L + 1 matrices (n, d_model): x₀ … x_L
  std::vector<Matrix> after_attention;         // L matrices (n, d_model): x + attention_output
  std::vector<LayerRun> layers;                // L
  Matrix final_input;                          // (n, d_model) LN(x_L) with a final norm, else x_L
  std::vector<double> final_mean, final_rstd;  // (n) each, with a final norm
  Matrix logits;                               // (n, vocab)
  Matrix probabilities;                        // (n, vocab) softmax per row
  MatmulScratch scratch;  // the products' scratch outside the attention (which has its own)
};

struct RunOptions {
  // heads_off[l][h] != 0: head h of layer l is switched off (ablation): its output enters the
  // concatenation as 0 (the head itself is still computed and shown). Empty: every head on;
  // otherwise one entry per layer, each empty or one flag per head.
  std::vector<std::vector<unsigned char>> heads_off;
};

// The forward pass into `run`. Errors: every error of check_model() and of the ids; a
// heads_off that does not fit the layers (shape); a result that overflows float64 (overflow,
// naming the step and its layer).
Error run_model(const Model& model, const std::vector<int>& ids, const RunOptions& options,
                ModelRun* run);

// The loss L = the mean over positions i with targets[i] ≥ 0 of −log
// softmax(logits[i])[targets[i]], and dL/d(every parameter) into `gradients` (the model's
// structure; nothing for sinusoidal positions or a tied unembedding, whose embed gradient holds
// both its uses). `run` gets the forward pass. Errors: run_model()'s; targets not one per id
// (shape); no position with a target (empty); a gradient that overflows (overflow).
Error model_gradients(const Model& model, const std::vector<int>& ids,
                      const std::vector<int>& targets, const RunOptions& options, ModelRun* run,
                      double* loss, Model* gradients);

struct Batch {
  std::vector<int> ids;
  std::vector<int> targets;
};

// The number of batches of one train_model() call: at least one (empty), at most kMaxBatches
// (limit, saying how many there are). The bindings check it before reading any batch.
Error check_batch_count(long long n_batches);

struct ModelTrainOptions {
  Optimizer optimizer = Optimizer::adam;
  double learning_rate = 1e-3;  // finite, > 0
};

// One step per batch, in order, from `start` into `trained`: the gradient of the batch's loss
// at the current parameters, then one update (sgd: P ← P − lr·dP; adam: torch.optim.Adam's
// defaults). `state` carries on from a previous call (training.h TrainState: the steps taken,
// Adam's moments of every parameter in model_parts.h for_each_array's order; a fresh state starts
// them at 0 and counts from step 1) and holds the state after the last step: N batches in chunks
// with the state carried give the bits of one call of N. losses[i] is batch i's loss before its
// step. Errors (then trained, state and losses are unchanged): check_model()'s; a bad batch
// (its ids or targets, prefixed "batches[i]."); bad options (range, not_finite, limit); a state
// that does not fit the model and optimizer (check_state()); a step that overflows (overflow,
// naming the step).
Error train_model(const Model& start, const std::vector<Batch>& batches,
                  const ModelTrainOptions& options, TrainState* state, Model* trained,
                  std::vector<double>* losses);

}  // namespace attn
