// Scaled dot-product self-attention in float64, keeping every intermediate.
//
//   X (n, d_model) --W_Q (d_model, d_k)--> Q (n, d_k)
//                  --W_K (d_model, d_k)--> K (n, d_k)
//                  --W_V (d_model, d_v)--> V (n, d_v)
//   Scores  = Q·Kᵀ            (n, n)
//   Scaled  = Scores / √d_k   (n, n)
//   Weights = softmax(Scaled) per row (n, n)
//   Output  = Weights·V       (n, d_v)
//
// multi_head_attention() generalises it the way transformers use it (see below): h heads,
// W_O, causal and padding masks, temperature, no √d_k scaling, sinusoidal positional
// encoding, ALiBi's linear position bias and cross-attention (keys and values from a second
// sequence).
//
// Every matrix is row-major. The core reports bad input as an Error value (no
// exceptions), so it runs the same natively and in WebAssembly.
#pragma once

#include <string>
#include <vector>

#include "errors.h"
#include "kernels.h"

namespace attn {

// Sizes the engine accepts, checked before any result is allocated, so an oversized input is
// an error and never exhausts memory (wasm has at most 2 GiB).
constexpr int kMaxTokens = 4096;     // rows of x and of the context
constexpr int kMaxDimension = 1024;  // d_model, d_context, d_k, d_v
constexpr int kMaxHeads = 64;
// heads × n_q × n_k: every head keeps scores, scaled scores and weights of that many float64
// values, so this bounds them to 3 × 8 B × 2^25 = 768 MiB.
constexpr long long kMaxAttentionCells = 1LL << 25;

// Builds `out` from rows given as one flat buffer of all values, row after row,
// with row_lengths[i] values in row i. Rejects no rows, an empty row, rows of
// different lengths and NaN/±Inf, naming the row and column. With head >= 0 the matrix is
// head `head`'s operand `name`: messages say "heads[1].wq[0][2]", the error's operand is
// "wq" and its head is 1.
Error matrix_from_rows(const std::string& name, const double* values, const int* row_lengths,
                       int n_rows, Matrix* out, int head = -1);

struct AttentionInput {
  Matrix x;   // (n, d_model)
  Matrix wq;  // (d_model, d_k)
  Matrix wk;  // (d_model, d_k)
  Matrix wv;  // (d_model, d_v)
};

struct AttentionResult {
  Matrix q;        // (n, d_k)
  Matrix k;        // (n, d_k)
  Matrix v;        // (n, d_v)
  Matrix scores;   // (n, n)   Q·Kᵀ
  Matrix scaled;   // (n, n)   Scores / √d_k
  Matrix bias;     // (n_q, n_k) ALiBi's −m_h·|i − j| with options.alibi, else 0 rows
  Matrix weights;  // (n, n)   softmax per row; each row sums to 1
  Matrix output;   // (n, d_v) Weights·V
};

// Checks that the operands' shapes fit together, naming the operand and both
// shapes when they do not.
Error check_shapes(const AttentionInput& in);

// Runs every step into `out`. Returns an error for mismatched shapes, or when
// the values are so large that a product overflows to ±Inf.
Error self_attention(const AttentionInput& in, AttentionResult* out);

// ---- Multi-head attention with masks, temperature, positional encoding, cross-attention ----
//
//   X (n_q, d_model) [+ PE]            queries come from X
//   C (n_k, d_ctx)   [+ PE]            keys and values come from C (C = X for self-attention)
//   for each head h (+ b_Q[h], b_K[h], b_V[h] on every row where the head has biases):
//     Q_h = X·W_Q[h]  (n_q, d_k)    K_h = C·W_K[h]  (n_k, d_k)    V_h = C·W_V[h]  (n_k, d_v)
//     Scores_h  = Q_h·K_hᵀ                                   (n_q, n_k)
//     Bias_h    = −m_h·|i − j| with alibi (query position i, key position j, 0-based; each
//                 sequence numbered from 0), m_h = 2^(−8(h+1)/H) for head h of H
//     Scaled_h  = (Scores_h / √d_k [+ Bias_h]) / temperature, −∞ where masked
//     Weights_h = softmax per row (masked keys get exactly 0; a fully masked row is all 0)
//     Output_h  = Weights_h·V_h                              (n_q, d_v)
//   Concat = [Output_0 | Output_1 | …]                       (n_q, h·d_v)
//   Output = Concat·W_O [+ b_O]                              (n_q, d_model), or Concat without W_O
//
// W layout is x·W (row vectors), as in the single-head engine; PyTorch stores its projection
// weights transposed (x·Wᵀ). See docs/api.md for every convention against PyTorch.

struct Head {
  Matrix wq;  // (d_model, d_k)
  Matrix wk;  // (d_ctx, d_k)
  Matrix wv;  // (d_ctx, d_v)
  // Biases added to every row of Q, K and V (a model's heads, as nn.Linear's); empty: none.
  std::vector<double> bq = {};  // (d_k) or empty
  std::vector<double> bk = {};  // (d_k) or empty
  std::vector<double> bv = {};  // (d_v) or empty
};

struct AttentionOptions {
  bool causal = false;               // query i only looks at keys j <= i (top-left aligned)
  std::vector<bool> key_padding;     // (n_k) or empty; true = a padding key, receives no attention
  bool scale_by_sqrt_dk = true;      // false: scaled = scores / temperature
  double temperature = 1.0;          // finite, > 0
  bool positional_encoding = false;  // add sinusoidal PE to X (and to the context)
  bool alibi = false;                // add ALiBi's linear position bias (Press et al. 2022)
};

struct MultiHeadInput {
  Matrix x;                 // (n_q, d_model)
  Matrix context;           // (n_k, d_ctx), or 0 rows: self-attention, keys and values from x
  std::vector<Head> heads;  // at least one; every head has the same d_k and the same d_v
  Matrix wo;                // (h·d_v, d_model), or 0 rows: output = concat
  std::vector<double> bo;   // (d_model) added to every row of concat·W_O, or empty; only with wo
  AttentionOptions options;
};

// Which keys each query may not look at: hidden[i * n_k + j] != 0 hides key j from query i.
struct Mask {
  int n_q = 0;
  int n_k = 0;
  std::vector<unsigned char> hidden;        // (n_q, n_k) row-major
  std::vector<unsigned char> fully_masked;  // (n_q): 1 where query i sees no key at all

