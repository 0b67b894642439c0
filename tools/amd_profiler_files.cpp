#include "amd_profiler_files.hpp"

#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::tools {
namespace fs = std::filesystem;
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The kernel's name as rocprofv3 writes it: demangled.
const std::string& written_name(const trace::KernelSymbol& s) { return s.display_name.empty() ? s.mangled_name : s.display_name; }

constexpr const char* kAgentInfoHeader =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\",\"Simd_Id_Base\","
    "\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\","
    "\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\","
    "\"Vendor_Id\",\"Device_Id\",\"Location_Id\",\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\","
    "\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\","
    "\"Fw_Version\",\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\",\"Grid_Max_Size\","
    "\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\","
    "\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"";

}  // namespace

void write_rocprofv3_csv(const trace::Trace& trace, const fs::path& folder, const std::string& prefix) {
  fs::create_directories(folder);
  // Node ids as an MI250X's: the node counts every agent before it, the logical id is the position.
  std::map<int64_t, size_t> logical;  // agent id -> Logical_Node_Id
  {
    std::ofstream out(folder / (prefix + "agent_info.csv"));
    out << kAgentInfoHeader << "\n";
    for (size_t i = 0; i < trace.agents.size(); ++i) {
      const auto& a = trace.agents[i];
      logical[a.id] = i;
      const bool gpu = a.type == "GPU";
      out << a.id + 2 << "," << i << "," << quoted(a.type) << "," << (gpu ? 0 : 16) << "," << (gpu ? a.compute_units.value_or(0) * a.simds_per_cu.value_or(0) : 0)
          << ",0,0," << (gpu ? a.max_waves_per_cu.value_or(0) / std::max(a.simds_per_cu.value_or(1), 1) : 0) << "," << a.lds_kib.value_or(0) << ",0,0,"
          << a.wave_size.value_or(0) << ",1," << a.compute_units.value_or(0) << ",0,0,0,0," << a.simds_per_cu.value_or(0) << ",0,0,4098,0,0,0,0,0,0,0,0,0,"
          << a.max_clock_mhz.value_or(0) << ",0,0,\"{}\",0," << a.max_waves_per_cu.value_or(0) << ",0,1024,4294967295,0,0,0,1024,1024,1024,"
          << "4294967295,4294967295,4294967295," << quoted(a.name) << "," << quoted(a.vendor_name) << "," << quoted(a.product_name) << ","
          << quoted(a.name) << "\n";
    }
  }
  auto agent = [&](int64_t id) { return quoted(fmt::format("Agent {}", logical.count(id) ? logical[id] : 0)); };
  {
    std::ofstream out(folder / (prefix + "kernel_trace.csv"));
    out << "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\","
           "\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
           "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
    for (const auto& d : trace.dispatches) {
      const auto& s = trace.symbols[static_cast<size_t>(d.symbol)];
      const auto& g = trace.geometry(d);
      const int64_t agent_id = d.agent >= 0 ? trace.agents[static_cast<size_t>(d.agent)].id : 0;
      out << "\"KERNEL_DISPATCH\"," << agent(agent_id) << "," << d.queue_id << "," << d.stream_id << ",1000," << d.id << "," << s.id << ","
          << quoted(written_name(s)) << "," << d.correlation_id << "," << d.start_ns << "," << d.end_ns << ","
          << std::max<int64_t>(g.group_segment_size, s.group_segment_size) << "," << g.private_segment_size << "," << s.arch_vgpr_count << ","
          << s.accum_vgpr_count << "," << s.sgpr_count << "," << g.workgroup[0] << "," << g.workgroup[1] << "," << g.workgroup[2] << ","
          << g.grid[0] << "," << g.grid[1] << "," << g.grid[2] << "\n";
    }
  }
  std::ofstream out(folder / (prefix + "memory_copy_trace.csv"));
  out << "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";
  for (const auto& c : trace.memory_copies) {
    out << "\"MEMORY_COPY\"," << quoted(c.name) << "," << c.stream_id << "," << agent(c.src_agent_id) << "," << agent(c.dst_agent_id) << ","
        << c.correlation_id << "," << c.start_ns << "," << c.end_ns << "\n";
  }
}

