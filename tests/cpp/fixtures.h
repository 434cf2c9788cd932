// Reads tests/fixtures/*.txt, written by tests/make_fixtures.py (numpy).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attention.h"

struct FixtureCase {
  std::string name;
  std::map<std::string, double> options;         // "option <name> <value>" lines, if any
  std::map<std::string, attn::Matrix> matrices;  // inputs and every numpy result
};

// All cases in file order; throws std::runtime_error if the file is missing or malformed.
// Values are read with strtod, so "-inf" (a masked score) reads as -Infinity.
std::vector<FixtureCase> load_fixture_cases(const std::string& path);

// A case of variant_cases.txt (and of the gradient fixtures) as engine input: its options,
// x, context, keyPadding, h<i>.wq/wk/wv (h<i>.bq/bk/bv where given), wo and bo.
attn::MultiHeadInput multi_head_input(const FixtureCase& c);
