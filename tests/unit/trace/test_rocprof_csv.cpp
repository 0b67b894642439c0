// The readers of rocprofv3's CSV output and legacy rocprof's results.csv: each layout as the real
// tool writes it (../shared/reference/formats.md), real files (tests/fixtures/real), and bad input.
#include <fstream>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/trace/amd_profiler_files.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

fs::path real(const std::string& path) { return source_dir() / "tests/fixtures/real" / path; }

const std::string kAgentInfo =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\",\"Simd_Id_Base\",\"Max_Waves_Per_Simd\","
    "\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\",\"Num_Shader_Banks\","
    "\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\","
    "\"Location_Id\",\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\","
    "\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\",\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\","
    "\"Family_Id\",\"Workgroup_Max_Size\",\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\","
    "\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n"
    // A CPU first, then an MI250X GCD whose Node_Id (6) is not its Logical_Node_Id (4).
    "0,0,\"CPU\",64,0,0,0,0,0,0,0,0,1,64,0,0,0,0,0,0,0,4098,0,0,0,0,0,0,0,0,0,3529,0,0,\"{}\",0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
    "\"AMD EPYC 7763\",\"CPU\",\"AMD EPYC 7763\",\"\"\n"
    "6,4,\"GPU\",0,440,0,0,8,64,0,0,64,1,110,0,0,0,0,4,0,90010,4098,29704,0,0,128,0,0,0,0,0,1700,0,0,\"{}\",0,32,0,1024,4294967295,0,"
    "18446744073709551615,1234,1024,1024,1024,4294967295,4294967295,4294967295,\"gfx90a\",\"AMD\",\"AMD Instinct MI250X\",\"aldebaran\"\n";

struct Layout {
  const char* name;
  std::string header, row;
  bool registers;
};

// One dispatch of one kernel in each layout rocprofv3 has written: 24 VGPRs where recorded, 4 KiB
// of LDS, a 256 x 2 block over a 4096 x 8 grid (work-items), 1000 ns long, on the MI250X GCD.
std::vector<Layout> layouts() {
  const std::string name = "\"void scale<float>(float*, float, int)\"";
  return {
      {"KT-A (ROCm 6.2 pre-release, 16 columns)",
       "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\","
       "\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"",
       "\"KERNEL_DISPATCH\",6,139871234,7," + name + ",12,5000,6000,0,4096,256,2,1,4096,8,1", false},
      {"KT-B (ROCm 6.2/6.3, 18 columns)",
       "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
       "\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"",
       "\"KERNEL_DISPATCH\",6,1,69,3,7," + name + ",12,5000,6000,0,4096,256,2,1,4096,8,1", false},
      {"KT-C (ROCm 6.3/6.4, 19 columns)",
       "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
       "\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
       "\"Grid_Size_Y\",\"Grid_Size_Z\"",
       "\"KERNEL_DISPATCH\",6,1,2,69,3,7," + name + ",12,5000,6000,0,4096,256,2,1,4096,8,1", false},
      {"KT-D (ROCm 6.4 and 7.x, 22 columns)",
       "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
       "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
       "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"",
       "\"KERNEL_DISPATCH\",\"Agent 4\",1,2,69,3,7," + name + ",12,5000,6000,4096,0,24,0,32,256,2,1,4096,8,1", true},
      {"KT-E (rocpd's CSV conversion, ROCm 7.x)",
       "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\","
       "\"Start_Timestamp\",\"End_Timestamp\",\"Lds_Block_Size\",\"Scratch_Size\",\"Vgpr_Count\",\"Accum_Vgpr_Count\",\"Sgpr_Count\",\"Workgroup_Size_X\","
       "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"",
       "\"00003fdc-92cb\",\"KERNEL_DISPATCH\",\"Agent 4\",1,2,69,3,7," + name + ",12,5000,6000,4096,0,24,0,32,256,2,1,4096,8,1", true},
  };
}

