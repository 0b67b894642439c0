#include <rpl/trace/trace_reader.hpp>

#include <strings.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/amd_profiler_files.hpp>
#include <rpl/trace/kineto_reader.hpp>
#include <rpl/trace/ncu_reader.hpp>
#include <rpl/trace/nsys_reader.hpp>

#include "csv_rows.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
namespace {

// What a file's format is found from: its first bytes (a header line is short, and a JSON trace
// names its kind before its events); never the whole file, nor an endless one (/dev/zero).
constexpr size_t kHead = 1 << 20, kJsonHead = 64 << 10;

struct Head {
  std::string bytes;
  bool whole_file = false;
};

Head head_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  Head h{std::string(kHead, '\0'), false};
  in.read(h.bytes.data(), static_cast<std::streamsize>(h.bytes.size()));
  h.bytes.resize(static_cast<size_t>(in.gcount()));
  h.whole_file = h.bytes.size() < kHead;
  return h;
}

bool has_all(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    bool found = false;
    for (const auto& h : header) found = found || strcasecmp(h.c_str(), n) == 0;
    if (!found) return false;
  }
  return true;
}

// Whether head is a JSON object whose first 64 KiB name every key given.
bool json_object_with(std::string_view head, std::initializer_list<std::string_view> keys) {
  head = head.substr(0, kJsonHead);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  for (auto k : keys) {
    if (head.find(k) == std::string_view::npos) return false;
  }
  return true;
}

// A SQLite file by its tables, in one look at them: rocpd's; else Nsight Systems' (StringIds,
// CUPTI_ACTIVITY_KIND_*, TARGET_INFO_*); else legacy rocprof's KERN; else rocpd, whose reader says
// what the file lacks.
TraceFormat sqlite_format(const fs::path& file) {
  try {
    SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(db, "SELECT "
                             "EXISTS(SELECT 1 FROM sqlite_master WHERE name LIKE 'rocpd_%'), "
                             "EXISTS(SELECT 1 FROM sqlite_master WHERE name = 'StringIds' OR name LIKE 'CUPTI_ACTIVITY_KIND_%' OR name LIKE 'TARGET_INFO_%'), "
                             "EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'KERN')");
    if (!st.executeStep() || st.getColumn(0).getInt() != 0) return TraceFormat::rocpd;
    if (st.getColumn(1).getInt() != 0) return TraceFormat::nsys_sqlite;
    if (st.getColumn(2).getInt() != 0) return TraceFormat::rocprof_v1_database;
  } catch (const SQLite::Exception&) {
  }
  return TraceFormat::rocpd;
}

// Nsight Compute's CSV (ncu --csv, any page): its ==PROF== lines where the program's output was
// captured with it, or its header of the kernel's identity.
bool ncu_csv(std::string_view head) {
  return head.rfind("==PROF==", 0) == 0 || head.find("\n==PROF==") != std::string_view::npos ||
         head.find("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\"") != std::string_view::npos;
}

