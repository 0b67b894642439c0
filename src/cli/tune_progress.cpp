#include "tune_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace rpl::cli {

TuneProgressView::TuneProgressView(bool enabled, std::string unit)
    : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) != 0), unit_(std::move(unit)) {}

TuneProgressView::~TuneProgressView() { finish(); }

void TuneProgressView::update(const autotune::TuneProgress& p) {
  if (!enabled_) return;
  const std::string best =
      p.best_value ? fmt::format("best {:.4g}{}{}", *p.best_value, unit_.empty() ? "" : " ", unit_) : "best -";
  std::string eta = "-";
  if (p.done > 0 && p.planned > p.done) {
    const double seconds = p.elapsed_seconds / static_cast<double>(p.done) * static_cast<double>(p.planned - p.done);
    eta = seconds >= 60 ? fmt::format("{:.0f} min", seconds / 60) : fmt::format("{:.0f} s", seconds);
  } else if (p.planned <= p.done) {
    eta = "0 s";
  }
  const std::string busy = p.workers > 1 ? fmt::format("  {}/{} workers busy", p.busy, p.workers) : "";
  if (terminal_) {
    constexpr int width = 24;
    const int filled = p.planned ? static_cast<int>(width * std::min<size_t>(p.done, p.planned) / p.planned) : 0;
    const std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.');
    std::fprintf(stderr, "\r\033[Kautotune %-9s [%s] %zu/%zu  %s  ETA %s%s", p.phase.c_str(), bar.c_str(), p.done, p.planned,
                 best.c_str(), eta.c_str(), busy.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "autotune: %s %zu/%zu, %s, ETA %s%s\n", p.phase.c_str(), p.done, p.planned, best.c_str(), eta.c_str(),
                 busy.empty() ? "" : std::string(",").append(busy, 1).c_str());
  }
  std::fflush(stderr);
}

void TuneProgressView::finish() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

}  // namespace rpl::cli