void write_rocprofv3_json(const trace::Trace& trace, const fs::path& file, int64_t pid) {
  using nlohmann::json;
  json agents = json::array(), symbols = json::array(), dispatches = json::array(), copies = json::array();
  std::map<int64_t, int64_t> handle;  // agent id -> its handle, as the SDK numbers agents
  for (size_t i = 0; i < trace.agents.size(); ++i) {
    const auto& a = trace.agents[i];
    handle[a.id] = 0x10000 + static_cast<int64_t>(i);
    agents.push_back({{"size", 1120}, {"id", {{"handle", handle[a.id]}}}, {"type", a.type == "CPU" ? 1 : 2}, {"cpu_cores_count", 0},
                      {"simd_count", a.compute_units.value_or(0) * a.simds_per_cu.value_or(0)}, {"lds_size_in_kb", a.lds_kib.value_or(0)},
                      {"wave_front_size", a.wave_size.value_or(0)}, {"cu_count", a.compute_units.value_or(0)}, {"simd_per_cu", a.simds_per_cu.value_or(0)},
                      {"max_engine_clk_fcompute", static_cast<int64_t>(a.max_clock_mhz.value_or(0))}, {"max_waves_per_cu", a.max_waves_per_cu.value_or(0)},
                      {"name", a.name}, {"vendor_name", a.vendor_name}, {"product_name", a.product_name}, {"model_name", ""},
                      {"node_id", a.id}, {"logical_node_id", static_cast<int64_t>(i)}});
  }
  for (const auto& s : trace.symbols) {
    symbols.push_back({{"size", 88}, {"kernel_id", s.id}, {"code_object_id", 1}, {"kernel_name", s.mangled_name}, {"kernel_object", 0},
                       {"kernarg_segment_size", s.kernarg_segment_size}, {"kernarg_segment_alignment", 8},
                       {"group_segment_size", s.group_segment_size}, {"private_segment_size", s.private_segment_size},
                       {"sgpr_count", s.sgpr_count}, {"arch_vgpr_count", s.arch_vgpr_count}, {"accum_vgpr_count", s.accum_vgpr_count},
                       {"formatted_kernel_name", written_name(s)}, {"demangled_kernel_name", written_name(s)}, {"truncated_kernel_name", written_name(s)}});
  }
  for (const auto& d : trace.dispatches) {
    const auto& s = trace.symbols[static_cast<size_t>(d.symbol)];
    const auto& g = trace.geometry(d);
    const int64_t agent = d.agent >= 0 ? handle[trace.agents[static_cast<size_t>(d.agent)].id] : 0;
    dispatches.push_back({{"size", 120}, {"kind", 11}, {"operation", 1}, {"thread_id", pid}, {"correlation_id", {{"internal", d.correlation_id}, {"external", 0}}},
                          {"start_timestamp", d.start_ns}, {"end_timestamp", d.end_ns}, {"stream_id", {{"handle", d.stream_id}}},
                          {"dispatch_info", {{"size", 72}, {"agent_id", {{"handle", agent}}}, {"queue_id", {{"handle", d.queue_id}}}, {"kernel_id", s.id},
                                             {"dispatch_id", d.id}, {"private_segment_size", g.private_segment_size},
                                             {"group_segment_size", std::max<int64_t>(g.group_segment_size, s.group_segment_size)},
                                             {"workgroup_size", {{"x", g.workgroup[0]}, {"y", g.workgroup[1]}, {"z", g.workgroup[2]}}},
                                             {"grid_size", {{"x", g.grid[0]}, {"y", g.grid[1]}, {"z", g.grid[2]}}}}}});
  }
  const std::vector<std::string> directions = {"MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                                               "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"};
  for (const auto& c : trace.memory_copies) {
    const auto op = std::find(directions.begin(), directions.end(), c.name) - directions.begin();
    copies.push_back({{"size", 64}, {"kind", 10}, {"operation", op}, {"thread_id", pid}, {"correlation_id", {{"internal", c.correlation_id}, {"external", 0}}},
                      {"start_timestamp", c.start_ns}, {"end_timestamp", c.end_ns}, {"dst_agent_id", {{"handle", handle[c.dst_agent_id]}}},
                      {"src_agent_id", {{"handle", handle[c.src_agent_id]}}}, {"bytes", c.size}, {"stream_id", {{"handle", c.stream_id}}}});
  }
  const json process = {{"metadata", {{"pid", pid}, {"init_time", 0}, {"fini_time", 0}}},
                        {"agents", agents},
                        {"counters", json::array()},
                        {"strings", {{"buffer_records", {{{"kind", "MEMORY_COPY"}, {"operations", directions}}}}}},
                        {"code_objects", json::array()},
                        {"kernel_symbols", symbols},
                        {"buffer_records", {{"kernel_dispatch", dispatches}, {"memory_copy", copies}, {"hip_api", json::array()}}}};
  std::ofstream(file) << json({{"rocprofiler-sdk-tool", {process}}}).dump(2);
}

void write_rocprof_v1(const trace::Trace& trace, const fs::path& folder) {
  fs::create_directories(folder);
  {
    std::ofstream out(folder / "results.sysinfo.txt");
    out << "CMD: /opt/rocm-5.7.1/bin/rocminfo\nROCk module is loaded\n=====================    \nHSA System Attributes    \n";
    for (size_t i = 0; i < trace.agents.size(); ++i) {
      const auto& a = trace.agents[i];
      out << "*******                  \nAgent " << i + 1 << "                  \n*******                  \n";
      out << "  Name:                    " << a.name << "    \n";
      out << "  Marketing Name:          " << a.product_name << "    \n";
      out << "  Vendor Name:             " << a.vendor_name << "    \n";
      out << "  Node:                    " << a.id << "    \n";
      out << "  Device Type:             " << a.type << "    \n";
      out << "  Max Clock Freq. (MHz):   " << a.max_clock_mhz.value_or(0) << "    \n";
      out << "  Compute Unit:            " << a.compute_units.value_or(0) << "    \n";
      out << "  SIMDs per CU:            " << a.simds_per_cu.value_or(0) << "    \n";
      out << "  Wavefront Size:          " << a.wave_size.value_or(0) << "(0x40)    \n";
      out << "  Max Waves Per CU:        " << a.max_waves_per_cu.value_or(0) << "(0x20)    \n";
      out << "  ISA Info:                \n    ISA 1                    \n      Name:                    amdgcn-amd-amdhsa--" << a.name << "    \n";
    }
  }
  std::ofstream out(folder / "results.csv");
  out << "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\",\"arch_vgpr\","
         "\"accum_vgpr\",\"sgpr\",\"wave_size\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n";
  size_t index = 0;
  for (const auto& d : trace.dispatches) {
    const auto& s = trace.symbols[static_cast<size_t>(d.symbol)];
    const auto& g = trace.geometry(d);
    const int64_t node = d.agent >= 0 ? trace.agents[static_cast<size_t>(d.agent)].id : 0;
    out << index << "," << quoted(written_name(s) + ".kd") << "," << node << "," << d.queue_id << "," << index << ",4242,4242,"
        << g.grid[0] * g.grid[1] * g.grid[2] << "," << g.block_size() << "," << std::max<int64_t>(g.group_segment_size, s.group_segment_size) << ","
        << g.private_segment_size << "," << s.arch_vgpr_count << "," << s.accum_vgpr_count << "," << s.sgpr_count << ",64,\"0x0\",\"0x7f8ede91d580\","
        << d.start_ns - 1000 << "," << d.start_ns << "," << d.end_ns << "," << d.end_ns + 500 << "," << d.end_ns - d.start_ns << "\n";
    ++index;
  }
}

}  // namespace rpl::tools