TEST(Rocprofv3Csv, EveryKernelTraceLayoutReadsTheSameDispatch) {
  const auto dir = fresh_dir("rocprofv3_layouts");
  int n = 0;
  for (const auto& layout : layouts()) {
    const auto folder = dir / std::to_string(n++);
    write_text(folder / "777_kernel_trace.csv", layout.header + "\n" + layout.row + "\n");
    write_text(folder / "777_agent_info.csv", kAgentInfo);
    ASSERT_EQ(trace::trace_format(folder / "777_kernel_trace.csv"), trace::TraceFormat::rocprofv3_csv) << layout.name;
    const auto t = trace::read_traces({folder / "777_kernel_trace.csv"});
    ASSERT_EQ(t.dispatches.size(), 1u) << layout.name;
    const auto& d = t.dispatches[0];
    EXPECT_EQ(d.duration_ns(), 1000) << layout.name;
    const auto& g = t.geometry(d);
    EXPECT_EQ(g.grid, (std::array<uint64_t, 3>{4096, 8, 1})) << layout.name << ": grid sizes are work-items";
    EXPECT_EQ(g.workgroup, (std::array<uint32_t, 3>{256, 2, 1})) << layout.name;
    EXPECT_EQ(g.group_segment_size, 4096u) << layout.name;
    ASSERT_GE(d.agent, 0) << layout.name;
    const auto& agent = t.agents[static_cast<size_t>(d.agent)];
    EXPECT_EQ(agent.name, "gfx90a") << layout.name << ": Agent_Id resolves through agent_info.csv";
    EXPECT_EQ(agent.compute_units, 110) << layout.name;
    const auto& s = t.symbols[static_cast<size_t>(d.symbol)];
    EXPECT_EQ(s.name(), "void scale<float>(float*, float, int)") << layout.name << ": a comma inside quotes stays in the name";
    EXPECT_EQ(s.registers_known, layout.registers) << layout.name;
    EXPECT_EQ(s.arch_vgpr_count, layout.registers ? 24 : 0) << layout.name;
    const bool warned = std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) { return w.find("no register counts") != std::string::npos; });
    EXPECT_EQ(warned, !layout.registers) << layout.name;
    EXPECT_EQ(t.sources.at(0).guids, std::vector<std::string>{"777"}) << layout.name << ": the process is the file's pid prefix";
  }
  // The HIP API trace beside it: hipDeviceSynchronize is a host wait, in the kernel trace's correlation ids.
  write_text(dir / "0" / "777_hip_api_trace.csv", "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                                            "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",777,69,11,4000,4500\n"
                                            "\"HIP_RUNTIME_API_EXT\",\"hipDeviceSynchronize\",777,69,13,6100,6200\n");
  const auto t = trace::read_traces({dir / "0" / "777_kernel_trace.csv"});
  ASSERT_EQ(t.event_operations.size(), 1u);
  EXPECT_EQ(t.event_operations[0].kind, trace::EventOperationKind::device_synchronize);
  EXPECT_EQ(t.event_operations[0].correlation_id, 13);
}

