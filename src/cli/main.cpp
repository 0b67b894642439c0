#include <csignal>

#include "app.hpp"

int main(int argc, char** argv) {
  // A closed reader of our output (`rocm-perf ... | head`) must not kill us mid-run with the
  // profiled program still going; writes then fail quietly. Children get the default back.
  std::signal(SIGPIPE, SIG_IGN);
  return rpl::cli::run(std::vector<std::string>(argv, argv + argc));
}
