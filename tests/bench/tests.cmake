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

# The timeline benchmarks need the Qt UI library (absent with SPARKSCOPE_BUILD_UI=OFF).
foreach(qt_bench sparkscope-ui-bench sparkscope-paint-bench sparkscope-follow-bench)
  if(TARGET ${qt_bench})
    if(TARGET sparkscope_ui)
      target_link_libraries(${qt_bench} PRIVATE sparkscope_ui)
    else()
      set_target_properties(${qt_bench} PROPERTIES EXCLUDE_FROM_ALL ON)
    endif()
  endif()
endforeach()

# The runtime benchmark times the demo's parfib (app/demo/, the code sparkscope-demo runs) and the
# runtime's private tracer.
if(TARGET sparkscope-runtime-bench)
  target_link_libraries(sparkscope-runtime-bench PRIVATE sparkscope_demo_workloads sparkscope_runtime)
  target_include_directories(sparkscope-runtime-bench PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
endif()

# The what-if benchmark times the simulation alone too: it reads core's private headers.
target_include_directories(sparkscope-whatif-bench PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
