#include <rpl/core/stop_signals.hpp>

#include <csignal>

namespace rpl {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_guards{0};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_stop_signal(int) { g_stop = true; }

}  // namespace

StopSignals::StopSignals() {
  if (g_guards++ > 0) return;  // nested: the outer one holds the handlers
  g_stop = false;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_old_int);
  ::sigaction(SIGTERM, &action, &g_old_term);
}

StopSignals::~StopSignals() {
  if (--g_guards > 0) return;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>* active_stop_flag() { return g_guards > 0 ? &g_stop : nullptr; }

}  // namespace rpl