TEST(Rocprofv3Csv, RealRocm7DocsRunWithCopiesAndCounters) {
  const auto t = trace::read_traces({real("rocprofiler-sdk-docs/kernel_trace.csv")});
  ASSERT_FALSE(t.dispatches.empty());
  const auto& first = t.dispatches[0];
  EXPECT_EQ(t.symbols[static_cast<size_t>(first.symbol)].name(), "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(first.start_ns, 1550151853029637);
  EXPECT_EQ(first.end_ns, 1550151853042437);
  EXPECT_EQ(t.geometry(first).grid, (std::array<uint64_t, 3>{1024, 1024, 1}));
  EXPECT_EQ(t.geometry(first).workgroup, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(t.symbols[static_cast<size_t>(first.symbol)].arch_vgpr_count, 8);
  EXPECT_EQ(t.symbols[static_cast<size_t>(first.symbol)].sgpr_count, 16);
  EXPECT_FALSE(t.memory_copies.empty()) << "memory_copy_trace.csv beside it";
  EXPECT_EQ(t.memory_copies[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  // No agent_info.csv was kept with the docs' files: the agents are known by number alone.
  EXPECT_EQ(t.agents.at(static_cast<size_t>(first.agent)).id, 4);
  EXPECT_TRUE(std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) { return w.find("agent_info.csv") != std::string::npos; }));
  // counter_collection.csv: SQ_WAVES of the dispatches both files list.
  ASSERT_EQ(t.counter_names, std::vector<std::string>{"SQ_WAVES"});
  EXPECT_FALSE(t.counter_values.empty());
}

// ROCTx ranges, HSA calls and scratch allocations beside a kernel trace are host calls for export,
// read only when asked; the scratch allocations' time is said.
TEST(Rocprofv3Csv, MarkerAndHsaTracesAreHostCalls) {
  trace::ReadOptions with_calls;
  with_calls.host_calls = true;
  const auto t = trace::read_traces({real("rocprofiler-sdk-docs/kernel_trace.csv")}, with_calls);
  const auto has = [&](const std::string& n) { return std::find(t.host_call_names.begin(), t.host_call_names.end(), n) != t.host_call_names.end(); };
  EXPECT_EQ(t.host_calls.size(), 17u) << "5 marker rows, 10 HSA calls, 2 scratch allocations";
  EXPECT_TRUE(has("before hipLaunchKernel")) << "a ROCTx mark";
  EXPECT_TRUE(has("hsa_system_get_major_extension_table"));
  EXPECT_TRUE(trace::read_traces({real("rocprofiler-sdk-docs/kernel_trace.csv")}).host_calls.empty());
  // Its scratch memory trace: two allocations of 31 and 578 ms that held the queue back.
  EXPECT_TRUE(has("SCRATCH_MEMORY_ALLOC"));
  EXPECT_TRUE(std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) {
    return w.find("the runtime grew scratch memory 2 times, 609.108 ms in all") != std::string::npos;
  })) << t.warnings.size();
}

TEST(Rocprofv3Csv, RealRocm62LayoutHasNoRegisterCounts) {
  const auto t = trace::read_traces({real("rocprofiler-sdk-docs-2024-10/kernel_trace.csv")});
  ASSERT_FALSE(t.dispatches.empty());
  for (const auto& s : t.symbols) EXPECT_FALSE(s.registers_known) << s.name();
  EXPECT_EQ(t.memory_copies.size(), 2u);
}

TEST(Rocprofv3Csv, RealAllQuotedTraceOfLlamaCpp) {
  const auto t = trace::read_traces({real("rocprofv3-strixhalo-gfx1151/decode_kernel_trace.csv")});
  EXPECT_EQ(t.dispatches.size(), 144u);
  EXPECT_TRUE(t.host_calls.empty()) << "the HIP calls beside it only when asked";
  trace::ReadOptions with_calls;
  with_calls.host_calls = true;
  const auto calls = trace::read_traces({real("rocprofv3-strixhalo-gfx1151/decode_kernel_trace.csv")}, with_calls);
  EXPECT_EQ(calls.host_calls.size(), 920u) << "decode_hip_api_trace.csv, of the same prefix";
  EXPECT_TRUE(std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) { return w.find("records no call's arguments") != std::string::npos; }));
  EXPECT_EQ(t.dispatches[0].id, 164);
  EXPECT_EQ(t.geometry(t.dispatches[0]).grid, (std::array<uint64_t, 3>{24576, 1, 1}));
  EXPECT_EQ(t.symbols[static_cast<size_t>(t.dispatches[1].symbol)].name().rfind("void k_get_rows_float<float, float>(float const*, int const*", 0), 0u);
}

