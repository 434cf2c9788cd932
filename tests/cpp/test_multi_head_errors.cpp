// Multi-head attention's errors (bad heads, W_O, context, padding, temperature; overflows; sizes
// past the limits) and random shapes and options. Split from test_multi_head.cpp, which holds
// the values against numpy.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attention.h"
#include "multi_head_helpers.h"

using attn::ErrorCode;
using attn::Matrix;
using namespace multi_head_test;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

TEST_CASE("bad heads, W_O, context, padding and temperature name the operand, head and shapes",
          "[validation]") {
  const Rows w22 = {{1, 0}, {0, 1}};
  const Rows w32 = {{1, 0}, {0, 1}, {1, 1}};
  const Rows w23 = {{1, 0, 0}, {0, 1, 0}};
  auto two_heads = [&]() {
    attn::MultiHeadInput in = tutorial();
    in.heads.push_back({matrix(w22), matrix(w22), matrix(w22)});
    return in;
  };
  auto check_error = [](const attn::Error& err, ErrorCode code, const std::string& operand,
                        int head, const std::string& message) {
    CHECK(err.code == code);
    CHECK(err.operand == operand);
    CHECK(err.head == head);
    CHECK_THAT(err.message, Equals(message));
  };

  SECTION("no heads") {
    attn::MultiHeadInput in = tutorial();
    in.heads.clear();
    check_error(run(in), ErrorCode::empty, "heads", -1,
                "heads is empty: it needs at least one head { wq, wk, wv }");
  }
  SECTION("a head's W_Q rows differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wq = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wq", 1,
                "heads[1].wq has 3 rows but x has 2 columns: heads[1].wq must be d_model × d_k "
                "with d_model = 2 (x is 3 × 2, heads[1].wq is 3 × 2)");
  }
  SECTION("a head's W_V rows differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wv = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wv", 1,
                "heads[1].wv has 3 rows but x has 2 columns: heads[1].wv must be d_model × d_v "
                "with d_model = 2 (x is 3 × 2, heads[1].wv is 3 × 2)");
  }
  SECTION("a head's W_K columns differ from its W_Q's") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wk = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wk", 1,
                "heads[1].wk has 3 columns but heads[1].wq has 2: queries and keys must have "
                "the same length d_k (heads[1].wq is 2 × 2, heads[1].wk is 2 × 3)");
  }
  SECTION("heads with different d_k") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wq = matrix(w23);
    in.heads[1].wk = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wq", 1,
                "heads[1].wq has 3 columns but heads[0].wq has 2: every head must have the same "
                "d_k (heads[0].wq is 2 × 2, heads[1].wq is 2 × 3)");
  }
  SECTION("heads with different d_v") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wv = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wv", 1,
                "heads[1].wv has 3 columns but heads[0].wv has 2: every head must have the same "
                "d_v (heads[0].wv is 2 × 2, heads[1].wv is 2 × 3)");
  }
  SECTION("W_O rows differ from h·d_v") {
    attn::MultiHeadInput in = two_heads();
    in.wo = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wo", -1,
                "wo is 3 × 2 but must be (h·d_v) × d_model = 4 × 2: one row per column of the "
                "heads' concatenated outputs (2 heads × d_v = 2)");
  }
  SECTION("W_O columns differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.wo = matrix({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
    check_error(run(in), ErrorCode::shape, "wo", -1,
                "wo is 4 × 3 but must be (h·d_v) × d_model = 4 × 2: the output has the width "
                "d_model = 2 of x");
  }
  SECTION("W_K rows differ from the context's width") {
    attn::MultiHeadInput in = two_heads();
    in.context = matrix({{1, 2, 3}, {4, 5, 6}});
    in.heads[0].wk = matrix(w32);
    in.heads[0].wv = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wk", 1,
                "heads[1].wk has 2 rows but context has 3 columns: heads[1].wk must be "
                "d_context × d_k with d_context = 3 (context is 2 × 3, heads[1].wk is 2 × 2)");
  }
  SECTION("padding for the wrong number of keys") {
    attn::MultiHeadInput in = tutorial();
    in.options.key_padding = {false, true};
    check_error(run(in), ErrorCode::shape, "keyPadding", -1,
                "keyPadding has 2 values but there are 3 keys (x has 3 rows): keyPadding needs "
                "one true/false per key");
    in.context = matrix({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
    check_error(run(in), ErrorCode::shape, "keyPadding", -1,
                "keyPadding has 2 values but there are 4 keys (context has 4 rows): keyPadding "
                "needs one true/false per key");
  }
  SECTION("temperature not finite, zero or negative") {
    auto [t, code, message] = GENERATE_COPY(table<double, ErrorCode, std::string>({
        {std::nan(""), ErrorCode::not_finite, "temperature is NaN: it must be a finite number > 0"},
        {kInf, ErrorCode::not_finite, "temperature is Infinity: it must be a finite number > 0"},
        {0.0, ErrorCode::range,
         "temperature is 0: it must be > 0 (the scaled scores are divided by it)"},
        {-1.5, ErrorCode::range,
         "temperature is -1.5: it must be > 0 (the scaled scores are divided by it)"},
    }));
    attn::MultiHeadInput in = tutorial();
    in.options.temperature = t;
    check_error(run(in), code, "temperature", -1, message);
  }
  SECTION("a bad value in a head's matrix names the head") {
    const double values[] = {1, 2, std::nan(""), 4};
    const int lengths[] = {2, 2};
    Matrix m;
    check_error(attn::matrix_from_rows("wk", values, lengths, 2, &m, 2), ErrorCode::not_finite,
                "wk", 2, "heads[2].wk[1][0] is NaN: every value must be a finite number");
  }

  // after any of these, a correct compute works
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(two_heads(), &r).ok());
  CHECK_THAT(r.concat.at(0, 0), Catch::Matchers::WithinAbs(0.5511785014811565, 1e-15));
}

