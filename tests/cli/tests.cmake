# CLI tests: run the built sparkscope-cli on the shared eventlogs and on files core's writer makes
# (exit codes, output formats, bad input), and cross-check it with the ghc-events library (evdump).
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the sparkscope-cli tests are not registered")
  return()
endif()

set(_cli_script ${CMAKE_CURRENT_LIST_DIR}/cli_cases.py)
foreach(_case help version usage_errors missing_file wrong_magic truncated show_tsv show_filters show_text
              info_json check_ok check_problems rewrite_roundtrip export_chrome cut memory_check range_outside)
  add_test(NAME "cli: ${_case}"
    COMMAND ${Python3_EXECUTABLE} ${_cli_script} --case ${_case} --cli $<TARGET_FILE:sparkscope-cli>
      --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/cli-${_case})
  set_tests_properties("cli: ${_case}" PROPERTIES LABELS cli TIMEOUT 120)
endforeach()

# ghc-events cross-check: evdump is built once as a fixture (NOT RUN when ghc is unavailable).
add_test(NAME "cli: build evdump (ghc-events reference reader)"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/build_evdump.sh ${PROJECT_BINARY_DIR}/evdump ${SPARKSCOPE_SHARED_DIR})
set_tests_properties("cli: build evdump (ghc-events reference reader)" PROPERTIES
  FIXTURES_SETUP evdump LABELS cli TIMEOUT 900)
add_test(NAME "cli: show --format tsv agrees with ghc-events on every shared eventlog"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/compare_with_ghc_events.py
    --cli $<TARGET_FILE:sparkscope-cli> --evdump ${PROJECT_BINARY_DIR}/evdump
    --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/cli-ghc-events)
set_tests_properties("cli: show --format tsv agrees with ghc-events on every shared eventlog" PROPERTIES
  FIXTURES_REQUIRED evdump LABELS cli TIMEOUT 600)
add_test(NAME "cli: cut output is read by ghc-events and holds the range's events"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/cut_with_ghc_events.py
    --cli $<TARGET_FILE:sparkscope-cli> --evdump ${PROJECT_BINARY_DIR}/evdump --demo $<TARGET_FILE:sparkscope-demo>
    --testdata ${SPARKSCOPE_SHARED_DIR}/testdata --scratch ${PROJECT_BINARY_DIR}/test-scratch/cli-cut-ghc-events)
set_tests_properties("cli: cut output is read by ghc-events and holds the range's events" PROPERTIES
  FIXTURES_REQUIRED evdump LABELS cli TIMEOUT 600)
