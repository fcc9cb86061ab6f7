// Catch2 entry point for wisp's unit and end-to-end tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
