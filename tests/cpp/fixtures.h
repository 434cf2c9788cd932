// Reads tests/fixtures/attention_cases.txt, written by tests/make_fixtures.py (numpy).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attention.h"

struct FixtureCase {
  std::string name;
  std::map<std::string, attn::Matrix> matrices;  // x, wq, wk, wv and every numpy result
};

// All cases in file order; throws std::runtime_error if the file is missing or malformed.
std::vector<FixtureCase> load_fixture_cases(const std::string& path);
