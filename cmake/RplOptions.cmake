option(RPL_ENABLE_TESTS "Build the tests" ON)
# Off for a plain build (a newer compiler's new warning must not break it); the presets turn it on.
option(RPL_WERROR "Treat warnings as errors" OFF)
option(RPL_SANITIZERS "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# Off: the test binaries' own code is compiled without optimization (the libraries they test keep the
# build type's): it only drives them, and compiles in half the time.
option(RPL_OPTIMIZE_TESTS "Compile the tests' own code as the build type says" OFF)
# Off for a plain build (which then shows a test file that forgets an include); the presets turn it on.
option(RPL_PRECOMPILED_HEADERS "Precompile the headers the test files include (tests/CMakeLists.txt)" OFF)
option(RPL_FUZZ "Build the libFuzzer targets (clang only; instruments the whole build)" OFF)
# What `all` builds besides the tool: the tests of these labels (the others stay targets of their
# own), and the GPU testbeds and benchmarks. The asan preset builds the unit tests alone, which is
# all it runs.
set(RPL_BUILD_TEST_LABELS "unit;amd-offline;gpu" CACHE STRING "labels of the tests that `all` builds")
option(RPL_BUILD_TESTBEDS_AND_BENCH "Build the GPU testbeds (examples/) and the benchmarks (bench/) with `all`" ON)
