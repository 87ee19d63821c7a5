# sparkscope-cli analyze: exit codes, the text report, the JSON's sums and invariants on a GHC
# eventlog (../shared) and on a demo trace, ranges and -o, the findings in the report, the JSON and
# the metrics file, the what-if options and predictions (tests/analysis/analyze_cases.py).
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the sparkscope-cli analyze tests are not registered")
  return()
endif()

foreach(_case help usage_errors ghc_text ghc_json demo_json demo_text_range_and_file findings whatif ghc_whatif)
  add_test(NAME "analyze: ${_case}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/analyze_cases.py --case ${_case}
      --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>
      --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/analyze-${_case})
  set_tests_properties("analyze: ${_case}" PROPERTIES LABELS cli TIMEOUT 120)
endforeach()

# sparkscope-cli calibrate (tests/analysis/calibrate_cases.py): the fixture step records the demo's
# quicksort on 1 engine (taskset-pinned) and on 2; the cases read that pair.
set(_calibrate_pair ${PROJECT_BINARY_DIR}/test-scratch/calibrate-pair)
foreach(_case record help usage_errors demo bad_input)
  add_test(NAME "calibrate: ${_case}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/calibrate_cases.py --case ${_case} --pair ${_calibrate_pair}
      --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>
      --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/calibrate-${_case})
  if(_case STREQUAL "record")
    set_tests_properties("calibrate: ${_case}" PROPERTIES FIXTURES_SETUP calibrate_pair LABELS cli TIMEOUT 120)
  else()
    set_tests_properties("calibrate: ${_case}" PROPERTIES FIXTURES_REQUIRED calibrate_pair LABELS cli TIMEOUT 120)
  endif()
endforeach()