TEST_CASE("overflows name the step and the head", "[validation]") {
  attn::MultiHeadInput in;
  in.x = matrix({{1e160}});
  in.heads.push_back({matrix({{1}}), matrix({{1}}), matrix({{1}})});
  in.heads.push_back({matrix({{1e10}}), matrix({{1e10}}), matrix({{1}})});
  attn::Error err;

  SECTION("in a head's scores") {
    in.x = matrix({{1e150}});
    err = run(in);  // head 0: 1e300 fits; head 1: 1e320 does not
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "scores");
    CHECK(err.head == 1);
    CHECK_THAT(err.message, Contains("heads[1].scores[0][0] is Infinity"));
  }
  SECTION("in the scaled scores, from a tiny temperature") {
    in.x = matrix({{1e100}});
    in.heads.pop_back();
    in.options.temperature = 1e-200;  // 1e200 / 1e-200
    err = run(in);
    CHECK(err.operand == "scaled");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Contains("heads[0].scaled[0][0] is Infinity"));
  }
  SECTION("in the projection by W_O") {
    in.x = matrix({{1}});
    in.heads.pop_back();
    in.heads[0].wv = matrix({{1e300}});
    in.wo = matrix({{1e300}});
    err = run(in);
    CHECK(err.operand == "output");
    CHECK(err.head == -1);
    CHECK_THAT(err.message, Contains("output[0][0] is Infinity"));
  }
  SECTION("in the projection of x + PE (|PE| <= 1, so x + PE itself rounds, never overflows)") {
    const double max = std::numeric_limits<double>::max();
    in.x = matrix({{max, max}});
    in.heads = {{matrix({{1}, {1}}), matrix({{1}, {1}}), matrix({{1}, {1}})}};
    in.options.positional_encoding = true;
    err = run(in);
    CHECK(err.operand == "q");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Contains("heads[0].q[0][0] is Infinity"));
  }
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(tutorial(), &r).ok());
  CHECK_THAT(r.output.at(0, 0), Catch::Matchers::WithinAbs(0.5511785014811565, 1e-15));
}

TEST_CASE("sizes beyond the limits are errors before any result is allocated", "[limits]") {
  auto input = [](int n_q, int d_model, int n_heads, int d_k, int d_v) {
    attn::MultiHeadInput in;
    in.x = attn::Matrix(n_q, d_model);
    for (int h = 0; h < n_heads; h++) {
      in.heads.push_back(attn::Head{attn::Matrix(d_model, d_k), attn::Matrix(d_model, d_k),
                                    attn::Matrix(d_model, d_v)});
    }
    return in;
  };
  auto [in, operand, text] = GENERATE_COPY(table<attn::MultiHeadInput, std::string, std::string>({
      {input(attn::kMaxTokens + 1, 1, 1, 1, 1), "x",
       "the number of tokens (rows of x) is 4097, more than the 4096 supported"},
      {input(2, attn::kMaxDimension + 1, 1, 1, 1), "x",
       "d_model (columns of x) is 1025, more than the 1024 supported"},
      {input(2, 1, attn::kMaxHeads + 1, 1, 1), "heads",
       "the number of heads is 65, more than the 64 supported"},
      {input(2, 1, 2, attn::kMaxDimension + 1, 1), "wq",
       "d_k (columns of heads[0].wq) is 1025, more than the 1024 supported"},
      {input(2, 1, 2, 1, attn::kMaxDimension + 1), "wv",
       "d_v (columns of heads[0].wv) is 1025, more than the 1024 supported"},
      {input(attn::kMaxTokens, 1, 3, 1, 1), "x",
       "heads × queries × keys = 3 × 4096 × 4096 is 50331648, more than the 33554432 supported"},
  }));
  attn::MultiHeadResult r;
  attn::Error err = attn::multi_head_attention(in, &r);
  CHECK(err.code == attn::ErrorCode::limit);
  CHECK(err.operand == operand);
  CHECK_THAT(err.message, Catch::Matchers::StartsWith(text));
  CHECK(r.heads.empty());  // nothing computed, nothing allocated for results
}

