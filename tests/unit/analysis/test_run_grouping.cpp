// Runs and processes: the databases of one run (one per GPU process) count as one run.
#include <gtest/gtest.h>

#include <rpl/analysis/run_grouping.hpp>

namespace rpl::analysis {
namespace {

// One source per entry: its path, its processes, and the span of its one dispatch.
struct FileSpec {
  std::string path;
  int processes;
  int64_t start_ns;
  int64_t end_ns;
};

trace::Trace trace_of(const std::vector<FileSpec>& files) {
  trace::Trace t;
  for (size_t i = 0; i < files.size(); ++i) {
    trace::Source s{files[i].path, {}, {}, {}, {}};
    for (int p = 0; p < files[i].processes; ++p) s.guids.push_back("g" + std::to_string(p));
    t.sources.push_back(s);
    trace::Dispatch d{};
    d.source = static_cast<int16_t>(i);
    d.start_ns = files[i].start_ns;
    d.end_ns = files[i].end_ns;
    t.dispatches.push_back(d);
  }
  return t;
}

TEST(RunGrouping, ProfileFilesOfOneRunAreOneRunWhateverTheirTimes) {
  auto g = group_runs(trace_of({{"out/run1_100_results.db", 1, 0, 10},
                                {"out/run1_101_results.db", 1, 500, 600},
                                {"out/run2_200_results.db", 1, 1000, 1010},
                                {"out/run2_201_results.db", 1, 1000, 1010}}));
  EXPECT_EQ(g.runs, 2);
  EXPECT_EQ(g.processes, 4);
  EXPECT_EQ(g.run_of_source, (std::vector<int>{0, 0, 1, 1}));
}

TEST(RunGrouping, SameRunNumberInAnotherFolderIsAnotherRun) {
  auto g = group_runs(trace_of({{"a/run1_1_results.db", 1, 0, 10}, {"b/run1_1_results.db", 1, 0, 10}}));
  EXPECT_EQ(g.runs, 2);
}

TEST(RunGrouping, OtherFilesGroupByOverlappingActivity) {
  // Two processes side by side, then a later run alone, then one with no dispatches.
  auto t = trace_of({{"node/300_results.db", 1, 5000, 6000},
                     {"node/100_results.db", 1, 0, 100},
                     {"node/101_results.db", 1, 50, 400}});
  t.sources.push_back({"node/empty.db", {"g"}, {}, {}, {}});
  auto g = group_runs(t);
  EXPECT_EQ(g.runs, 3);
  EXPECT_EQ(g.processes, 4);
  EXPECT_EQ(g.run_of_source[1], g.run_of_source[2]);
  EXPECT_NE(g.run_of_source[0], g.run_of_source[1]);
  EXPECT_NE(g.run_of_source[3], g.run_of_source[0]);
  EXPECT_NE(g.run_of_source[3], g.run_of_source[1]);
}

TEST(RunGrouping, SeveralProcessesInOneFileAreOneRun) {
  auto g = group_runs(trace_of({{"merged.db", 2, 0, 10}}));
  EXPECT_EQ(g.runs, 1);
  EXPECT_EQ(g.processes, 2);
}

}  // namespace
}  // namespace rpl::analysis
