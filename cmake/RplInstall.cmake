# `cmake --install` and Debian packages (`cpack -G DEB` in the build folder).
# Layout under the prefix: bin/rocm-perf and bin/rocm-perf-lab (a link to it); lib/rocm-perf/librpl_cupti_trace.so
# and lib/rocm-perf/rpl-cuda-replay
# (where rocm-perf looks for its tracer and replayer, beside its own bin/); share/rocm-perf/schemas/.
# Three packages: rocm-perf; rocm-perf-nvidia with the CUPTI tracer and the CUDA replayer, which
# need NVIDIA's driver and CUPTI libraries that no Debian package provides (so dpkg-shlibdeps cannot
# run on it); rocm-perf-amd with the HSA capture tool and replayer.
install(TARGETS rocm-perf RUNTIME DESTINATION bin COMPONENT main)
install(FILES ${CMAKE_BINARY_DIR}/bin/rocm-perf-lab DESTINATION bin COMPONENT main)  # installed as the link it is
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION share/rocm-perf/schemas COMPONENT main
        FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/rocm-perf COMPONENT main)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/skills/rocm-perf DESTINATION share/rocm-perf/skills COMPONENT main)
set(CPACK_COMPONENTS_ALL main)
if(TARGET rpl_cupti_trace)
  install(TARGETS rpl_cupti_trace LIBRARY DESTINATION lib/rocm-perf COMPONENT nvidia)
  if(TARGET rpl-cuda-replay)
    install(TARGETS rpl-cuda-replay RUNTIME DESTINATION lib/rocm-perf COMPONENT nvidia)
  endif()
  list(APPEND CPACK_COMPONENTS_ALL nvidia)
endif()
# The AMD capture tool and replayer, apart: the replayer needs the HSA runtime.
if(TARGET rpl_hsa_capture AND TARGET rpl-hsa-replay)
  install(TARGETS rpl_hsa_capture LIBRARY DESTINATION lib/rocm-perf COMPONENT amd)
  install(TARGETS rpl-hsa-replay RUNTIME DESTINATION lib/rocm-perf COMPONENT amd)
  list(APPEND CPACK_COMPONENTS_ALL amd)
endif()

# What the packages ship, as one target: scripts/test.sh builds it alone in a plain configuration.
set(rpl_programs rocm-perf rocm-perf-lab)
foreach(program rpl_cupti_trace rpl-cuda-replay rpl_hsa_capture rpl-hsa-replay)
  if(TARGET ${program})
    list(APPEND rpl_programs ${program})
  endif()
endforeach()
add_custom_target(rpl-programs DEPENDS ${rpl_programs})

set(CPACK_PACKAGE_NAME rocm-perf)
set(CPACK_PACKAGE_VENDOR "rocm-perf-lab")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}: profile, explain and tune GPU kernels on AMD and NVIDIA")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "rocm-perf-lab developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)  # as Debian's own packages are: the release build's debug info is 97 % of rocm-perf
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME rocm-perf)
set(CPACK_DEBIAN_MAIN_PACKAGE_SHLIBDEPS ON)  # dependencies from the linked libraries
set(CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS "libjs-chart.js")  # rocm-perf report inlines it into each page
set(CPACK_DEBIAN_NVIDIA_PACKAGE_NAME rocm-perf-nvidia)
set(CPACK_DEBIAN_NVIDIA_PACKAGE_DEPENDS "rocm-perf (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_NVIDIA_DESCRIPTION "rocm-perf's CUPTI tracer, capture and replayer for NVIDIA GPUs (needs the NVIDIA driver and CUPTI)")
set(CPACK_DEBIAN_AMD_PACKAGE_NAME rocm-perf-amd)
set(CPACK_DEBIAN_AMD_PACKAGE_SHLIBDEPS ON)  # the HSA runtime, from Debian
set(CPACK_DEBIAN_AMD_PACKAGE_DEPENDS "rocm-perf (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_AMD_DESCRIPTION "rocm-perf's capture tool and replayer for AMD GPUs (HSA runtime; not yet run on AMD hardware)")
include(CPack)
