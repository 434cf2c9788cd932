// What tests/cpp/test_multi_head.cpp and test_multi_head_errors.cpp share: matrices from
// literal rows, the tutorial's one-head input (我爱你, tests/REFERENCE.md) and a run that keeps
// only the error.
#pragma once

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "attention.h"

namespace multi_head_test {

using Rows = std::vector<std::vector<double>>;
using attn::Matrix;

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline Matrix matrix(const Rows& rows) {
  Matrix m(static_cast<int>(rows.size()), rows.empty() ? 0 : static_cast<int>(rows[0].size()));
  for (int i = 0; i < m.rows; i++) {
    REQUIRE(static_cast<int>(rows[i].size()) == m.cols);
    for (int j = 0; j < m.cols; j++) m.at(i, j) = rows[i][j];
  }
  return m;
}

const Rows kX = {{1.0, 0.0}, {0.5, 0.5}, {0.0, 1.0}};  // the tutorial's 我爱你
const Rows kWq = {{0.5, 0.2}, {0.1, 0.6}};
const Rows kWk = {{0.4, 0.3}, {0.2, 0.7}};
const Rows kWv = {{0.8, 0.1}, {0.3, 0.9}};

inline attn::MultiHeadInput tutorial() {
  attn::MultiHeadInput in;
  in.x = matrix(kX);
  in.heads.push_back({matrix(kWq), matrix(kWk), matrix(kWv)});
  return in;
}

inline attn::Error run(const attn::MultiHeadInput& in) {
  attn::MultiHeadResult r;
  return attn::multi_head_attention(in, &r);
}

}  // namespace multi_head_test
