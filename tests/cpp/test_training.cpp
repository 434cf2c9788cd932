// Training (training.h): SGD and Adam steps against PyTorch (training_cases.txt, written by
// tests/make_grad_fixtures.py with torch.optim), a goal that training reaches, steps split over
// calls, the same bits in every build, and the options' errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attention.h"
#include "fixtures.h"
#include "training.h"

using attn::ErrorCode;
using attn::Matrix;

namespace {

double relative_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0.0;
  for (size_t i = 0; i < a.size(); i++) {
    d = std::max(d, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  }
  return d;
}

attn::TrainOptions train_options(const FixtureCase& c, int n_heads) {
  const auto& o = c.options;
  attn::TrainOptions t;
  t.loss = o.at("loss") != 0 ? attn::Loss::weights_cross_entropy : attn::Loss::output_mse;
  t.optimizer = o.at("optimizer") != 0 ? attn::Optimizer::adam : attn::Optimizer::sgd;
  t.learning_rate = o.at("learningRate");
  t.steps = static_cast<long long>(o.at("steps"));
  t.seed = static_cast<uint32_t>(o.at("seed"));
  t.rows_per_step = static_cast<long long>(o.at("rowsPerStep"));
  t.trained.x = o.at("train.x") != 0;
  t.trained.context = o.at("train.context") != 0;
  t.trained.wq = o.at("train.wq") != 0;
  t.trained.wk = o.at("train.wk") != 0;
  t.trained.wv = o.at("train.wv") != 0;
  t.trained.wo = o.at("train.wo") != 0;
  if (t.loss == attn::Loss::output_mse) {
    t.target = c.matrices.at("target");
  } else {
    t.target_weights.resize(n_heads);  // 0 rows: a head without a target
    for (int h = 0; h < n_heads; h++) {
      const auto it = c.matrices.find("target.h" + std::to_string(h));
      if (it != c.matrices.end()) t.target_weights[h] = it->second;
    }
  }
  return t;
}

// The tutorial's 我爱你, causal, learning "each token looks at the one before it".
attn::MultiHeadInput tutorial() {
  attn::MultiHeadInput in;
  in.x = Matrix(3, 2);
  in.x.data = {1.0, 0.0, 0.5, 0.5, 0.0, 1.0};
  Matrix wq(2, 2), wk(2, 2), wv(2, 2);
  wq.data = {0.5, 0.2, 0.1, 0.6};
  wk.data = {0.4, 0.3, 0.2, 0.7};
  wv.data = {0.8, 0.1, 0.3, 0.9};
  in.heads.push_back({wq, wk, wv});
  in.options.causal = true;
  return in;
}

attn::TrainOptions previous_token_goal(int n) {
  attn::TrainOptions t;
  t.loss = attn::Loss::weights_cross_entropy;
  Matrix target(n, n);
  target.at(0, 0) = 1.0;
  for (int i = 1; i < n; i++) target.at(i, i - 1) = 1.0;
  t.target_weights = {target};
  t.trained.wq = t.trained.wk = true;
  t.optimizer = attn::Optimizer::adam;
  t.learning_rate = 0.05;
  return t;
}

std::vector<uint64_t> bits(const std::vector<double>& values) {
  std::vector<uint64_t> out(values.size());
  for (size_t i = 0; i < values.size(); i++) std::memcpy(&out[i], &values[i], sizeof(double));
  return out;
}

}  // namespace

TEST_CASE("SGD and Adam steps agree with torch.optim within 1e-8", "[training][torch]") {
  const auto cases = load_fixture_cases(TRAINING_FIXTURE_FILE);
  REQUIRE(cases.size() >= 6);
  for (const auto& c : cases) {
    INFO("case " << c.name);
    const attn::MultiHeadInput start = multi_head_input(c);
    attn::TrainState state;
    attn::Workspace workspace;
    attn::MultiHeadInput trained;
    std::vector<double> losses;
    const attn::Error err =
        attn::train(start, train_options(c, static_cast<int>(start.heads.size())), &state, &trained,
                    &losses, &workspace);
    INFO(err.message);
    REQUIRE(err.ok());
    CHECK(relative_diff(losses, c.matrices.at("losses").data) <= 1e-8);
    CHECK(state.step == static_cast<long long>(c.options.at("steps")));
    int finals = 0;
    for (const auto& [name, want] : c.matrices) {
      if (name.rfind("final.", 0) != 0) continue;
      INFO(name);
      const std::string key = name.substr(6);  // x, context, wo, h<i>.wq …
      const Matrix* got = key == "x"         ? &trained.x
                          : key == "context" ? &trained.context
                          : key == "wo"      ? &trained.wo
                                             : nullptr;
      if (got == nullptr) {
        const attn::Head& head = trained.heads.at(std::stoi(key.substr(1)));
        const std::string w = key.substr(key.find('.') + 1);
        got = w == "wq" ? &head.wq : w == "wk" ? &head.wk : &head.wv;
      }
      const double diff = relative_diff(got->data, want.data);
      INFO("max |engine - torch| / max(1, |torch|) = " << diff);
      CHECK(diff <= 1e-8);
      finals++;
    }
    CHECK(finals > 0);
  }
}

