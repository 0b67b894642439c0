# `cmake --install` and a Debian package (`cpack -G DEB` in the build folder).
# Layout under the prefix: bin/rocm-perf and bin/rocm-perf-lab; lib/rocm-perf/librpl_cupti_trace.so
# (where rocm-perf looks for its tracer, beside its own bin/); share/rocm-perf/schemas/.
install(TARGETS rocm-perf rocm-perf-lab RUNTIME DESTINATION bin)
if(TARGET rpl_cupti_trace)
  install(TARGETS rpl_cupti_trace LIBRARY DESTINATION lib/rocm-perf)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION share/rocm-perf/schemas FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/rocm-perf)

set(CPACK_PACKAGE_NAME rocm-perf)
set(CPACK_PACKAGE_VENDOR "rocm-perf-lab")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}: profile, explain and tune GPU kernels on AMD and NVIDIA")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "rocm-perf-lab developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dependencies from the linked libraries (dpkg-shlibdeps)
# The CUPTI tracer links the CUDA toolkit's libraries, which no Debian package provides in /usr/local/cuda.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64)
set(CPACK_GENERATOR DEB)
include(CPack)