TEST_CASE("random shapes and options always give finite weights that sum to one", "[random]") {
  // Invariants only (numpy agreement is the fixtures' job); the sanitizer build runs this too.
  std::mt19937 rng(20261130);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto random_matrix = [&](int rows, int cols, double scale) {
    attn::Matrix m(rows, cols);
    std::normal_distribution<double> normal(0.0, scale);
    for (double& v : m.data) v = normal(rng);
    return m;
  };
  for (int trial = 0; trial < 300; trial++) {
    const int n_q = uniform(1, 40), d_model = uniform(1, 24), d_k = uniform(1, 16),
              d_v = uniform(1, 16), n_heads = uniform(1, 4);
    const bool cross = uniform(0, 1) == 1;
    const int n_k = cross ? uniform(1, 40) : n_q;
    const int d_ctx = cross ? uniform(1, 24) : d_model;
    const double scale = std::pow(10.0, uniform(-2, 1));
    attn::MultiHeadInput in;
    in.x = random_matrix(n_q, d_model, scale);
    if (cross) in.context = random_matrix(n_k, d_ctx, scale);
    for (int h = 0; h < n_heads; h++) {
      in.heads.push_back(attn::Head{random_matrix(d_model, d_k, scale),
                                    random_matrix(d_ctx, d_k, scale),
                                    random_matrix(d_ctx, d_v, scale)});
    }
    if (uniform(0, 1) == 1) in.wo = random_matrix(n_heads * d_v, d_model, scale);
    in.options.causal = uniform(0, 1) == 1;
    if (uniform(0, 2) == 0) {
      for (int j = 0; j < n_k; j++) in.options.key_padding.push_back(uniform(0, 3) == 0);
    }
    in.options.scale_by_sqrt_dk = uniform(0, 3) != 0;
    in.options.temperature = std::pow(10.0, uniform(-1, 1));
    in.options.positional_encoding = uniform(0, 2) == 0;

    INFO("trial " << trial << ": n_q " << n_q << ", n_k " << n_k << ", heads " << n_heads);
    attn::MultiHeadResult r;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    for (const attn::AttentionResult& h : r.heads) {
      REQUIRE(h.weights.rows == n_q);
      REQUIRE(h.weights.cols == n_k);
      for (int i = 0; i < n_q; i++) {
        double sum = 0.0;
        for (int j = 0; j < n_k; j++) sum += h.weights.at(i, j);
        CHECK_THAT(sum, Catch::Matchers::WithinAbs(r.mask.fully_masked[i] ? 0.0 : 1.0, 1e-12));
      }
    }
    REQUIRE(r.output.rows == n_q);
    REQUIRE(r.output.cols == (in.wo.rows > 0 ? d_model : n_heads * d_v));
    for (double v : r.output.data) CHECK(std::isfinite(v));
  }
}

// The core does not know how its caller names the heads (issue 34): one error, both namings,
// the caller picks. The heads form says "heads[0].wq", the one-head form (compute({x, wq, wk,
// wv})) "wq" with no head.
TEST_CASE("a head's error reads in the heads form and, for its caller, in the one-head form",
          "[validation]") {
  attn::MultiHeadInput in = tutorial();
  in.heads[0].wk = matrix({{1, 0, 0}, {0, 1, 0}});  // 3 columns, wq has 2
  const attn::Error err = run(in);
  CHECK(err.head == 0);
  CHECK_THAT(err.message, Equals("heads[0].wk has 3 columns but heads[0].wq has 2: queries and "
                                 "keys must have the same length d_k (heads[0].wq is 2 × 2, "
                                 "heads[0].wk is 2 × 3)"));
  const attn::Error one = attn::one_head_form(err);
  CHECK(one.code == ErrorCode::shape);
  CHECK(one.operand == "wk");
  CHECK(one.head == -1);
  CHECK_THAT(one.message, Equals("wk has 3 columns but wq has 2: queries and keys must have the "
                                 "same length d_k (wq is 2 × 2, wk is 2 × 3)"));
  // an error that names no head reads the same in both
  in = tutorial();
  in.options.temperature = 0;
  const attn::Error plain = run(in);
  CHECK(plain.one_head_message.empty());
  CHECK(attn::one_head_form(plain).message == plain.message);
}
