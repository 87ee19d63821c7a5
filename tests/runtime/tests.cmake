# The runtime's benchmark (tests/bench/runtime_bench.cpp, globbed by tests/bench/tests.cmake) needs
# the runtime library and its private tracer header.
if(TARGET sparkscope-runtime-bench)
  target_link_libraries(sparkscope-runtime-bench PRIVATE sparkscope_runtime)
  target_include_directories(sparkscope-runtime-bench PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
endif()
