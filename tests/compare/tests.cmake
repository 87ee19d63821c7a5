# sparkscope-cli compare and scaling: exit codes and usage, the text report's tables, the JSON's
# definitions (differences, ratios, ledger sums, sort order, Karp-Flatt, prediction errors) and the
# CSV against it, on demo traces recorded at 1 and 2 engines, bad input, different programs, and a
# GHC pair from ../shared (tests/compare/compare_cases.py).
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the sparkscope-cli compare tests are not registered")
  return()
endif()

foreach(_case help usage_errors demo_json demo_text_and_file bad_input cut_trace_warns different_programs scaling_demo ghc)
  add_test(NAME "compare: ${_case}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/compare_cases.py --case ${_case}
      --cli $<TARGET_FILE:sparkscope-cli> --demo $<TARGET_FILE:sparkscope-demo>
      --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/compare-${_case})
  set_tests_properties("compare: ${_case}" PROPERTIES LABELS cli TIMEOUT 120)
endforeach()
