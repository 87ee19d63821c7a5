# A short, bounded libFuzzer run of the eventlog reader (scripts/fuzz --smoke builds the fuzz tree
# with clang in build/fuzz). Without clang++ it prints NOT RUN and passes.
add_test(NAME "fuzz: reader fuzzer survives a bounded run seeded with the shared eventlogs"
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/fuzz --smoke)
set_tests_properties("fuzz: reader fuzzer survives a bounded run seeded with the shared eventlogs"
  PROPERTIES LABELS fuzz TIMEOUT 1200 RUN_SERIAL TRUE)
add_test(NAME "fuzz: analysis fuzzer (model, metrics, analysis, what-if) survives a bounded run"
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/fuzz analysis --smoke)
set_tests_properties("fuzz: analysis fuzzer (model, metrics, analysis, what-if) survives a bounded run"
  PROPERTIES LABELS fuzz TIMEOUT 1800 RUN_SERIAL TRUE)
