#include <algorithm>

#include "model_parts.h"

// A model's forward pass (model.h run_model): one loop over the layers, every intermediate kept.
namespace attn {

using namespace model_parts;

namespace {

Error check_run_options(const Model& model, const RunOptions& options) {
  if (options.heads_off.empty()) return Error{};
  const int n_layers = static_cast<int>(model.layers.size());
  if (static_cast<int>(options.heads_off.size()) != n_layers) {
    return model_error(
        ErrorCode::shape, "headsOff", "headsOff", -1, -1,
        "headsOff has " + count(static_cast<long long>(options.heads_off.size()), "entry") +
            " but the model has " + count(n_layers, "layer") + ": one list of heads per layer");
  }
  for (int l = 0; l < n_layers; l++) {
    const size_t n = options.heads_off[l].size();
    if (n != 0 && n != model.layers[l].heads.size()) {
      return model_error(ErrorCode::shape, "headsOff", "headsOff", l, -1,
                         "headsOff[" + std::to_string(l) + "] has " +
                             count(static_cast<long long>(n), "flag") + " but " + layer_path(l) +
                             " has " +
                             count(static_cast<long long>(model.layers[l].heads.size()), "head"));
    }
  }
  return Error{};
}

// The values one run keeps, before it allocates them (attention cells, MLP and logits).
Error check_run_size(const Model& model, int n) {
  long long values = 2LL * n * model.vocab;
  for (const Layer& layer : model.layers) {
    values += 3LL * static_cast<long long>(layer.heads.size()) * n * n;
    if (layer.has_mlp) values += 2LL * n * layer.mlp.w1.cols;
  }
  if (values > kMaxModelRunValues) {
    return model_error(ErrorCode::limit, "ids", "ids", -1, -1,
                       "this run would keep " + std::to_string(values) +
                           " values (every layer's scores, scaled scores and weights, the MLP's "
                           "and the logits), more than the " +
                           std::to_string(kMaxModelRunValues) +
                           " supported: use fewer tokens or a smaller model");
  }
  return Error{};
}

}  // namespace

Error run_model(const Model& model, const std::vector<int>& ids, const RunOptions& options,
                ModelRun* run) {
  Error err = check_model(model);
  if (!err.ok()) return err;
  if (!(err = check_run_options(model, options)).ok()) return err;
  const int n = static_cast<int>(ids.size());
  if (!(err = check_ids(model, "ids", ids.data(), n, false)).ok()) return err;
  if (!(err = check_run_size(model, n)).ok()) return err;
  const int n_layers = static_cast<int>(model.layers.size());
  run->ids = ids;
  run->residual.resize(n_layers + 1);
  run->after_attention.resize(n_layers);
  run->layers.resize(n_layers);
  MatmulScratch* s = &run->scratch;

  encoder_forward(model, ids, &run->residual[0]);  // x₀ (n, d_model)
  if (!(err = check_step("residual[0]", -1, run->residual[0], "the embedding")).ok()) return err;
  for (int l = 0; l < n_layers; l++) {
    const Layer& w = model.layers[l];
    LayerRun& r = run->layers[l];
    const Matrix& x = run->residual[l];  // (n, d_model), the layer's input
    const std::string lp = layer_path(l);

    // attention: a = norm1 ? LN(x) : x, the heads read a (no W_O inside: the layer's own, below)
    MultiHeadInput& a = r.attention_input;
    if (w.norm1.present()) {
      layernorm_forward(x, w.norm1, &a.x, &r.norm1_mean, &r.norm1_rstd);
    } else {
      a.x = x;
    }
    a.heads = w.heads;
    a.wo = Matrix{};
    a.options = AttentionOptions{};
    a.options.causal = model.causal;  // query i sees keys j ≤ i
    if (!(err = multi_head_attention(a, &r.attention)).ok()) return in_layer(err, l);
    // a head switched off enters the concatenation as 0: columns h·d_v … (h+1)·d_v − 1
    const int d_v = w.heads[0].wv.cols;
    for (int h = 0; h < static_cast<int>(w.heads.size()); h++) {
      if (!head_off(options, l, h)) continue;
      for (int i = 0; i < n; i++) {
        std::fill_n(&r.attention.concat.at(i, h * d_v), d_v, 0.0);
      }
    }
    linear_forward(r.attention.concat, w.wo, w.bo, &r.attention_output, s);  // (n, d_model)
    add(x, r.attention_output, &run->after_attention[l]);                    // the residual
    err = check_step(lp + ".attention.output", l, r.attention_output, "the attention's output");
    if (!err.ok()) return err;

    // MLP: m = norm2 ? LN(x) : x, x += act(m·W1 + b1)·W2 + b2
    const Matrix& mid = run->after_attention[l];
    if (!w.has_mlp) {
      run->residual[l + 1] = mid;
      continue;
    }
    if (w.norm2.present()) {
      layernorm_forward(mid, w.norm2, &r.mlp_input, &r.norm2_mean, &r.norm2_rstd);
    } else {
      r.mlp_input = mid;
    }
    linear_forward(r.mlp_input, w.mlp.w1, w.mlp.b1, &r.hidden, s);      // (n, f)
    activation_forward(w.mlp.activation, r.hidden, &r.activated);       // (n, f)
    linear_forward(r.activated, w.mlp.w2, w.mlp.b2, &r.mlp_output, s);  // (n, d_model)
    add(mid, r.mlp_output, &run->residual[l + 1]);
    if (!(err = check_step(lp + ".mlp.hidden", l, r.hidden, "the MLP's")).ok()) return err;
    if (!(err = check_step(lp + ".mlp.output", l, r.mlp_output, "the MLP's")).ok()) return err;
  }

  // logits = (finalNorm ? LN(x_L) : x_L)·U + b_U, U = embedᵀ when tied
  const Matrix& last = run->residual[n_layers];
  if (model.final_norm.present()) {
    layernorm_forward(last, model.final_norm, &run->final_input, &run->final_mean,
                      &run->final_rstd);
  } else {
    run->final_input = last;
  }
  if (model.tied) {
    matmul_transposed(run->final_input, model.embed, &run->logits, s);  // (n, vocab)
    if (!model.unembed_bias.empty()) add_to_rows(model.unembed_bias, &run->logits);
  } else {
    linear_forward(run->final_input, model.unembed, model.unembed_bias, &run->logits, s);
  }
  if (!(err = check_step("logits", -1, run->logits, "the")).ok()) return err;
  softmax_rows(run->logits, &run->probabilities);  // (n, vocab), each row sums to 1
  return Error{};
}

}  // namespace attn