std::optional<TraceFormat> format_of(const Head& head, const fs::path& file) {
  if (head.bytes.size() >= 16 && std::memcmp(head.bytes.data(), "SQLite format 3", 16) == 0) return sqlite_format(file);
  if (json_object_with(head.bytes, {"\"rocprofiler-sdk-tool\""})) return TraceFormat::rocprofv3_json;
  if (json_object_with(head.bytes, {"\"schemaVersion\"", "\"traceEvents\""}) || json_object_with(head.bytes, {"\"deviceProperties\"", "\"traceEvents\""})) {
    return TraceFormat::kineto;
  }
  if (ncu_csv(head.bytes)) return TraceFormat::ncu_csv;
  // Nsight Compute's reports begin "NVR" and a NUL (seen in those ncu 2025.3.1 wrote).
  if (head.bytes.size() >= 4 && std::memcmp(head.bytes.data(), "NVR", 4) == 0) return TraceFormat::ncu_report;
  const auto header = detail::csv_header(head.bytes, head.whole_file);
  if (!header) return std::nullopt;
  if (has_all(*header, {"Kernel_Name", "Start_Timestamp", "End_Timestamp", "Agent_Id", "Grid_Size_X"})) return TraceFormat::rocprofv3_csv;
  if (has_all(*header, {"Dispatch_Id", "Kernel_Name", "Agent_Id", "Grid_Size", "Counter_Name", "Counter_Value"})) return TraceFormat::rocprofv3_csv;
  if (has_all(*header, {"Index", "KernelName", "gpu-id", "grd", "wgr"})) return TraceFormat::rocprof_v1;
  if (has_all(*header, {"Dispatch_ID", "Kernel_Name", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup"})) return TraceFormat::rocprof_compute;
  return std::nullopt;
}

// A short description of what a file of no known format seems to be, for the error. Binary
// formats only their own tools read are known by the names those tools give them.
std::string what_it_looks_like(const Head& head, const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".nsys-rep" || ext == ".qdrep") {
    return "an Nsight Systems report, which only nsys reads: export it to SQLite (nsys export --type sqlite --output R.sqlite " +
           file.filename().string() + ") and give the .sqlite";
  }
  if (ext == ".pftrace" || ext == ".otf2") {
    return "a Perfetto or OTF2 trace, which holds no kernel resources or counters: profile with rocprofv3 --output-format rocpd "
           "(or csv) and give that";
  }
  const auto first = head.bytes.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (head.bytes[first] == '{' || head.bytes[first] == '[')) {
    return "a JSON file of no trace format read here (rocprofv3's has \"rocprofiler-sdk-tool\"; a PyTorch profiler trace "
           "schemaVersion, deviceProperties and traceEvents)";
  }
  const auto header = detail::csv_header(head.bytes, head.whole_file);
  if (!header || header->size() < 2) {
    return "not a trace read here: a rocpd or Nsight Systems SQLite database, a rocprofv3 CSV or JSON trace, legacy rocprof's "
           "results.csv or results.db, rocprof-compute's pmc_perf.csv, a PyTorch profiler trace, or Nsight Compute's CSV or report";
  }
  // rocprof's results.stats.csv, hip_stats, copy_stats; rocprofv3's *_stats.csv.
  if (has_all(*header, {"Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"})) {
    return "per-kernel or per-call totals (Name, Calls, TotalDurationNs, AverageNs, Percentage), which time no dispatch; give the "
           "trace the profiler wrote beside it: legacy rocprof's results.csv (rocprof --stats --timestamp on) or rocprofv3's "
           "kernel_trace.csv";
  }
  std::string cols;
  for (size_t i = 0; i < header->size() && i < 8; ++i) cols += (i ? ", " : "") + (*header)[i];
  if (header->size() > 8) cols += ", ...";
  return "a CSV file whose columns (" + cols + ") are those of no trace read here; expected a rocprofv3 kernel_trace.csv "
         "(Kind, Agent_Id, ..., Kernel_Name, Start_Timestamp, End_Timestamp, ...) or legacy rocprof's results.csv "
         "(Index, KernelName, gpu-id, ..., BeginNs, EndNs, ...) or rocprof-compute's pmc_perf.csv (Dispatch_ID, ..., Kernel_Name, ...)";
}

}  // namespace

std::optional<TraceFormat> trace_format(const fs::path& file) { return format_of(head_of(file), file); }

Trace read_traces(const std::vector<fs::path>& files, const ReadOptions& options) {
  Trace trace;
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::exists(file, ec)) fail(Errc::bad_input, "{}: no such file", file.string());
    if (fs::is_directory(file, ec)) fail(Errc::bad_input, "{}: is a folder, not a trace file", file.string());
    if (!fs::is_regular_file(file, ec)) fail(Errc::bad_input, "{}: not a regular file, not a trace", file.string());
    if (fs::file_size(file, ec) == 0) fail(Errc::bad_input, "{}: empty file, not a trace", file.string());
    const auto head = head_of(file);
    const auto format = format_of(head, file);
    if (!format) fail(Errc::bad_input, "{}: {}", file.string(), what_it_looks_like(head, file));
    switch (*format) {
      case TraceFormat::rocpd: read_rocpd_into(trace, file, options); break;
      case TraceFormat::rocprofv3_csv: read_rocprofv3_csv_into(trace, file, options); break;
      case TraceFormat::rocprof_v1: read_rocprof_v1_into(trace, file); break;
      case TraceFormat::rocprof_v1_database: read_rocprof_v1_database_into(trace, file); break;
      case TraceFormat::kineto: read_kineto_into(trace, file, options); break;
      case TraceFormat::nsys_sqlite: read_nsys_into(trace, file, options); break;
      case TraceFormat::rocprofv3_json: read_rocprofv3_json_into(trace, file, options); break;
      case TraceFormat::rocprof_compute: read_rocprof_compute_into(trace, file); break;
      case TraceFormat::ncu_csv: read_ncu_csv_into(trace, file); break;
      case TraceFormat::ncu_report: {
        if (!options.ncu_report_pages) {
          fail(Errc::bad_input, "{}: an Nsight Compute report, read through ncu: export its raw page (ncu --import {} --csv --page raw "
                                "> report.csv) and give the CSV", file.string(), file.string());
        }
        const auto pages = options.ncu_report_pages(file);
        std::istringstream raw(pages.raw), details(pages.details), opcodes(pages.opcodes);
        read_ncu_csv_into(trace, raw, file, pages.details.empty() ? nullptr : &details, pages.opcodes.empty() ? nullptr : &opcodes);
        if (pages.details.empty()) {
          trace.warnings.push_back(fmt::format("{}: no details page ({}): ncu's rules of its launches are not read", file.string(),
                                               pages.details_problem.empty() ? "ncu exported none" : pages.details_problem));
        }
        if (!pages.opcodes_problem.empty()) {
          trace.warnings.push_back(fmt::format("{}: no instructions by opcode ({}): a full set's instruction mix is not read",
                                               file.string(), pages.opcodes_problem));
        }
        break;
      }
    }
  }
  return trace;
}

}  // namespace rpl::trace
