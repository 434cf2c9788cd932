#include <algorithm>
#include <cmath>
#include <sstream>

#include "model_parts.h"

// A model's backward pass (model.h model_gradients: the layers in reverse, each kind's backward
// in model_layers.cpp) and its training by SGD or Adam (train_model).
namespace attn {

using namespace model_parts;

Error model_gradients(const Model& model, const std::vector<int>& ids,
                      const std::vector<int>& targets, const RunOptions& options, ModelRun* run,
                      double* loss, Model* gradients) {
  if (targets.size() != ids.size()) {
    return model_error(ErrorCode::shape, "targets", "targets", -1, -1,
                       "targets has " + count(static_cast<long long>(targets.size()), "id") +
                           " but ids has " + std::to_string(ids.size()) +
                           ": one target per position (-1 for no loss there)");
  }
  if (std::none_of(targets.begin(), targets.end(), [](int t) { return t >= 0; })) {
    return model_error(ErrorCode::empty, "targets", "targets", -1, -1,
                       "targets has no position with a loss: every target is -1");
  }
  Error err = run_model(model, ids, options, run);
  if (!err.ok()) return err;
  err = check_ids(model, "targets", targets.data(), static_cast<int>(targets.size()), true);
  if (!err.ok()) return err;
  const int n_layers = static_cast<int>(model.layers.size());
  MatmulScratch* s = &run->scratch;

  // the gradients start at 0, in the model's structure (absent arrays stay absent)
  Model& g = *gradients;
  g = Model{};
  g.vocab = model.vocab;
  g.d_model = model.d_model;
  g.max_tokens = model.max_tokens;
  g.causal = model.causal;
  g.sinusoidal = model.sinusoidal;
  g.tied = model.tied;
  g.embed = zeros_like(model.embed);
  g.positions = zeros_like(model.positions);
  g.final_norm = zeros_like(model.final_norm);
  g.unembed = zeros_like(model.unembed);
  g.unembed_bias = zeros_like(model.unembed_bias);
  g.layers.resize(n_layers);

  // the loss and dL/dlogits (n, vocab)
  Matrix dlogits;
  *loss = crossentropy_forward_backward(run->logits, run->probabilities, targets, &dlogits);
  // finite logits far apart (1e308 and -1e308) give a loss past float64: an overflow, not Infinity
  if (!std::isfinite(*loss)) {
    return model_error(ErrorCode::overflow, "loss", "loss", -1, -1,
                       "the loss is not finite: the logits are too far apart for float64; use "
                       "smaller values");
  }

  // the unembedding: dfinal (n, d_model)
  Matrix dfinal;
  if (model.tied) {
    matmul(dlogits, model.embed, &dfinal, s);                        // dlogits·embed
    matmul_transposed_left(dlogits, run->final_input, &g.embed, s);  // dlogitsᵀ·F (vocab, d_model)
    if (!model.unembed_bias.empty()) column_sums(dlogits, &g.unembed_bias);
  } else {
    linear_backward(dlogits, run->final_input, model.unembed, !model.unembed_bias.empty(), &dfinal,
                    &g.unembed, &g.unembed_bias, s);
  }
  Matrix dx;  // dL/d(the residual stream) (n, d_model), from x_L back to x₀
  if (model.final_norm.present()) {
    dx = zeros_like(dfinal);
    layernorm_backward(dfinal, run->residual[n_layers], run->final_mean, run->final_rstd,
                       model.final_norm, &dx, &g.final_norm);
  } else {
    dx = dfinal;
  }

  Matrix dact, dhidden, dm, dconcat;
  Gradients attention;  // one layer's attention backward pass
  for (int l = n_layers - 1; l >= 0; l--) {
    const Layer& w = model.layers[l];
    const LayerRun& r = run->layers[l];
    Layer& gl = g.layers[l];
    gl.norm1 = zeros_like(w.norm1);
    gl.norm2 = zeros_like(w.norm2);
    gl.has_mlp = w.has_mlp;

    // MLP: x_out = mid + mlp_output, so dmid = dx + the MLP's input gradient
    if (w.has_mlp) {
      gl.mlp.activation = w.mlp.activation;
      linear_backward(dx, r.activated, w.mlp.w2, !w.mlp.b2.empty(), &dact, &gl.mlp.w2, &gl.mlp.b2,
                      s);
      activation_backward(w.mlp.activation, dact, r.hidden, &dhidden);
      linear_backward(dhidden, r.mlp_input, w.mlp.w1, !w.mlp.b1.empty(), &dm, &gl.mlp.w1,
                      &gl.mlp.b1, s);
      if (w.norm2.present()) {
        layernorm_backward(dm, run->after_attention[l], r.norm2_mean, r.norm2_rstd, w.norm2, &dx,
                           &gl.norm2);
      } else {
        add(dx, dm, &dx);
      }
    }

    // attention: mid = x + concat·W_O + b_O, so dx_in = dmid + the attention's input gradient
    linear_backward(dx, r.attention.concat, w.wo, !w.bo.empty(), &dconcat, &gl.wo, &gl.bo, s);
    const int d_v = w.heads[0].wv.cols;
    for (int h = 0; h < static_cast<int>(w.heads.size()); h++) {
      if (!head_off(options, l, h)) continue;  // a head switched off does not reach the loss
      for (int i = 0; i < dconcat.rows; i++) std::fill_n(&dconcat.at(i, h * d_v), d_v, 0.0);
    }
    Seed seed;
    seed.output = std::move(dconcat);
    err = backpropagate(r.attention_input, r.attention, seed, nullptr, &attention);
    if (!err.ok()) return in_layer(err, l);
    dconcat = std::move(seed.output);
    gl.heads = attention.input.heads;      // dW_Q, dW_K, dW_V and the biases' gradients
    const Matrix& da = attention.input.x;  // dL/da (n, d_model)
    if (w.norm1.present()) {
      layernorm_backward(da, run->residual[l], r.norm1_mean, r.norm1_rstd, w.norm1, &dx, &gl.norm1);
    } else {
      add(dx, da, &dx);
    }
    err = check_step(layer_path(l), l, dx, "the gradient of the input of");
    if (!err.ok()) return err;
  }
  encoder_backward(model, ids, dx, &g);
  // every gradient finite, or an overflow (the steps above check the residual stream's)
  bool finite = true;
  for_each_array(g, [&](const std::vector<double>& v) {
    for (double x : v) finite = finite && std::isfinite(x);
  });
  if (!finite) {
    return model_error(ErrorCode::overflow, "gradients", "gradients", -1, -1,
                       "a gradient is not finite: the values are too large for float64; use "
                       "smaller values");
  }
  return Error{};
}

Error train_model(const Model& start, const std::vector<Batch>& batches,
                  const ModelTrainOptions& options, TrainState* state, Model* trained,
                  std::vector<double>* losses) {
  Error err = check_model(start);
  if (!err.ok()) return err;
  if (!std::isfinite(options.learning_rate)) {
    return model_error(ErrorCode::not_finite, "learningRate", "learningRate", -1, -1,
                       "learningRate must be a finite number > 0");
  }
  if (options.learning_rate <= 0) {
    std::ostringstream msg;
    msg << "learningRate is " << options.learning_rate << ": it must be > 0";
    return model_error(ErrorCode::range, "learningRate", "learningRate", -1, -1, msg.str());
  }
  if (!(err = check_batch_count(static_cast<long long>(batches.size()))).ok()) return err;

  Model p = start;  // the parameters as they train
  std::vector<std::vector<double>*> values;
  for_each_array(p, [&](std::vector<double>& v) { values.push_back(&v); });
  size_t total = 0;
  for (const auto* v : values) total += v->size();
  err = check_state(*state, options.optimizer, total,
                    "this model's parameters with this optimizer (pass the state of a trainModel "
                    "call on a model of the same shapes with the same optimizer)");
  if (!err.ok()) return err;
  const bool adam = options.optimizer == Optimizer::adam;
  TrainState s = *state;  // Adam's moments: m, v of every parameter value, 0 on a fresh start
  if (adam && s.m.empty()) s.m.assign(total, 0.0);
  if (adam && s.v.empty()) s.v.assign(total, 0.0);
  std::vector<double> out_losses;
  ModelRun run;
  Model g;
  for (size_t b = 0; b < batches.size(); b++) {
    double loss = 0.0;
    err = model_gradients(p, batches[b].ids, batches[b].targets, RunOptions{}, &run, &loss, &g);
    if (!err.ok()) {
      const std::string prefix = "batches[" + std::to_string(b) + "]";
      if (err.path == "ids" || err.path == "targets") err.path = prefix + "." + err.path;
      err.prefixed(prefix + ": ");
      return err;
    }
    out_losses.push_back(loss);
    std::vector<const std::vector<double>*> grads;
    for_each_array(static_cast<const Model&>(g),
                   [&](const std::vector<double>& d) { grads.push_back(&d); });
    size_t at = 0;
    for (size_t q = 0; q < values.size(); q++) {
      std::vector<double>& x = *values[q];
      optimizer_update(options.optimizer, options.learning_rate,
                       s.step + static_cast<long long>(b) + 1, x.size(), x.data(), grads[q]->data(),
                       adam ? &s.m[at] : nullptr, adam ? &s.v[at] : nullptr);
      at += x.size();
      for (double value : x) {
        if (!std::isfinite(value)) {
          return model_error(ErrorCode::overflow, "learningRate", "learningRate", -1, -1,
                             "training step " + std::to_string(s.step + b + 1) +
                                 ": a parameter is no longer finite: use a smaller learning rate");
        }
      }
    }
  }
  s.step += static_cast<long long>(batches.size());
  *trained = std::move(p);
  *state = std::move(s);
  *losses = std::move(out_losses);
  return Error{};
}

}  // namespace attn
