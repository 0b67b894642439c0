option(RPL_ENABLE_TESTS "Build the tests" ON)
# Off for a plain build (a newer compiler's new warning must not break it); the presets turn it on.
option(RPL_WERROR "Treat warnings as errors" OFF)
option(RPL_SANITIZERS "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# Off: the test binaries' own code is compiled without optimization (the libraries they test keep the
# build type's): it only drives them, and compiles in half the time.
option(RPL_OPTIMIZE_TESTS "Compile the tests' own code as the build type says" OFF)
option(RPL_FUZZ "Build the libFuzzer targets (clang only; instruments the whole build)" OFF)
