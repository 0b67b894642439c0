#pragma once
// The tuner's progress on stderr: a bar redrawn in place on a terminal (phase, done / planned,
// best so far, ETA), plain lines otherwise; nothing with --quiet.
#include <string>

#include <rpl/autotune/tuner.hpp>

namespace rpl::cli {

class TuneProgressView {
 public:
  TuneProgressView(bool enabled, std::string unit);
  ~TuneProgressView();
  void update(const autotune::TuneProgress& p);
  /// Ends the bar's line (before other output).
  void finish();

 private:
  bool enabled_;
  bool terminal_;
  bool drawn_ = false;
  std::string unit_;
};

}  // namespace rpl::cli
