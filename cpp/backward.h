// The backward pass of multi_head_attention() (attention.h): given the gradient of a scalar loss L
// where it enters (the seed: G = dL/dOutput, and/or S_h = dL/dWeights_h of some heads), the
// gradient of L with respect to every input matrix and every intermediate result.
//
// A·B is the matrix product, A ⊙ B the element-wise product, rowsum(A) the column of row sums.
// X and C are X + PE and C + PE with positional encoding (PE is a constant: dL/dx = dL/d(X + PE)).
//
//   dConcat    = G·W_Oᵀ              (n_q, h·d_v), or G without W_O    dW_O = Concatᵀ·G
//   db_O       = the column sums of G (with b_O)
//   dOutput_h  = columns h·d_v … (h+1)·d_v − 1 of dConcat              (n_q, d_v)
//   dWeights_h = dOutput_h·V_hᵀ (+ S_h)   (n_q, n_k), masked cells included
//   dV_h       = Weights_hᵀ·dOutput_h                                  (n_k, d_v)
//   dScaled_h  = Weights_h ⊙ (dWeights_h − rowsum(Weights_h ⊙ dWeights_h)), exactly 0 where masked
//   dScores_h  = dScaled_h / √d_k / temperature (no √d_k when scale_by_sqrt_dk is false)
//                (ALiBi's Bias_h is a constant of the positions, added before the division by
//                 temperature: dScores_h is the same, Scaled_h in dtemperature includes it)
//   dQ_h = dScores_h·K_h (n_q, d_k)          dK_h = dScores_hᵀ·Q_h (n_k, d_k)
//   dW_Q[h] = Xᵀ·dQ_h    dW_K[h] = Cᵀ·dK_h    dW_V[h] = Cᵀ·dV_h
//   db_Q[h], db_K[h], db_V[h] = the column sums of dQ_h, dK_h, dV_h (for a head with biases)
//   dX = Σ_h dQ_h·W_Q[h]ᵀ, plus Σ_h dK_h·W_K[h]ᵀ + dV_h·W_V[h]ᵀ in self-attention (C = X)
//   dC = Σ_h dK_h·W_K[h]ᵀ + dV_h·W_V[h]ᵀ in cross-attention
//   dtemperature = −Σ_h Σ_(unmasked i, j) dScaled_h ⊙ Scaled_h / temperature
//
// Every matrix is row-major, as in attention.h; errors are Error values, no exceptions.
#pragma once

#include <vector>

#include "attention.h"

namespace attn {

// dL/d(every input matrix), in the input's structure.
struct InputGradients {
  Matrix x;                  // (n_q, d_model)
  Matrix context;            // (n_k, d_ctx), 0 rows without a context
  std::vector<Head> heads;   // per head dW_Q (d_model, d_k), dW_K (d_ctx, d_k), dW_V (d_ctx, d_v),
                             // and db_Q, db_K, db_V where the head has them
  Matrix wo;                 // (h·d_v, d_model), 0 rows without W_O
  std::vector<double> bo;    // (d_model) with b_O, else empty
  double temperature = 0.0;  // dL/dtemperature
};

// dL/d(every result matrix that a trained matrix feeds), in the forward result's structure.
struct ResultGradients {
  Matrix x_with_pe;        // (n_q, d_model) with positional encoding, else 0 rows
  Matrix context_with_pe;  // (n_k, d_ctx) with positional encoding and a context, else 0 rows
  // per head: q, k, v, scores, scaled (0 where masked), weights (everywhere), output
  std::vector<AttentionResult> heads;
  Matrix concat;  // (n_q, h·d_v)
  Matrix output;  // (n_q, d_out): G itself
};

struct Gradients {
  InputGradients input;
  ResultGradients result;
  MatmulScratch scratch;  // the products' scratch, kept for the next call
};

// Where the gradient of L enters the backward pass; L = Σ G ⊙ Output + Σ_h Σ S_h ⊙ Weights_h
// for a seed (G, S) given as such.
struct Seed {
  Matrix output;                // G = dL/dOutput (n_q, d_out); 0 rows: L does not see the output
  std::vector<Matrix> weights;  // S_h = dL/dWeights_h (n_q, n_k) per head, 0 rows for a head L
                                // does not see; empty: L sees no weights
};

// Runs multi_head_attention(in) into `forward`, then the backward pass of `seed` into `out`.
// Errors: every error of multi_head_attention(); a seed with neither G nor any S_h (empty,
// operand "output"); G not of the output's shape n_q × d_out (shape, operand "output"); not one
// S_h per head, or an S_h not of the weights' shape n_q × n_k (shape, operand "weights", its
// head); a value of G or S_h that is NaN or ±Infinity (not_finite, its row and column); a gradient
// that overflows float64 (overflow, naming the step).
Error attention_backward(const MultiHeadInput& in, const Seed& seed, MultiHeadResult* forward,
                         Gradients* out);

// The backward pass alone, from `forward` = multi_head_attention(in) and a seed that fits it
// (unchecked). d_scaled (one (n_q, n_k) matrix per head, 0 rows for none; nullptr for none at
// all) is added to each head's dScaled: training's weights loss enters there, stable where a
// weight underflows to 0 (its dL/dWeights, −T / Weights, would not be finite there).
Error backpropagate(const MultiHeadInput& in, const MultiHeadResult& forward, const Seed& seed,
                    const std::vector<Matrix>* d_scaled, Gradients* out);

}  // namespace attn
