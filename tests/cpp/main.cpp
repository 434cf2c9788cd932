// Catch2's main(), in a file of its own so the tests recompile quickly.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
