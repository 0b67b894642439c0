#pragma once
// The tuner's SQLite cache: every measurement keyed by its scope (device, program digest,
// templates, objective) and the configuration's values, written as soon as it is made, so that an
// interrupted run resumes where it stopped. It also records each tuning run, to resume it.
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <rpl/autotune/measurement.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune {

/// What makes measurements comparable.
struct CacheScope {
  std::string device;     // e.g. "NVIDIA H100 80GB HBM3"
  std::string program;    // digest of the program and the files the templates name
  std::string templates;  // the command (and build) templates as given
  std::string objective;  // kernel_time[:regex], process_time, metric:REGEX
  std::string key() const;
};

/// A tuning run as the cache remembers it.
struct CachedRun {
  std::string device;
  std::string program;
  std::string state;  // running, finished
};

class ResultCache {
 public:
  /// Opens or creates the cache. Error(bad_input) naming the file when it is not a cache.
  explicit ResultCache(const std::filesystem::path& file);
  ~ResultCache();
  const std::filesystem::path& file() const { return file_; }

  std::optional<Measurement> find(const CacheScope& scope, const std::string& configuration_json);
  void store(const CacheScope& scope, const std::string& configuration_json, const Measurement& m);
  /// Measurements of the same templates and objective made in another scope (device or program).
  size_t count_other_scopes(const CacheScope& scope);

  /// The function name of the kernel measured in this scope, once a run fixed it (kernel_time
  /// without --kernel), so that every run of the scope measures the same kernel.
  std::optional<std::string> kernel_function(const CacheScope& scope);
  void set_kernel_function(const CacheScope& scope, const std::string& function);

  /// The run of these templates, space and options, if the cache holds one (its run_key).
  std::optional<CachedRun> find_run(const std::string& run_key);
  void record_run(const std::string& run_key, const CacheScope& scope, const std::string& state);

 private:
  std::filesystem::path file_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::mutex mutex_;
};

/// The tuner's store over the cache: one scope, configurations keyed by their values.
class CachedMeasurements : public MeasurementStore {
 public:
  CachedMeasurements(ResultCache& cache, CacheScope scope, const SearchSpace& space)
      : cache_(cache), scope_(std::move(scope)), space_(space) {}
  std::optional<Measurement> find(size_t c) override { return cache_.find(scope_, space_.to_json(c).dump()); }
  void store(size_t c, const Measurement& m) override { cache_.store(scope_, space_.to_json(c).dump(), m); }

 private:
  ResultCache& cache_;
  CacheScope scope_;
  const SearchSpace& space_;
};

}  // namespace rpl::autotune