TEST_CASE("training reaches a goal: each token attends to the one before it", "[training]") {
  // 6 tokens, d_model = d_k = d_v = 8, causal; X and W from a fixed formula (like the bench's)
  const int n = 6, d = 8;
  attn::MultiHeadInput in;
  auto filled = [](int rows, int cols, double seed) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) m.at(i, j) = std::sin(seed + 0.37 * i + 1.91 * j);
    return m;
  };
  in.x = filled(n, d, 1);
  in.heads.push_back({filled(d, d, 2), filled(d, d, 3), filled(d, d, 4)});
  in.options.causal = true;
  attn::TrainOptions options = previous_token_goal(n);
  options.steps = 300;
  attn::TrainState state;
  attn::Workspace workspace;
  attn::MultiHeadInput trained;
  std::vector<double> losses;
  REQUIRE(attn::train(in, options, &state, &trained, &losses, &workspace).ok());
  REQUIRE(losses.size() == 301);
  INFO("cross-entropy " << losses.front() << " → " << losses.back());
  CHECK(losses.front() > 0.5);
  CHECK(losses.back() < 0.02);
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(trained, &r).ok());
  for (int i = 1; i < n; i++) CHECK(r.heads[0].weights.at(i, i - 1) > 0.97);
}

TEST_CASE("steps split over calls give the same bits as in one call", "[training]") {
  const auto cases = load_fixture_cases(TRAINING_FIXTURE_FILE);
  for (const auto& c : cases) {
    INFO("case " << c.name);
    const attn::MultiHeadInput start = multi_head_input(c);
    const attn::TrainOptions whole = train_options(c, static_cast<int>(start.heads.size()));
    attn::Workspace workspace;
    attn::TrainState one_state;
    attn::MultiHeadInput one;
    std::vector<double> one_losses;
    REQUIRE(attn::train(start, whole, &one_state, &one, &one_losses, &workspace).ok());

    attn::TrainOptions part = whole;
    part.steps = whole.steps / 2;
    attn::TrainState state;
    attn::MultiHeadInput half, rest;
    std::vector<double> first, second;
    REQUIRE(attn::train(start, part, &state, &half, &first, &workspace).ok());
    part.steps = whole.steps - part.steps;
    REQUIRE(attn::train(half, part, &state, &rest, &second, &workspace).ok());
    CHECK(state.step == one_state.step);
    CHECK(bits(state.m) == bits(one_state.m));
    CHECK(bits(state.v) == bits(one_state.v));
    CHECK(bits(rest.x.data) == bits(one.x.data));
    for (size_t h = 0; h < one.heads.size(); h++) {
      CHECK(bits(rest.heads[h].wq.data) == bits(one.heads[h].wq.data));
      CHECK(bits(rest.heads[h].wk.data) == bits(one.heads[h].wk.data));
      CHECK(bits(rest.heads[h].wv.data) == bits(one.heads[h].wv.data));
    }
    first.pop_back();  // the loss after the first call's last step starts the second's
    first.insert(first.end(), second.begin(), second.end());
    CHECK(bits(first) == bits(one_losses));
  }
}

