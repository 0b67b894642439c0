# Every dependency is a Debian 12 package installed by scripts/setup.sh.
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(SQLiteCpp REQUIRED)
find_package(msgpack REQUIRED)  # msgpack-cxx 4, target msgpackc-cxx
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LIBZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBLZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(Threads REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)  # the tuner's least squares
find_package(Boost 1.74 REQUIRED)             # header-only: Student's t quantiles for diff's noise
pkg_check_modules(MUPARSER REQUIRED IMPORTED_TARGET muparser)  # constraint and derived-feature expressions
pkg_check_modules(GLIB REQUIRED IMPORTED_TARGET glib-2.0)      # shell-like splitting of templates, SHA-256
# libcsv: the CSV files of rocprofv3 and legacy rocprof (quoted fields, commas and newlines inside quotes)
find_path(LIBCSV_INCLUDE_DIR csv.h REQUIRED)
find_library(LIBCSV_LIBRARY csv REQUIRED)
add_library(rpl_libcsv INTERFACE)
target_include_directories(rpl_libcsv SYSTEM INTERFACE ${LIBCSV_INCLUDE_DIR})
target_link_libraries(rpl_libcsv INTERFACE ${LIBCSV_LIBRARY})
