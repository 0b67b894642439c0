#include <gtest/gtest.h>

#include <rpl/autotune/command_template.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/core/error.hpp>

#include "test_support.hpp"

namespace rpl::autotune {
namespace {

SearchSpace parse(const std::string& text) { return parse_search_space(text, "space.json"); }

void expect_bad(const std::string& text, const std::string& message) {
  try {
    parse(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("space.json: ", 0), 0u) << e.what();
  }
}

TEST(SearchSpace, ListsRangesAndFactors) {
  auto s = parse(R"({"parameters": {"A": [3, 1, 2], "B": {"min": 8, "max": 32, "step": 8}, "C": {"min": 2, "max": 16, "factor": 2},
                     "F": {"min": 0.1, "max": 0.3, "step": 0.1}, "M": ["fast", "safe"]}})");
  ASSERT_EQ(s.parameters.size(), 5u);
  EXPECT_EQ(s.parameters[1].values.size(), 4u);
  EXPECT_EQ(s.parameters[2].values.back().text, "16");
  EXPECT_EQ(s.parameters[3].values.size(), 3u);  // counted steps: no drift past 0.3
  EXPECT_EQ(s.parameters[3].values[2].text, "0.30000000000000004");
  EXPECT_FALSE(s.parameters[4].numeric());
  EXPECT_EQ(s.size(), 3u * 4 * 4 * 3 * 2);
  EXPECT_EQ(s.value(0, 0).text, "3");  // file order kept; the last parameter varies fastest
  EXPECT_EQ(s.value(1, 4).text, "safe");
  EXPECT_EQ(s.to_json(1).dump(), R"({"A":3,"B":8,"C":2,"F":0.1,"M":"safe"})");
  EXPECT_EQ(s.find(nlohmann::json::parse(R"({"A":3,"B":8,"C":2,"F":0.1,"M":"safe"})")), std::optional<size_t>(1));
}

// The landscapes' larger spaces hold what their testbeds build: matmul_tunable_large's 648 (its
// shared-memory bound the same as the testbed's 48 KiB), the stencil's 410 launch geometries.
TEST(SearchSpace, TheLargerLandscapeSpaces) {
  auto matmul = load_search_space(test::source_dir() / "examples/matmul/matmul_large_space.json");
  EXPECT_EQ(matmul.combinations, 900u);
  EXPECT_EQ(matmul.size(), 648u);
  for (size_t c = 0; c < matmul.size(); ++c) EXPECT_LE(matmul.derived_value(c, 1), 48 * 1024);
  auto stencil = load_search_space(test::source_dir() / "examples/stencil/stencil_large_space.json");
  EXPECT_EQ(stencil.combinations, 770u);
  EXPECT_EQ(stencil.size(), 410u);
}

TEST(SearchSpace, MatmulConstraintsAndDerivedFeatures) {
  auto s = load_search_space(test::source_dir() / "examples/matmul/matmul_space.json");
  EXPECT_EQ(s.combinations, 243u);
  EXPECT_EQ(s.rejected, 18u);
  EXPECT_EQ(s.size(), 225u);  // matmul_tunable's own list
  for (size_t c = 0; c < s.size(); ++c) {
    const double threads = s.derived_value(c, 0);
    EXPECT_GE(threads, 32);
    EXPECT_LE(threads, 1024);
    EXPECT_EQ(s.text(c, "THREADS"), std::to_string(static_cast<int>(threads)));
  }
}

TEST(SearchSpace, ModuloAndLogicalOperators) {
  auto s = parse(R"({"parameters": {"T": {"min": 1, "max": 128}}, "constraints": ["T % 32 == 0 && T != 64"]})");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.value(0, 0).text, "32");
  EXPECT_EQ(s.value(2, 0).text, "128");
}

TEST(SearchSpace, PlainListOfConfigurations) {
  auto s = parse(R"([{"BM": 64, "MODE": "a"}, {"BM": 32, "MODE": "a"}, {"BM": 64, "MODE": "b"}])");
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.combinations, 3u);
  EXPECT_EQ(s.to_json(1).dump(), R"({"BM":32,"MODE":"a"})");
  auto constrained = parse(R"({"configurations": [{"X": 1}, {"X": 2}, {"X": 3}], "constraints": ["X > 1"]})");
  EXPECT_EQ(constrained.size(), 2u);
}

TEST(SearchSpace, DigestFollowsContent) {
  const std::string a = R"({"parameters": {"A": [1, 2]}})";
  EXPECT_EQ(parse(a).digest(), parse(a).digest());
  EXPECT_NE(parse(a).digest(), parse(R"({"parameters": {"A": [1, 3]}})").digest());
  EXPECT_NE(parse(a).digest(), parse(R"({"parameters": {"A": [1, 2]}, "constraints": ["A > 1"]})").digest());
}

