// Attention with biases (bq, bk, bv per head, bo with W_O): the forward pass, the backward pass
// and training against PyTorch's nn.MultiheadAttention(bias=True) in float64 (bias_cases.txt,
// written by tests/make_bias_fixtures.py), and the biases' shape errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "fixtures.h"
#include "training.h"

using attn::ErrorCode;
using attn::Matrix;

namespace {

// max over cells of |a − b| / max(1, |b|), as the other fixture tests measure
double relative_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0.0;
  for (size_t i = 0; i < a.size(); i++) {
    d = std::max(d, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  }
  return d;
}
double relative_diff(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  return relative_diff(a.data, b.data);
}

std::vector<FixtureCase> cases(bool training) {
  std::vector<FixtureCase> out;
  for (FixtureCase& c : load_fixture_cases(BIAS_FIXTURE_FILE)) {
    if ((c.options.count("steps") > 0) == training) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

TEST_CASE("attention with biases equals nn.MultiheadAttention(bias=True)", "[bias]") {
  double worst = 0.0;
  for (const FixtureCase& c : cases(false)) {
    INFO(c.name);
    const attn::MultiHeadInput in = multi_head_input(c);
    REQUIRE(!in.heads[0].bq.empty());
    attn::MultiHeadResult r;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    for (size_t h = 0; h < in.heads.size(); h++) {
      const std::string p = "h" + std::to_string(h) + ".";
      worst = std::max(worst, relative_diff(r.heads[h].q, c.matrices.at(p + "q")));
      worst = std::max(worst, relative_diff(r.heads[h].k, c.matrices.at(p + "k")));
      worst = std::max(worst, relative_diff(r.heads[h].v, c.matrices.at(p + "v")));
      worst = std::max(worst, relative_diff(r.heads[h].weights, c.matrices.at(p + "weights")));
    }
    worst = std::max(worst, relative_diff(r.output, c.matrices.at("output")));
    CHECK(worst <= 1e-12);
  }
  std::printf("biases, forward against torch: max relative difference %.3g\n", worst);
}

TEST_CASE("the gradients of the biases equal autograd's", "[bias]") {
  double worst = 0.0;
  for (const FixtureCase& c : cases(false)) {
    INFO(c.name);
    const attn::MultiHeadInput in = multi_head_input(c);
    attn::Seed seed;
    seed.output = c.matrices.at("G");
    attn::MultiHeadResult f;
    attn::Gradients g;
    REQUIRE(attn::attention_backward(in, seed, &f, &g).ok());
    const auto& m = c.matrices;
    worst = std::max(worst, relative_diff(g.input.x, m.at("d.x")));
    if (m.count("d.context"))
      worst = std::max(worst, relative_diff(g.input.context, m.at("d.context")));
    for (size_t h = 0; h < in.heads.size(); h++) {
      const std::string p = "d.h" + std::to_string(h) + ".";
      const attn::Head& d = g.input.heads[h];
      worst = std::max(worst, relative_diff(d.wq, m.at(p + "wq")));
      worst = std::max(worst, relative_diff(d.wk, m.at(p + "wk")));
      worst = std::max(worst, relative_diff(d.wv, m.at(p + "wv")));
      worst = std::max(worst, relative_diff(d.bq, m.at(p + "bq").data));
      worst = std::max(worst, relative_diff(d.bv, m.at(p + "bv").data));
      if (m.count(p + "bk")) {
        worst = std::max(worst, relative_diff(d.bk, m.at(p + "bk").data));
      } else {
        CHECK(d.bk.empty());  // no bias given, none returned
      }
    }
    if (m.count("d.wo")) worst = std::max(worst, relative_diff(g.input.wo, m.at("d.wo")));
    if (m.count("d.bo")) {
      worst = std::max(worst, relative_diff(g.input.bo, m.at("d.bo").data));
    } else {
      CHECK(g.input.bo.empty());
    }
    CHECK(worst <= 1e-9);
  }
  std::printf("biases, backward against autograd: max relative difference %.3g\n", worst);
}

TEST_CASE("training trains the biases as torch.optim does", "[bias]") {
  double worst = 0.0;
  for (const FixtureCase& c : cases(true)) {
    INFO(c.name);
    const attn::MultiHeadInput in = multi_head_input(c);
    attn::TrainOptions o;
    o.loss = attn::Loss::output_mse;
    o.target = c.matrices.at("target");
    o.trained = {false, false, true, true, true, true};
    o.optimizer = c.options.at("optimizer") != 0.0 ? attn::Optimizer::adam : attn::Optimizer::sgd;
    o.learning_rate = c.options.at("learningRate");
    o.steps = static_cast<long long>(c.options.at("steps"));
    attn::TrainState state;
    attn::MultiHeadInput out;
    std::vector<double> losses;
    attn::Workspace w;
    REQUIRE(attn::train(in, o, &state, &out, &losses, &w).ok());
    worst = std::max(worst, relative_diff(losses, c.matrices.at("losses").data));
    for (size_t h = 0; h < in.heads.size(); h++) {
      const std::string p = "final.h" + std::to_string(h) + ".";
      const attn::Head& t = out.heads[h];
      worst = std::max(worst, relative_diff(t.wq, c.matrices.at(p + "wq")));
      worst = std::max(worst, relative_diff(t.wk, c.matrices.at(p + "wk")));
      worst = std::max(worst, relative_diff(t.wv, c.matrices.at(p + "wv")));
      worst = std::max(worst, relative_diff(t.bq, c.matrices.at(p + "bq").data));
      worst = std::max(worst, relative_diff(t.bk, c.matrices.at(p + "bk").data));
      worst = std::max(worst, relative_diff(t.bv, c.matrices.at(p + "bv").data));
    }
    worst = std::max(worst, relative_diff(out.wo, c.matrices.at("final.wo")));
    worst = std::max(worst, relative_diff(out.bo, c.matrices.at("final.bo").data));
    CHECK(worst <= 1e-9);
    // Adam's moments: one per trained value, the biases included
    if (o.optimizer == attn::Optimizer::adam) {
      size_t values = out.wo.data.size() + out.bo.size();
      for (const attn::Head& t : out.heads) {
        values += t.wq.data.size() + t.wk.data.size() + t.wv.data.size() + t.bq.size() +
                  t.bk.size() + t.bv.size();
      }
      CHECK(state.m.size() == values);
    }
  }
  std::printf("biases, training against torch.optim: max relative difference %.3g\n", worst);
}

TEST_CASE("a bias of the wrong length or bo without wo is an error naming it", "[bias]") {
  const FixtureCase c = cases(false).at(1);  // heads2_n4_dm6: d_k = d_v = 3, d_model = 6
  attn::MultiHeadResult r;

  attn::MultiHeadInput in = multi_head_input(c);
  in.heads[1].bq.pop_back();
  attn::Error e = attn::multi_head_attention(in, &r);
  CHECK(e.code == ErrorCode::shape);
  CHECK(e.operand == "bq");
  CHECK(e.head == 1);
  CHECK(e.message == "heads[1].bq has 2 values but must have 3 (d_k)");

  in = multi_head_input(c);
  in.heads[0].bv.push_back(1.0);
  e = attn::multi_head_attention(in, &r);
  CHECK(e.code == ErrorCode::shape);
  CHECK(e.operand == "bv");
  CHECK(e.head == 0);

  in = multi_head_input(c);
  in.bo.pop_back();
  e = attn::multi_head_attention(in, &r);
  CHECK(e.code == ErrorCode::shape);
  CHECK(e.operand == "bo");
  CHECK(e.message == "bo has 5 values but must have 6 (d_model, the output's width)");

  in = multi_head_input(c);
  in.wo = Matrix{};
  e = attn::multi_head_attention(in, &r);
  CHECK(e.code == ErrorCode::conflict);
  CHECK(e.operand == "bo");
}
