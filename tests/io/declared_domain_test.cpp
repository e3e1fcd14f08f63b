// A program file's declared input domain (core/io/declared_domain.h): what lsrl program
// writes reads back; missing and mistyped fields are left undeclared, never guessed.
#include "core/io/declared_domain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace lsrl {
namespace {

TEST(DeclaredDomain, ReadsWhatLsrlProgramWrites) {
  const auto meta = nlohmann::json::parse(
      R"({"domain": {"box": ["0", "9"], "grid": "1", "horizon": 1024}, "program": "tok2tok"})");
  const DeclaredDomain d = declaredDomain(meta);
  ASSERT_TRUE(d.complete());
  EXPECT_EQ(*d.lo, "0");
  EXPECT_EQ(*d.hi, "9");
  EXPECT_EQ(*d.grid, "1");
  EXPECT_EQ(*d.horizon, 1024);
}

TEST(DeclaredDomain, IntegersAndNullGridAreRead) {
  const DeclaredDomain d = declaredDomain(
      nlohmann::json::parse(R"({"domain": {"box": [-1, 1], "grid": null, "horizon": 5}})"));
  ASSERT_TRUE(d.complete());
  EXPECT_EQ(*d.lo, "-1");
  EXPECT_EQ(*d.hi, "1");
  EXPECT_FALSE(d.grid);
}

TEST(DeclaredDomain, WhatIsMissingOrMistypedIsUndeclared) {
  EXPECT_FALSE(declaredDomain(nlohmann::json()).complete());
  EXPECT_FALSE(declaredDomain(nlohmann::json::parse(R"({"domain": [1, 2]})")).complete());
  const DeclaredDomain noHorizon =
      declaredDomain(nlohmann::json::parse(R"({"domain": {"box": ["0", "1"], "horizon": 0}})"));
  EXPECT_TRUE(noHorizon.lo && noHorizon.hi);
  EXPECT_FALSE(noHorizon.horizon) << "a horizon below 1 is not a horizon";
  EXPECT_FALSE(noHorizon.complete());
  const DeclaredDomain badBox =
      declaredDomain(nlohmann::json::parse(R"({"domain": {"box": ["0", 1.5, 2], "horizon": 3}})"));
  EXPECT_FALSE(badBox.lo || badBox.hi);
  const DeclaredDomain huge = declaredDomain(
      nlohmann::json::parse(R"({"domain": {"box": [0, 18446744073709551615], "horizon": 3}})"));
  EXPECT_FALSE(huge.lo) << "an unsigned 2^64 - 1 is no long long: undeclared, not negated";
}

}  // namespace
}  // namespace lsrl
