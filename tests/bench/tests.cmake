# Benchmarks: one program per tests/bench/<name>_bench.cpp, named sparkscope-<name>-bench. They are
# not tests (they print figures, never assert on time); scripts/bench builds and runs them.
file(GLOB SPARKSCOPE_BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_bench.cpp)
foreach(src ${SPARKSCOPE_BENCH_SOURCES})
  get_filename_component(stem ${src} NAME_WE)
  string(REGEX REPLACE "_bench$" "" stem ${stem})
  string(REPLACE "_" "-" stem ${stem})
  add_executable(sparkscope-${stem}-bench ${src})
  target_link_libraries(sparkscope-${stem}-bench PRIVATE sparkscope_core TBB::tbb)
  sparkscope_warnings(sparkscope-${stem}-bench)
endforeach()
