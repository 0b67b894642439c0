set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

# Linked PRIVATE by every target of the project.
add_library(rpl_settings INTERFACE)
target_compile_options(rpl_settings INTERFACE -Wall -Wextra)
if(RPL_WERROR)
  target_compile_options(rpl_settings INTERFACE -Werror)
endif()
if(RPL_FUZZ)
  # Coverage for libFuzzer everywhere, address and undefined-behaviour checks, every finding fatal.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
if(RPL_SANITIZERS)
  target_compile_options(rpl_settings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(rpl_settings INTERFACE -fsanitize=address,undefined)
endif()

# Adds a module library rpl_<name> with public headers in include/.
function(rpl_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(rpl_${name} STATIC ${ARG_SOURCES})
  add_library(rpl::${name} ALIAS rpl_${name})
  target_include_directories(rpl_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${CMAKE_BINARY_DIR}/generated)
  target_link_libraries(rpl_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE rpl_settings ${ARG_PRIVATE_DEPS})
endfunction()
