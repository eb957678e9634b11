#include "quell/adapters/inputs/observation_body.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace quell::inputs {
namespace {

constexpr const char* kA =
    R"({"at":"2026-12-02T09:00:00Z","key":"a","unhealthy":true,"condition":"push"})";
constexpr const char* kB =
    R"({"at":"2026-12-02T09:00:00Z","unhealthy":false,"condition":"push","labels":{"x":"1"}})";

ObservationBodyOptions KeyOptional() {
  ObservationBodyOptions options;
  options.parser.require_key = false;
  return options;
}

TEST(ObservationBodyTest, ReadsOneObjectAnArrayOrJsonLines) {
  auto one = ParseObservationBody(std::string("  {\n \"at\":\"2026-12-02T09:00:00Z\",\n"
                                              " \"key\":\"a\", \"unhealthy\":null}\n"),
                                  {});
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].health, core::Health::kUnknown);

  auto array = ParseObservationBody(std::string("[") + kA + "," + kB + "]", KeyOptional());
  ASSERT_TRUE(array.ok()) << array.error().message;
  ASSERT_EQ(array->size(), 2u);
  EXPECT_EQ((*array)[0].key, "a");
  EXPECT_EQ((*array)[1].key, "");  // for the condition's key template to render
  EXPECT_EQ((*array)[1].labels, (core::Labels{{"x", "1"}}));

  auto lines = ParseObservationBody(std::string(kA) + "\n\n" + kB + "\r\n", KeyOptional());
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[1].health, core::Health::kHealthy);
}

TEST(ObservationBodyTest, ErrorsNameTheRecord) {
  auto missing_key = ParseObservationBody(std::string("[") + kA + "," + kB + "]", {});
  ASSERT_FALSE(missing_key.ok());
  EXPECT_EQ(missing_key.error().message, "observations[1]: missing field \"key\"");
  auto bad_line = ParseObservationBody(std::string(kA) + "\n{\"at\":1}\n", KeyOptional());
  ASSERT_FALSE(bad_line.ok());
  EXPECT_TRUE(bad_line.error().message.starts_with("observations[1] (line 2): field \"at\""))
      << bad_line.error().message;
  auto not_objects = ParseObservationBody("[1]", {});
  ASSERT_FALSE(not_objects.ok());
  EXPECT_TRUE(not_objects.error().message.starts_with("observations[0]: "));
  auto empty = ParseObservationBody(" \n", {});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "observations: the body is empty");
  ObservationBodyOptions one;
  one.max_observations = 1;
  auto too_many = ParseObservationBody(std::string(kA) + "\n" + kA, one);
  ASSERT_FALSE(too_many.ok());
  EXPECT_TRUE(too_many.error().message.starts_with("observations: more than 1"));
}

TEST(ObservationBodyTest, MalformedInputNeverCrashes) {
  const std::string good = std::string("[") + kA + "," + kB + "]\n" + kA + "\n" + kB;
  for (size_t n = 0; n < good.size(); n += 3) (void)ParseObservationBody(good.substr(0, n), {});
  std::mt19937 random(20);
  for (int i = 0; i < 2000; ++i) {
    std::string mutated = good;
    for (int k = 0; k < 3; ++k) {
      mutated[random() % mutated.size()] = static_cast<char>(random() % 256);
    }
    (void)ParseObservationBody(mutated, KeyOptional());
  }
  (void)ParseObservationBody(std::string(100000, '['), {});
  (void)ParseObservationBody(std::string(100000, '{'), {});
  (void)ParseObservationBody(std::string(5000, '\n'), {});
  SUCCEED();
}

}  // namespace
}  // namespace quell::inputs