// rocprofv3 --pmc without --kernel-trace: the counter rows are the dispatches (a real ROCm 7 run of
// llama.cpp on a Strix Halo iGPU); a counter_collection.csv beside its kernel trace stands for that run.
TEST(Rocprofv3Csv, ARunOfCountersAloneGivesItsDispatches) {
  const auto file = real("rocprofv3-strixhalo-gfx1151/decode_fetch_counter_collection.csv");
  ASSERT_EQ(trace::trace_format(file), trace::TraceFormat::rocprofv3_csv);
  const auto t = trace::read_traces({file});
  ASSERT_EQ(t.dispatches.size(), 34u);
  const auto& first = t.dispatches[0];
  EXPECT_EQ(first.id, 1);
  EXPECT_EQ(first.start_ns, 342345443821050);
  EXPECT_EQ(first.duration_ns(), 3447);
  EXPECT_EQ(t.geometry(first).grid, (std::array<uint64_t, 3>{1024, 1, 1}));
  EXPECT_EQ(t.geometry(first).workgroup, (std::array<uint32_t, 3>{512, 1, 1}));
  const auto& copy = t.symbols[static_cast<size_t>(first.symbol)];
  EXPECT_EQ(copy.name(), "__amd_rocclr_copyBuffer");
  EXPECT_EQ(copy.arch_vgpr_count, 16);
  EXPECT_EQ(copy.sgpr_count, 128);
  ASSERT_EQ(t.counter_names, std::vector<std::string>{"FETCH_SIZE"});
  ASSERT_EQ(t.counter_values.size(), 34u);
  EXPECT_DOUBLE_EQ(t.counter_values[0].value, 10.625);
  EXPECT_TRUE(std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) { return w.find("a run of counters alone") != std::string::npos; }));

  // Beside its run's kernel trace, it is that run (the docs' ROCm 7 run: one dispatch, SQ_WAVES).
  const auto docs = real("rocprofiler-sdk-docs");
  const auto with_trace = trace::read_traces({docs / "counter_collection.csv"});
  const auto kernel_trace = trace::read_traces({docs / "kernel_trace.csv"});
  EXPECT_EQ(with_trace.dispatches.size(), kernel_trace.dispatches.size());
  EXPECT_EQ(with_trace.counter_values.size(), kernel_trace.counter_values.size());
  EXPECT_EQ(with_trace.sources[0].path, (docs / "kernel_trace.csv").string());

  // Layouts before ROCm 7 time no dispatch: there is nothing to analyze.
  const auto dir = fresh_dir("counters_alone");
  write_output_file(dir / "1_counter_collection.csv",
                    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\","
                    "\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\"\n"
                    "1,1,1,1,19396,19396,1048576,16,\"void addition_kernel<float>(float*, float const*, float const*, int, int)\",64,0,0,8,16,\"SQ_WAVES\",16384\n");
  std::string message;
  EXPECT_EQ(error_code_of([&] { trace::read_traces({dir / "1_counter_collection.csv"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("a run of counters alone whose layout (before ROCm 7) records no times"), std::string::npos) << message;
}

TEST(RocprofV1, RealMi250xResultsWithRocminfo) {
  const auto t = trace::read_traces({real("rocprof-v1-mi250x/results.csv")});
  EXPECT_EQ(t.dispatches.size(), 1004u);
  const auto& d = t.dispatches[1];
  EXPECT_EQ(t.symbols[static_cast<size_t>(d.symbol)].name(), "laplacian_kernel");
  EXPECT_EQ(d.start_ns, 2001401021036510);
  EXPECT_EQ(d.end_ns, 2001401023684049);
  EXPECT_EQ(t.geometry(d).grid[0], 134217728u);
  EXPECT_EQ(t.geometry(d).workgroup[0], 256u);
  EXPECT_EQ(t.symbols[static_cast<size_t>(d.symbol)].arch_vgpr_count, 24);
  const auto& agent = t.agents.at(static_cast<size_t>(d.agent));
  EXPECT_EQ(agent.id, 8) << "gpu-id is the HSA node";
  EXPECT_EQ(agent.name, "gfx90a") << "from rocminfo's agent of node 8, not its ISA's name";
  EXPECT_EQ(agent.product_name, "AMD Instinct MI250X/MI250");
  EXPECT_EQ(agent.compute_units, 104);
  EXPECT_EQ(agent.wave_size, 64);
}

// rocprofv3 --output-format json as rocprofiler-sdk serializes it (its rocprofv3-schema.json):
// agents by handle, kernel symbols by id, dispatches with dispatch_info, copies with a direction
// named by strings.buffer_records.
TEST(Rocprofv3Json, ReadsOneProcessAsTheSchemaLaysItOut) {
  const auto dir = fresh_dir("rocprofv3_json");
  write_text(dir / "3210_results.json", R"J({"rocprofiler-sdk-tool": [{
    "metadata": {"pid": 3210, "init_time": 1, "fini_time": 2},
    "agents": [{"size": 1120, "id": {"handle": 94000}, "type": 1, "name": "AMD EPYC 9654", "node_id": 0, "logical_node_id": 0},
               {"size": 1120, "id": {"handle": 94001}, "type": 2, "cu_count": 304, "simd_per_cu": 4, "wave_front_size": 64, "max_waves_per_cu": 32,
                "max_engine_clk_fcompute": 2100, "lds_size_in_kb": 64, "name": "gfx942", "vendor_name": "AMD", "product_name": "AMD Instinct MI300X",
                "model_name": "", "node_id": 2, "logical_node_id": 1}],
    "kernel_symbols": [{"size": 88, "kernel_id": 5, "code_object_id": 1, "kernel_name": "_Z5scalePfi.kd", "group_segment_size": 1024,
                        "private_segment_size": 0, "sgpr_count": 24, "arch_vgpr_count": 40, "accum_vgpr_count": 8,
                        "formatted_kernel_name": "scale", "demangled_kernel_name": "scale(float*, int)", "truncated_kernel_name": "scale"}],
    "strings": {"buffer_records": [{"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE"]}]},
    "buffer_records": {
      "kernel_dispatch": [{"size": 120, "kind": 11, "operation": 1, "thread_id": 3210, "correlation_id": {"internal": 7, "external": 0},
                           "start_timestamp": 1000, "end_timestamp": 4000,
                           "dispatch_info": {"size": 72, "agent_id": {"handle": 94001}, "queue_id": {"handle": 3}, "kernel_id": 5, "dispatch_id": 1,
                                             "private_segment_size": 0, "group_segment_size": 2048,
                                             "workgroup_size": {"x": 256, "y": 1, "z": 1}, "grid_size": {"x": 1048576, "y": 2, "z": 1}}}],
      "memory_copy": [{"size": 64, "kind": 10, "operation": 2, "thread_id": 3210, "correlation_id": {"internal": 6, "external": 0},
                       "start_timestamp": 100, "end_timestamp": 900, "dst_agent_id": {"handle": 94001}, "src_agent_id": {"handle": 94000}, "bytes": 4096}]}}]})J");
  ASSERT_EQ(trace::trace_format(dir / "3210_results.json"), trace::TraceFormat::rocprofv3_json);
  const auto t = trace::read_traces({dir / "3210_results.json"});
  ASSERT_EQ(t.dispatches.size(), 1u);
  const auto& d = t.dispatches[0];
  EXPECT_EQ(d.duration_ns(), 3000);
  EXPECT_EQ(d.correlation_id, 7);
  EXPECT_EQ(t.agents.at(static_cast<size_t>(d.agent)).name, "gfx942");
  EXPECT_EQ(t.agents.at(static_cast<size_t>(d.agent)).compute_units, 304);
  const auto& s = t.symbols.at(static_cast<size_t>(d.symbol));
  EXPECT_EQ(s.mangled_name, "_Z5scalePfi.kd");
  EXPECT_EQ(s.name(), "scale(float*, int)");
  EXPECT_EQ(s.arch_vgpr_count, 40);
  EXPECT_EQ(s.accum_vgpr_count, 8);
  EXPECT_EQ(t.geometry(d).grid, (std::array<uint64_t, 3>{1048576, 2, 1}));
  EXPECT_EQ(t.geometry(d).group_segment_size, 2048u);
  ASSERT_EQ(t.memory_copies.size(), 1u);
  EXPECT_EQ(t.memory_copies[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(t.memory_copies[0].size, 4096);
  EXPECT_EQ(t.memory_copies[0].dst_agent_id, 2) << "agents are known by their node";
  EXPECT_EQ(t.sources.at(0).guids, std::vector<std::string>{"3210"});
}

// Its API records (serialized as rocprofiler-sdk's save_buffer_tracing_api_record writes them: no
// arguments): each named by its kind's operations in strings.buffer_records; hipDeviceSynchronize
// is a host wait in the dispatches' correlation ids; every call a host call when asked. A record of
// a kind numbered past the stable ones (ROCm 7's HIP_RUNTIME_API_EXT) takes the runtime API's names.
TEST(Rocprofv3Json, ApiRecordsAreHostCallsAndDeviceSynchronizationsWait) {
  const auto dir = fresh_dir("rocprofv3_json_api");
  const auto api = [](int kind, int op, int correlation, int start, int end) {
    return "{\"size\": 40, \"kind\": " + std::to_string(kind) + ", \"correlation_id\": {\"internal\": " + std::to_string(correlation) +
           ", \"external\": 0, \"ancestor\": 0}, \"operation\": " + std::to_string(op) + ", \"start_timestamp\": " + std::to_string(start) +
           ", \"end_timestamp\": " + std::to_string(end) + ", \"thread_id\": 3211}";
  };
  write_text(dir / "3210_results.json", R"J({"rocprofiler-sdk-tool": [{
    "metadata": {"pid": 3210},
    "agents": [{"id": {"handle": 94001}, "type": 2, "name": "gfx942", "node_id": 2}],
    "kernel_symbols": [{"kernel_id": 5, "kernel_name": "_Z5scalePfi.kd", "demangled_kernel_name": "scale(float*, int)"}],
    "strings": {"buffer_records": [
      {"kind": "HSA_CORE_API", "operations": ["hsa_init", "hsa_shut_down", "hsa_system_get_info"]},
      {"kind": "HIP_RUNTIME_API", "operations": ["hipApiNone", "hipDeviceSynchronize", "hipLaunchKernel"]},
      {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA", "roctxRangePop"]}]},
    "buffer_records": {
      "kernel_dispatch": [{"kind": 11, "correlation_id": {"internal": 7, "external": 0}, "start_timestamp": 1000, "end_timestamp": 4000,
                           "dispatch_info": {"agent_id": {"handle": 94001}, "queue_id": {"handle": 3}, "kernel_id": 5, "dispatch_id": 1,
                                             "workgroup_size": {"x": 256, "y": 1, "z": 1}, "grid_size": {"x": 1024, "y": 1, "z": 1}}}],
      "hip_api": [)J" + api(5, 2, 7, 900, 950) + ", " + api(21, 1, 8, 960, 4100) + R"J(],
      "hsa_api": [)J" + api(1, 2, 2, 100, 120) + R"J(],
      "marker_api": [)J" + api(7, 1, 3, 80, 5000) + R"J(]}}]})J");
  const auto plain = trace::read_traces({dir / "3210_results.json"});
  ASSERT_EQ(plain.event_operations.size(), 1u);
  EXPECT_EQ(plain.event_operations[0].kind, trace::EventOperationKind::device_synchronize);
  EXPECT_EQ(plain.event_operations[0].correlation_id, 8);
  EXPECT_EQ(plain.event_operations[0].guid, "3210");
  EXPECT_EQ(plain.event_operations[0].end_ns, 4100);
  EXPECT_TRUE(plain.host_calls.empty()) << "only when asked";
  EXPECT_TRUE(std::any_of(plain.warnings.begin(), plain.warnings.end(), [](const std::string& w) {
    return w.find("HIP API records hold no call's arguments") != std::string::npos;
  }));
  trace::ReadOptions with_calls;
  with_calls.host_calls = true;
  const auto t = trace::read_traces({dir / "3210_results.json"}, with_calls);
  std::vector<std::string> names;
  for (const auto& c : t.host_calls) names.push_back(t.host_call_names[c.name]);
  EXPECT_EQ(names, (std::vector<std::string>{"hipLaunchKernel", "hipDeviceSynchronize", "hsa_system_get_info", "roctxRangePushA"}));
  ASSERT_EQ(t.host_calls.size(), 4u);
  EXPECT_EQ(t.host_calls[0].tid, 3211);
  EXPECT_EQ(t.host_calls[3].start_ns, 80);
  EXPECT_EQ(t.host_calls[3].end_ns, 5000);
}

std::string read_error(const fs::path& file) {
  std::string message;
  EXPECT_EQ(error_code_of([&] { trace::read_traces({file}); }, &message), Errc::bad_input) << file;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  return message;
}

// rocprof writes the same rows to results.db's KERN table: read from either, the same trace.
TEST(RocprofV1, RealMi250xResultsDbReadsAsItsCsv) {
  ASSERT_EQ(trace::trace_format(real("rocprof-v1-mi250x/results.db")), trace::TraceFormat::rocprof_v1_database);
  const auto csv = trace::read_traces({real("rocprof-v1-mi250x/results.csv")});
  const auto db = trace::read_traces({real("rocprof-v1-mi250x/results.db")});
  ASSERT_EQ(db.dispatches.size(), 1004u);
  ASSERT_EQ(db.dispatches.size(), csv.dispatches.size());
  for (size_t i = 0; i < db.dispatches.size(); ++i) {
    const auto &a = db.dispatches[i], &b = csv.dispatches[i];
    ASSERT_EQ(a.id, b.id);
    ASSERT_EQ(a.start_ns, b.start_ns);
    ASSERT_EQ(a.end_ns, b.end_ns);
    ASSERT_EQ(a.queue_id, b.queue_id);
    ASSERT_EQ(db.geometry(a), csv.geometry(b));
    const auto &s = db.symbols[static_cast<size_t>(a.symbol)], &t = csv.symbols[static_cast<size_t>(b.symbol)];
    ASSERT_EQ(s.name(), t.name()) << "dispatch " << a.id << ": the name's quotes are not part of it";
    ASSERT_EQ(s.arch_vgpr_count, t.arch_vgpr_count);
    ASSERT_EQ(s.sgpr_count, t.sgpr_count);
  }
  EXPECT_EQ(db.symbols[static_cast<size_t>(db.dispatches[1].symbol)].name(), "laplacian_kernel");
  EXPECT_EQ(db.agents.at(static_cast<size_t>(db.dispatches[1].agent)).compute_units, 104) << "results.sysinfo.txt beside it";
}

// rocprof --hip-trace keeps copies and HIP calls as totals beside results.csv (formats.md: the
// five columns of results.stats.csv): said in a warning; an unreadable one does not stop the read.
TEST(RocprofV1, CopyAndHipTotalsBesideResultsAreSaid) {
  const auto dir = fresh_dir("rocprof_v1_totals");
  fs::copy_file(real("rocprof-v1-mi250x/results.csv"), dir / "results.csv");
  write_text(dir / "results.copy_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                                       "\"CopyHostToDevice\",2,3000000,1500000,75.0\n\"CopyDeviceToHost\",1,1000000,1000000,25.0\n");
  write_text(dir / "results.hip_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"hipMemcpy\",3,4100000,\n");
  const auto t = trace::read_traces({dir / "results.csv"});
  const auto said = [&](const std::string& text) {
    return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(said("rocprof kept its memory copies as totals only (results.copy_stats.csv: 3 copies, 4.000 ms in all, the most in "
                   "CopyHostToDevice, 3.000 ms)"));
  EXPECT_FALSE(said("HIP calls as totals only")) << "a row of fewer fields: that file is not read";
  EXPECT_TRUE(said("rocprof's totals of its HIP calls beside it are unreadable"));
  EXPECT_EQ(t.dispatches.size(), 1004u);
}

TEST(TraceFormatsBadInput, EachGetsOneLineThatSaysWhat) {
  const auto dir = fresh_dir("trace_formats_bad");
  const auto layout = layouts()[3];
  // A file cut short in the middle of a row.
  const std::string whole = layout.header + "\n" + layout.row + "\n" + layout.row + "\n";
  write_text(dir / "cut/kernel_trace.csv", whole.substr(0, whole.size() - 20));
  auto m = read_error(dir / "cut/kernel_trace.csv");
  EXPECT_NE(m.find("row 3 has"), std::string::npos) << m;
  EXPECT_NE(m.find("where the header has 22"), std::string::npos) << m;
  // Cut inside a quoted field.
  write_text(dir / "quote/kernel_trace.csv", layout.header + "\n\"KERNEL_DISPATCH\",\"Agent 4\",1,2,69,3,7,\"void scale<float>(flo");
  m = read_error(dir / "quote/kernel_trace.csv");
  EXPECT_NE(m.find("unclosed quote"), std::string::npos) << m;
  // A header of no known layout names what was expected and what was found.
  write_text(dir / "odd.csv", "\"Kernel\",\"Calls\",\"Total\"\n\"k\",1,2\n");
  m = read_error(dir / "odd.csv");
  EXPECT_NE(m.find("Kernel, Calls, Total"), std::string::npos) << m;
  EXPECT_NE(m.find("expected a rocprofv3 kernel_trace.csv"), std::string::npos) << m;
  // A profiler's totals (rocprof's results.stats.csv, real) time no dispatch: the trace beside it is named.
  m = read_error(real("rocprof-v1-mi250x/results.stats.csv"));
  EXPECT_NE(m.find("which time no dispatch"), std::string::npos) << m;
  EXPECT_NE(m.find("results.csv (rocprof --stats --timestamp on)"), std::string::npos) << m;
  // A results.db whose KERN table lacks a column the reader needs names the table.
  {
    SQLite::Database db((dir / "v1db_results.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE KERN (\"Index\" INTEGER, \"KernelName\" TEXT); INSERT INTO KERN VALUES (0, '\"k\"')");
  }
  m = read_error(dir / "v1db_results.db");
  EXPECT_NE(m.find("no column gpu-id (expected rocprof's KERN table"), std::string::npos) << m;
  // A known layout missing a column it needs.
  write_text(dir / "nogrid/kernel_trace.csv", "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\",\"Grid_Size_X\"\n");
  m = read_error(dir / "nogrid/kernel_trace.csv");
  EXPECT_NE(m.find("no column Workgroup_Size_X"), std::string::npos) << m;
  EXPECT_NE(m.find("found Kind, Agent_Id"), std::string::npos) << m;
  // A rocprofv3 JSON file cut short, and one whose dispatch names a kernel it does not list.
  write_text(dir / "cut_results.json", "{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1}, \"agents\": [");
  m = read_error(dir / "cut_results.json");
  EXPECT_NE(m.find("not well-formed JSON (cut short?)"), std::string::npos) << m;
  write_text(dir / "orphan_results.json", R"({"rocprofiler-sdk-tool": [{"kernel_symbols": [], "buffer_records": {"kernel_dispatch": [{"dispatch_info": {"kernel_id": 9}}]}}]})");
  m = read_error(dir / "orphan_results.json");
  EXPECT_NE(m.find("names kernel 9, which kernel_symbols does not list"), std::string::npos) << m;
  // A JSON file of another tool.
  write_text(dir / "other.json", "{\"traceEvents\": []}\n");
  m = read_error(dir / "other.json");
  EXPECT_NE(m.find("a JSON file of no trace format read here"), std::string::npos) << m;
  // A file of one column says which traces are read.
  write_text(dir / "words.txt", "hello\n");
  m = read_error(dir / "words.txt");
  EXPECT_NE(m.find("not a trace read here: a rocpd or Nsight Systems SQLite database, a rocprofv3 CSV or JSON trace"), std::string::npos) << m;
  // A timestamp that is not a number names the row and the column.
  auto bad = layout.row;
  bad.replace(bad.find("5000"), 4, "soon");
  write_text(dir / "nan/kernel_trace.csv", layout.header + "\n" + bad + "\n");
  m = read_error(dir / "nan/kernel_trace.csv");
  EXPECT_NE(m.find("row 2: Start_Timestamp is 'soon'"), std::string::npos) << m;
  // legacy rocprof without timestamps (rocprof --stats without --timestamp on writes none).
  write_text(dir / "v1/results.csv", "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\"\n0,\"k\",8,0,0,1,1,64,64,0\n");
  m = read_error(dir / "v1/results.csv");
  EXPECT_NE(m.find("no column BeginNs"), std::string::npos) << m;
  EXPECT_NE(m.find("--timestamp on"), std::string::npos) << m;
}

}  // namespace
}  // namespace rpl::test