TEST(SearchSpaceBadInput, EachSaysWhat) {
  expect_bad("{", "not JSON");
  expect_bad(R"({"parameters": {"T": {"min": 1, "max": 56e1111111}}})", "not JSON");  // found by the fuzzer: past double
  expect_bad("42", "a search space is a JSON object");
  expect_bad(R"({"parameters": {}})", "non-empty object");
  expect_bad(R"({"parameters": {"A": []}})", "parameter A: no values");
  expect_bad(R"({"parameters": {"A": [1, 1]}})", "listed twice");
  expect_bad(R"({"parameters": {"A": [true]}})", "neither a number nor a string");
  expect_bad(R"({"parameters": {"A": {"min": 4, "max": 1}}})", "above max");
  expect_bad(R"({"parameters": {"A": {"min": 1, "max": 4, "step": 0}}})", "not positive");
  expect_bad(R"({"parameters": {"A": {"min": 1, "max": 4, "factor": 1}}})", "factor > 1");
  expect_bad(R"({"parameters": {"A": {"min": 1}}})", "needs min and max");
  expect_bad(R"({"parameters": {"a-b": [1]}})", "not a name");
  expect_bad(R"({"parameters": {"A": [1]}, "constraints": ["A <"]})", "constraint 'A <'");
  expect_bad(R"({"parameters": {"A": [1]}, "constraints": ["B > 1"]})", "constraint 'B > 1'");
  expect_bad(R"({"parameters": {"A": [1]}, "constraints": ["A = 1"]})", "'=' assigns");
  expect_bad(R"({"parameters": {"A": [1, 2]}, "constraints": ["A > 5"]})", "the constraints reject all 2 configurations");
  expect_bad(R"({"parameters": {"A": [1]}, "derived": {"A": "2"}})", "the name A is used twice");
  expect_bad(R"({"parameters": {"A": [1]}, "derived": {"D": "A +"}})", "derived feature D");
  // A derived value no argument can carry: said with the configuration, unless a constraint leaves it out.
  expect_bad(R"({"parameters": {"BM": [64], "TM": [0, 4]}, "derived": {"T": "BM / TM"}})",
             "derived feature T is inf at BM=64 TM=0, a configuration the constraints keep");
  expect_bad(R"j({"parameters": {"A": [-1, 1]}, "derived": {"R": "sqrt(A)"}})j", "derived feature R is not a number at A=-1");
  EXPECT_EQ(parse_search_space(R"({"parameters": {"BM": [64], "TM": [0, 4]}, "derived": {"T": "BM / TM"}, "constraints": ["TM > 0"]})",
                               "space.json")
                .size(),
            1u);
  expect_bad(R"({"parameters": {"A": [1]}, "typo": 1})", "unknown key 'typo'");
  expect_bad(R"({"parameters": {"A": [1]}, "configurations": []})", "either");
  expect_bad(R"([])", "list of configurations is empty");
  expect_bad(R"([{"A": 1}, {"A": 1}])", "configurations 1 and 2 are the same");
  expect_bad(R"([{"A": 1}, {"B": 1}])", "lacks parameter A");
  expect_bad(R"({"parameters": {"A": {"min": 1, "max": 10000}, "B": {"min": 1, "max": 10000}}})", "more than 10000000 combinations");
  // A count past any integer type (found by the fuzzer: the conversion was undefined).
  expect_bad(R"({"parameters": {"T": {"min": 0, "max": 1e38}}})", "more than 100000 values");
  // Very long names and constraints (found by the fuzzer: a regular expression overflowed the stack).
  const std::string long_name(200'000, 'x');
  expect_bad(R"({"parameters": {")" + long_name + R"(-": [1]}})", "not a name");
  expect_bad(R"({"parameters": {"A": [1]}, "constraints": [")" + long_name + R"( = 1"]})", "'=' assigns");
  expect_bad(R"({"parameters": {")" + long_name + R"(": [1, 2]}, "constraints": [")" + long_name + R"( >= 2"]})",
             "Identifier too long");  // muParser's limit
}

TEST(CommandTemplate, SplitsLikeAShellAndSubstitutesInsideWords) {
  CommandTemplate t(R"(./app --tile={BM}x{BN} 'a b' "c {BM}" {{literal}} x{ \{BM\})", "--cmd-template");
  EXPECT_EQ(t.placeholders(), (std::vector<std::string>{"BM", "BN"}));
  auto argv = t.instantiate([](const std::string& n) { return n == "BM" ? "64" : "32"; });
  EXPECT_EQ(argv, (std::vector<std::string>{"./app", "--tile=64x32", "a b", "c 64", "{literal}", "x{", "64"}));
  EXPECT_EQ(t.literal_words(), (std::vector<std::string>{"./app", "a b", "{literal}", "x{"}));
}

TEST(CommandTemplate, AValueNeverBecomesSeveralArgumentsOrACommand) {
  CommandTemplate t("./app --mode {M}", "--cmd-template");
  auto argv = t.instantiate([](const std::string&) { return std::string("x; rm -rf / $(reboot) 'q'"); });
  ASSERT_EQ(argv.size(), 3u);
  EXPECT_EQ(argv[2], "x; rm -rf / $(reboot) 'q'");
}

TEST(CommandTemplate, BadTemplates) {
  EXPECT_THROW(CommandTemplate("   ", "--cmd-template"), Error);
  try {
    CommandTemplate("./app 'unclosed", "--cmd-template");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--cmd-template './app 'unclosed'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rpl::autotune
