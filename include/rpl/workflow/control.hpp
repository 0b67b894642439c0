#pragma once
// What a caller hands a workflow besides its request: an observer of typed events (the CLI's
// progress line, a test's recorder, a Python callback) and a cancellation token (Ctrl-C sets the
// CLI's). Workflows tell what happens through it and never print.
#include <atomic>
#include <string>

namespace rpl::workflow {

enum class EventKind {
  stage_started,
  stage_finished,
  candidate_verdict,       // optimize: a candidate kept or rejected, and why
  configuration_measured,  // autotune: one configuration's measurement
  warning,                 // also in the result's warnings
};

struct Event {
  EventKind kind = EventKind::warning;
  std::string stage;    // the workflow's step: "read before", "compare", ...
  std::string message;  // a warning's text, a verdict's reason; empty otherwise
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_event(const Event& event) = 0;
};

class Control {
 public:
  Control() = default;
  explicit Control(Observer* observer, const std::atomic<bool>* cancel = nullptr) : observer_(observer), cancel_(cancel) {}

  void emit(const Event& event) const {
    if (observer_) observer_->on_event(event);
  }
  void stage_started(const std::string& stage) const { emit({EventKind::stage_started, stage, ""}); }
  void stage_finished(const std::string& stage) const { emit({EventKind::stage_finished, stage, ""}); }
  void warning(const std::string& stage, const std::string& message) const { emit({EventKind::warning, stage, message}); }
  /// Whether the caller asked the workflow to stop; long workflows check between steps.
  bool cancelled() const { return cancel_ && cancel_->load(); }
  const std::atomic<bool>* cancel_token() const { return cancel_; }

 private:
  Observer* observer_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace rpl::workflow