  bool at(int i, int j) const { return hidden[static_cast<size_t>(i) * n_k + j] != 0; }
};

struct MultiHeadResult {
  Matrix pe;                           // (n_q, d_model) when positional_encoding, else empty
  Matrix x_with_pe;                    // (n_q, d_model) X + PE
  Matrix context_pe;                   // (n_k, d_ctx) when positional_encoding and a context
  Matrix context_with_pe;              // (n_k, d_ctx) C + PE
  Mask mask;                           // always filled (all 0 when no mask option is set)
  std::vector<AttentionResult> heads;  // per head: q, k, v, scores, scaled, weights, output
  Matrix concat;                       // (n_q, h·d_v) heads' outputs side by side
  Matrix output;                       // (n_q, d_model) concat·W_O [+ b_O], or concat without W_O
  MatmulScratch scratch;               // the products' scratch, kept for the next call
};

// Checks shapes of every head, W_O, the context, the padding mask and the options.
Error check_multi_head(const MultiHeadInput& in);

// ALiBi's bias of head h of n_heads (n_q, n_k): −m·|i − j|, m = 2^(−8(h+1)/n_heads). The
// paper's slopes for H = 8: 1/2, 1/4, …, 1/256; for H not a power of 2 this formula as is
// (a geometric sequence from 2^(−8/H) down to 2^(−8)), not the paper's interleaving.
void alibi_bias(int h, int n_heads, int n_q, int n_k, Matrix* bias);

// Builds the mask for n_q queries and n_k keys from the causal and padding options.
void build_mask(int n_q, int n_k, const AttentionOptions& options, Mask* mask);

// Runs every step into `out`. Returns an error for bad shapes or options, or when the values
// are so large that a step overflows to ±Inf.
Error multi_head_attention(const MultiHeadInput& in, MultiHeadResult* out);

}  // namespace attn
