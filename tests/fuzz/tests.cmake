# The seeds of our runtime's event set the smoke runs start from (make_seeds.cpp): simulated
# programs, the same on every run, where the demo's traces differ with timing.
add_executable(sparkscope-fuzz-seeds ${CMAKE_CURRENT_LIST_DIR}/make_seeds.cpp ${PROJECT_SOURCE_DIR}/tests/core/metrics_sim.cpp)
target_include_directories(sparkscope-fuzz-seeds PRIVATE ${PROJECT_SOURCE_DIR}/tests/core)
target_link_libraries(sparkscope-fuzz-seeds PRIVATE sparkscope_test_support)
sparkscope_warnings(sparkscope-fuzz-seeds)

# A short, bounded libFuzzer run of the eventlog reader (scripts/fuzz --smoke builds the fuzz tree
# with clang in build/fuzz). Without clang++ it prints NOT RUN and passes.
add_test(NAME "fuzz: reader fuzzer survives a bounded run seeded with the shared eventlogs"
  COMMAND ${CMAKE_COMMAND} -E env SPARKSCOPE_FUZZ_SEEDS=$<TARGET_FILE:sparkscope-fuzz-seeds>
    bash ${PROJECT_SOURCE_DIR}/scripts/fuzz --smoke)
set_tests_properties("fuzz: reader fuzzer survives a bounded run seeded with the shared eventlogs"
  PROPERTIES LABELS fuzz TIMEOUT 1200 RUN_SERIAL TRUE)
add_test(NAME "fuzz: analysis fuzzer (model, metrics, analysis, what-if) survives a bounded run"
  COMMAND ${CMAKE_COMMAND} -E env SPARKSCOPE_FUZZ_SEEDS=$<TARGET_FILE:sparkscope-fuzz-seeds>
    bash ${PROJECT_SOURCE_DIR}/scripts/fuzz analysis --smoke)
set_tests_properties("fuzz: analysis fuzzer (model, metrics, analysis, what-if) survives a bounded run"
  PROPERTIES LABELS fuzz TIMEOUT 1800 RUN_SERIAL TRUE)
