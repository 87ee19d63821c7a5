# `sparkscope TRACE --export-metrics FILE` writes byte for byte the file `sparkscope-cli metrics`
# writes with the same options (JSON and CSV, with --csc/--instances/--from/--to), on a pipeline demo
# trace made at test time.
if(SPARKSCOPE_BUILD_UI)
  add_test(NAME "panels: app --export-metrics equals sparkscope-cli metrics byte for byte"
    COMMAND ${CMAKE_COMMAND}
      -DAPP=$<TARGET_FILE:sparkscope> -DCLI=$<TARGET_FILE:sparkscope-cli> -DDEMO=$<TARGET_FILE:sparkscope-demo>
      -DOUT=${PROJECT_BINARY_DIR}/test-scratch/panels-export-cmp
      -P ${CMAKE_CURRENT_LIST_DIR}/export_cmp.cmake)
  set_tests_properties("panels: app --export-metrics equals sparkscope-cli metrics byte for byte"
    PROPERTIES LABELS ui TIMEOUT 300 ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endif()
