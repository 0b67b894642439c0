#include <rpl/autotune/recording.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

namespace rpl::autotune {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// RFC 4180 records: quoted fields may hold commas, quotes ("") and newlines.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) row.push_back(std::move(field));
      if (!row.empty()) rows.push_back(std::move(row));
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) row.push_back(std::move(field));
  if (!row.empty()) rows.push_back(std::move(row));
  return rows;
}

}  // namespace

std::string measurements_csv(const SearchSpace& space, const TuneResult& result) {
  std::string out = "order,phase,cached";
  for (const auto& p : space.parameters) out.append(",").append(csv_field(p.name));
  out += ",failure,value,cv,samples,runs,seconds,build_seconds,detail\n";
  size_t order = 0;
  for (const auto& m : result.measured) {
    out += fmt::format("{},{},{}", ++order, m.phase, m.cached ? 1 : 0);
    for (size_t p = 0; p < space.parameters.size(); ++p) out.append(",").append(csv_field(space.value(m.configuration, p).text));
    const auto& x = m.measurement;
    out += fmt::format(",{},{},{},{},{},{:.3f},{:.3f},{}\n", failure_name(x.failure), x.value, x.cv, x.samples, x.runs,
                       x.seconds, x.build_seconds, csv_field(x.detail));
  }
  return out;
}

std::map<size_t, Measurement> read_measurements_csv(const std::filesystem::path& file, const SearchSpace& space,
                                                    size_t& unknown) {
  const auto rows = parse_csv(read_file(file));
  if (rows.empty()) fail(Errc::bad_input, "{}: empty; a measurements CSV has a header and a row per measurement", file.string());
  const auto& header = rows.front();
  auto column = [&](const std::string& name) -> size_t {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    fail(Errc::bad_input, "{}: no column '{}' (not a measurements CSV of rocm-perf autotune --csv)", file.string(), name);
  };
  std::vector<size_t> params;
  for (const auto& p : space.parameters) params.push_back(column(p.name));
  const size_t failure = column("failure"), value = column("value"), cv = column("cv"), samples = column("samples");
  // What a replayed time budget spends, and the part of it a re-measurement does not (none in older files).
  const auto seconds = std::find(header.begin(), header.end(), "seconds");
  const auto build_seconds = std::find(header.begin(), header.end(), "build_seconds");
  std::map<size_t, Measurement> out;
  unknown = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    if (row.size() != header.size()) {
      fail(Errc::bad_input, "{}: row {} has {} fields, the header {}", file.string(), r + 1, row.size(), header.size());
    }
    nlohmann::json values = nlohmann::json::object();
    for (size_t p = 0; p < params.size(); ++p) {
      const std::string& text = row[params[p]];
      const auto& declared = space.parameters[p].values;
      auto it = std::find_if(declared.begin(), declared.end(), [&](const Value& v) { return v.text == text; });
      if (it == declared.end()) break;
      values[space.parameters[p].name] = it->number ? nlohmann::json(*it->number) : nlohmann::json(it->text);
    }
    const auto c = values.size() == params.size() ? space.find(values) : std::nullopt;
    if (!c) {
      ++unknown;
      continue;
    }
    Measurement m;
    const auto kind = failure_from_name(row[failure]);
    if (!kind) fail(Errc::bad_input, "{}: row {}: unknown failure '{}'", file.string(), r + 1, row[failure]);
    m.failure = *kind;
    try {
      m.value = std::stod(row[value]);
      m.cv = std::stod(row[cv]);
      m.samples = std::stoi(row[samples]);
      if (seconds != header.end()) m.seconds = std::stod(row[static_cast<size_t>(seconds - header.begin())]);
      if (build_seconds != header.end()) m.build_seconds = std::stod(row[static_cast<size_t>(build_seconds - header.begin())]);
    } catch (const std::exception&) {
      fail(Errc::bad_input, "{}: row {}: value, cv, samples, seconds or build_seconds is not a number", file.string(), r + 1);
    }
    if (!(m.seconds >= 0) || !std::isfinite(m.seconds)) {
      fail(Errc::bad_input, "{}: row {}: seconds {} is not a time taken", file.string(), r + 1, m.seconds);
    }
    if (!(m.build_seconds >= 0) || !(m.build_seconds <= m.seconds)) {
      fail(Errc::bad_input, "{}: row {}: build_seconds {} is not a part of its seconds {}", file.string(), r + 1, m.build_seconds,
           m.seconds);
    }
    m.runs = 1;
    m.stable = m.ok();
    if (m.ok() && m.value <= 0) fail(Errc::bad_input, "{}: row {}: value {} is not positive", file.string(), r + 1, m.value);
    out[*c] = m;
  }
  return out;
}

namespace {

// What was recorded for a configuration, or a no_metric failure where nothing was.
Measurement recorded_measurement(const std::map<size_t, Measurement>& recorded, size_t configuration) {
  auto it = recorded.find(configuration);
  if (it != recorded.end()) return it->second;
  Measurement m;
  m.failure = Failure::no_metric;
  m.detail = "not in the recorded measurements";
  m.runs = 1;
  return m;
}

}  // namespace

Measurement RecordedEvaluator::measure(size_t configuration, int, const std::atomic<bool>*) {
  return recorded_measurement(recorded_, configuration);
}

std::vector<double> noisy_samples(const Measurement& recorded, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> out;
  for (int i = 0; i < std::max(1, recorded.samples); ++i) {
    const double z = std::clamp(normal(rng), -3.0, 3.0);
    out.push_back(recorded.value * std::max(1e-3, 1 + recorded.cv * z));
  }
  return out;
}

Measurement NoisyRecordedEvaluator::measure(size_t configuration, int, const std::atomic<bool>*) {
  Measurement m = recorded_measurement(recorded_, configuration);
  if (!m.ok()) return m;
  uint64_t call = 0;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    call = calls_[configuration]++;
  }
  // A seed per (run, configuration, call): splitmix64's constants spread the three apart.
  const uint64_t seed = seed_ * 0x9e3779b97f4a7c15ULL ^ (configuration + 1) * 0xbf58476d1ce4e5b9ULL ^ (call + 1) * 0x94d049bb133111ebULL;
  const bool stable = m.stable;  // as the real measurement was: the draw only moves its figure
  summarize_samples(noisy_samples(m, seed), 0, m);
  m.stable = stable;
  return m;
}

}  // namespace rpl::autotune
