# Every demo workload, traced on 2 engines, must compute the right result and its trace must pass
# `sparkscope-cli check` (structure, and the runtime's invariants once check knows them).
set(SPARKSCOPE_DEMO_CASES
  "parfib --n 27 --cutoff 12"
  "sumeuler --n 1500 --chunk 50"
  "quicksort --n 300000 --cutoff 5000"
  "pipeline --items 300 --work 5000"
  "imbalanced --conjuncts 8 --unit 2000"
  "listsum --n 20000 --max-contexts-per-engine 2")
foreach(case ${SPARKSCOPE_DEMO_CASES})
  string(REPLACE " " ";" args "${case}")
  list(GET args 0 workload)
  add_test(NAME "runtime: demo ${workload} is right and its trace passes sparkscope-cli check"
    COMMAND ${CMAKE_COMMAND} -DDEMO=$<TARGET_FILE:sparkscope-demo> -DCLI=$<TARGET_FILE:sparkscope-cli>
      "-DARGS=${args}" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/demo-${workload}.eventlog
      -P ${CMAKE_CURRENT_LIST_DIR}/demo_check.cmake)
  set_tests_properties("runtime: demo ${workload} is right and its trace passes sparkscope-cli check"
    PROPERTIES LABELS runtime TIMEOUT 300)
endforeach()

# White-box tests of the tracer (runtime/src/tracer.h).
target_include_directories(sparkscope-runtime-tests PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
