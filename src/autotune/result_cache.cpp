#include <rpl/autotune/result_cache.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>

#include "digest.hpp"

namespace rpl::autotune {
namespace {

constexpr const char* kFormat = "rocm-perf autotune cache 1";

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS cache_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS measurements (
  scope TEXT NOT NULL, configuration TEXT NOT NULL,
  device TEXT NOT NULL, program TEXT NOT NULL, templates TEXT NOT NULL, objective TEXT NOT NULL,
  failure TEXT NOT NULL, detail TEXT NOT NULL, value REAL NOT NULL, cv REAL NOT NULL,
  samples INTEGER NOT NULL, runs INTEGER NOT NULL, seconds REAL NOT NULL, stable INTEGER NOT NULL,
  PRIMARY KEY (scope, configuration));
CREATE TABLE IF NOT EXISTS runs (
  run_key TEXT PRIMARY KEY, device TEXT NOT NULL, program TEXT NOT NULL, state TEXT NOT NULL);
)sql";

}  // namespace

std::string CacheScope::key() const { return sha256_hex(device + '\n' + program + '\n' + templates + '\n' + objective); }

struct ResultCache::Impl {
  SQLite::Database db;
  explicit Impl(const std::filesystem::path& file)
      : db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 10000) {}
};

ResultCache::ResultCache(const std::filesystem::path& file) : file_(file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec)) {
    fail(Errc::bad_input, "{}: the cache is not a regular file", file.string());
  }
  try {
    impl_ = std::make_unique<Impl>(file);
    SQLite::Transaction transaction(impl_->db);
    const bool fresh = !impl_->db.tableExists("cache_info");
    if (fresh && impl_->db.execAndGet("SELECT count(*) FROM sqlite_master").getInt() > 0) {
      fail(Errc::bad_input, "{}: an SQLite database that is not a rocm-perf autotune cache; give another --cache", file.string());
    }
    impl_->db.exec(kSchema);
    if (fresh) {
      SQLite::Statement insert(impl_->db, "INSERT INTO cache_info VALUES ('format', ?)");
      insert.bind(1, kFormat);
      insert.exec();
    } else {
      SQLite::Statement format(impl_->db, "SELECT value FROM cache_info WHERE key = 'format'");
      if (!format.executeStep() || format.getColumn(0).getString() != kFormat) {
        fail(Errc::bad_input, "{}: an autotune cache of another format; give another --cache", file.string());
      }
    }
    transaction.commit();
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: not a usable autotune cache: {}", file.string(), e.what());
  }
}

ResultCache::~ResultCache() = default;

std::optional<Measurement> ResultCache::find(const CacheScope& scope, const std::string& configuration_json) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db,
                      "SELECT failure, detail, value, cv, samples, runs, seconds, stable FROM measurements "
                      "WHERE scope = ? AND configuration = ?");
  q.bind(1, scope.key());
  q.bind(2, configuration_json);
  if (!q.executeStep()) return std::nullopt;
  Measurement m;
  const auto failure = failure_from_name(q.getColumn(0).getString());
  if (!failure) return std::nullopt;  // written by a newer version: measure again
  m.failure = *failure;
  m.detail = q.getColumn(1).getString();
  m.value = q.getColumn(2).getDouble();
  m.cv = q.getColumn(3).getDouble();
  m.samples = q.getColumn(4).getInt();
  m.runs = q.getColumn(5).getInt();
  m.seconds = q.getColumn(6).getDouble();
  m.stable = q.getColumn(7).getInt() != 0;
  return m;
}

void ResultCache::store(const CacheScope& scope, const std::string& configuration_json, const Measurement& m) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "INSERT OR REPLACE INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int i = 1;
  q.bind(i++, scope.key());
  q.bind(i++, configuration_json);
  q.bind(i++, scope.device);
  q.bind(i++, scope.program);
  q.bind(i++, scope.templates);
  q.bind(i++, scope.objective);
  q.bind(i++, std::string(failure_name(m.failure)));
  q.bind(i++, m.detail);
  q.bind(i++, m.value);
  q.bind(i++, m.cv);
  q.bind(i++, m.samples);
  q.bind(i++, m.runs);
  q.bind(i++, m.seconds);
  q.bind(i++, m.stable ? 1 : 0);
  q.exec();
}

// Kept beside the format in cache_info, so that caches written before it stay readable.
std::optional<std::string> ResultCache::kernel_function(const CacheScope& scope) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "SELECT value FROM cache_info WHERE key = ?");
  q.bind(1, "kernel " + scope.key());
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getString();
}

void ResultCache::set_kernel_function(const CacheScope& scope, const std::string& function) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "INSERT OR REPLACE INTO cache_info VALUES (?, ?)");
  q.bind(1, "kernel " + scope.key());
  q.bind(2, function);
  q.exec();
}

size_t ResultCache::count_other_scopes(const CacheScope& scope) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "SELECT count(*) FROM measurements WHERE templates = ? AND objective = ? AND scope != ?");
  q.bind(1, scope.templates);
  q.bind(2, scope.objective);
  q.bind(3, scope.key());
  q.executeStep();
  return static_cast<size_t>(q.getColumn(0).getInt64());
}

std::optional<CachedRun> ResultCache::find_run(const std::string& run_key) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "SELECT device, program, state FROM runs WHERE run_key = ?");
  q.bind(1, run_key);
  if (!q.executeStep()) return std::nullopt;
  return CachedRun{q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString()};
}

void ResultCache::record_run(const std::string& run_key, const CacheScope& scope, const std::string& state) {
  std::lock_guard<std::mutex> guard(mutex_);
  SQLite::Statement q(impl_->db, "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)");
  q.bind(1, run_key);
  q.bind(2, scope.device);
  q.bind(3, scope.program);
  q.bind(4, state);
  q.exec();
}

}  // namespace rpl::autotune