TEST_CASE("bad training options are errors that name the option", "[training][errors]") {
  const attn::MultiHeadInput in = tutorial();
  attn::TrainOptions o = previous_token_goal(3);
  attn::TrainState state;
  attn::Workspace workspace;
  attn::MultiHeadInput out;
  std::vector<double> losses;
  // errors named as compute()'s one-head form names them ("target", "scores")
  auto check = [&](ErrorCode code, const std::string& operand, const std::string& message) {
    const attn::Error err =
        attn::one_head_form(attn::train(in, o, &state, &out, &losses, &workspace));
    CHECK(err.code == code);
    CHECK(err.operand == operand);
    CHECK_THAT(err.message, Catch::Matchers::Equals(message));
    CHECK(state.step == 0);  // nothing changed
    CHECK(losses.empty());
  };
  SECTION("learning rate") {
    o.learning_rate = 0;
    check(ErrorCode::range, "learningRate", "learningRate is 0: it must be > 0");
    o.learning_rate = INFINITY;
    check(ErrorCode::not_finite, "learningRate", "learningRate must be a finite number > 0");
  }
  SECTION("steps") {
    o.steps = 0;
    check(ErrorCode::range, "steps", "steps is 0: it must be at least 1");
    o.steps = attn::kMaxTrainSteps + 1;
    check(ErrorCode::limit, "steps",
          "steps is 10001, more than the 10000 supported in one call: call again to go on (pass "
          "the state)");
  }
  SECTION("rows per step") {
    o.rows_per_step = 4;
    check(
        ErrorCode::range, "rowsPerStep",
        "rowsPerStep is 4: it must be from 1 to the number of query rows, 3 (or 0 for every row)");
  }
  SECTION("which matrices") {
    o.trained = attn::Trained{};
    check(ErrorCode::empty, "train",
          "train is empty: name at least one matrix to train (x, context, wq, wk, wv, wo)");
    o.trained.wo = true;
    check(ErrorCode::conflict, "train", "train names wo but the input has no wo");
    o.trained = attn::Trained{};
    o.trained.context = true;
    check(ErrorCode::conflict, "train", "train names context but the input has no context");
  }
  SECTION("targets") {
    o.target_weights[0] = Matrix(3, 2);
    check(ErrorCode::shape, "target",
          "target is 3 × 2 but must be 3 × 3 (the weights' shape, n_q × n_k)");
    o.target_weights[0] = Matrix(3, 3);
    o.target_weights[0].at(2, 1) = -0.5;
    check(ErrorCode::range, "target",
          "target[2][1] is -0.5: target weights must be >= 0 (a distribution over the keys)");
    o.target_weights = {};
    check(ErrorCode::shape, "target",
          "target has 0 weight matrices but there are 1 heads: one per head (or null for a head "
          "left out of the loss)");
    o.target_weights = {Matrix{}};
    check(ErrorCode::empty, "target",
          "target has no weight matrix: give one for at least one head");
    o.loss = attn::Loss::output_mse;
    o.target = Matrix(3, 3);
    check(ErrorCode::shape, "target",
          "target is 3 × 3 but must be 3 × 2 (the output's shape, n_q × d_out)");
  }
  SECTION("an input beyond the training limit, before anything is allocated") {
    attn::MultiHeadInput big;
    big.x = Matrix(2049, 1);  // 2049² > 2^22 attention cells
    big.heads.push_back({Matrix(1, 1), Matrix(1, 1), Matrix(1, 1)});
    const attn::Error err = attn::train(big, o, &state, &out, &losses, &workspace);
    CHECK(err.code == ErrorCode::limit);
    CHECK_THAT(err.message, Catch::Matchers::Equals(
                                "heads × queries × keys = 1 × 2049 × 2049 is 4198401, more than "
                                "the 4194304 supported for training: use fewer tokens or heads"));
    CHECK(workspace.forward.heads.empty());
  }
  SECTION("a state that does not fit") {
    state.m.assign(3, 0.0);
    state.v.assign(3, 0.0);
    check(ErrorCode::shape, "state",
          "the state's moments do not fit: they hold 6 values but 16 are needed for the trained "
          "matrices with this optimizer (pass the state of a call with the same input shapes, "
          "train and optimizer)");
  }
  SECTION("a learning rate so large that the parameters overflow") {
    o.optimizer = attn::Optimizer::sgd;
    o.loss = attn::Loss::output_mse;
    o.target = Matrix(3, 2);
    o.learning_rate = 1e308;
    o.steps = 5;
    const attn::Error err =
        attn::one_head_form(attn::train(in, o, &state, &out, &losses, &workspace));
    // the first step's update is finite (about −1e307), the next forward pass is not
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "scores");
    CHECK_THAT(err.message, Catch::Matchers::StartsWith("after 1 step: scores[0][0] is NaN"));
    CHECK(state.step == 0);
  }
}

TEST_CASE("the same call gives the same bits natively, in wasm and under sanitizers",
          "[training][bits]") {
  // Adam on the tutorial, 5 steps. The expected bits were printed by the native (g++) build;
  // this test runs in every build (ctest natively, in wasm under node, with ASan/UBSan), so
  // each build must reproduce them exactly. Their values agree with torch (test above).
  attn::TrainOptions o = previous_token_goal(3);
  o.steps = 5;
  attn::TrainState state;
  attn::Workspace workspace;
  attn::MultiHeadInput out;
  std::vector<double> losses;
  REQUIRE(attn::train(tutorial(), o, &state, &out, &losses, &workspace).ok());
  std::vector<double> values = losses;
  values.insert(values.end(), out.heads[0].wq.data.begin(), out.heads[0].wq.data.end());
  values.insert(values.end(), out.heads[0].wk.data.begin(), out.heads[0].wk.data.end());
  values.insert(values.end(), state.v.begin(), state.v.end());
  const std::vector<uint64_t> want = {
      // losses before the first step and after each step
      0x3fe352e6804c7209, 0x3fe31e56070b7f32, 0x3fe2ed32231d9272, 0x3fe2bf4c6f7f5f55,
      0x3fe29432329a6618, 0x3fe26b3acafa60e5,
      // W_Q, W_K after 5 steps
      0x3fe7f2b5dd8dbe79, 0xbf9a9e3742111230, 0x3fd66903cb12e1c0, 0x3fd83bf0c2534c79,
      0x3fe4d5ac6a35c126, 0x3fe14563abf3f2fd, 0xbfaa27937028df35, 0x3fdd7538a8181a06,
      // Adam's second moments
      0x3ea88a9a7a1c9666, 0x3e91b417d52f8b82, 0x3ea5e159b19d3015, 0x3e974559e4489670,
      0x3ec63de2f0074557, 0x3ebf26b6740e0644, 0x3ec63de2f007455a, 0x3ebf26b6740e0649};
  CHECK(bits(values) == want);
}
