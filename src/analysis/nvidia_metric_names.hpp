#pragma once
// ncu metric names that more than one analysis reads (reference/cuda.md §4.1, §5).
namespace rpl::analysis::nvidia_metric {

// Warp instructions on the tensor pipe (x32 threads), and of them ptxas's HFMA2.MMA register
// moves, which run on that pipe but do no matrix arithmetic, and which ncu counts as hfma too: no
// FP16 arithmetic either.
inline constexpr const char* kTensorInstructions = "sm__inst_executed_pipe_tensor.sum";
inline constexpr const char* kTensorMoves = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";

// The SM clock over a launch, in cycles a second (the GPC's is the same clock; ncu's details page
// calls it "SM Frequency"). ncu's roofline sections multiply each peak per cycle by it.
inline constexpr const char* kSmClock = "sm__cycles_elapsed.avg.per_second";
inline constexpr const char* kGpcClock = "gpc__cycles_elapsed.avg.per_second";

}  // namespace rpl::analysis::nvidia_metric
