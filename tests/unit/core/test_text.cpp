#include <gtest/gtest.h>

#include <rpl/core/text.hpp>

using rpl::last_line;
using rpl::trimmed;

TEST(Text, TrimmedDropsWhitespaceAtBothEndsOnly) {
  EXPECT_EQ(trimmed(" \t RUNNING\r\n"), "RUNNING");
  EXPECT_EQ(trimmed("a  b"), "a  b");
  EXPECT_EQ(trimmed(" \n\t "), "");
  EXPECT_EQ(trimmed(""), "");
}

TEST(Text, LastLineIsTheLastThatIsNotBlank) {
  EXPECT_EQ(last_line("compiling\nerror: out of memory\n\n  \r\n"), "error: out of memory");
  EXPECT_EQ(last_line("  one line, no newline  "), "one line, no newline");
  EXPECT_EQ(last_line("first\r\nsecond\r\n"), "second");
  EXPECT_EQ(last_line("\n\n"), "");
  EXPECT_EQ(last_line(""), "");
}

TEST(Text, ALongLastLineIsCutToEndInDots) {
  const std::string words(300, 'x');
  const std::string line = last_line("before\n" + words + "\n");
  EXPECT_EQ(line.size(), 200u);
  EXPECT_EQ(line, std::string(197, 'x') + "...");
  EXPECT_EQ(last_line("abcdef", 5), "ab...");
  EXPECT_EQ(last_line("abcde", 5), "abcde");
}

TEST(Text, CountedTakesTheNounInItsNumber) {
  EXPECT_EQ(rpl::counted(1, "process", "processes"), "1 process");
  EXPECT_EQ(rpl::counted(0, "process", "processes"), "0 processes");
  EXPECT_EQ(rpl::counted(2, "dependency flow"), "2 dependency flows") << "the noun and s";
  EXPECT_EQ(rpl::counted(1, "run"), "1 run");
}
