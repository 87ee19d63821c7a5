# Runs sparkscope-demo ARGS --engines 2 --trace OUT, then sparkscope-cli check OUT; fails on either.
execute_process(COMMAND ${DEMO} ${ARGS} --engines 2 --trace ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sparkscope-demo ${ARGS} failed (${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "elapsed_ns=[0-9]+")
  message(FATAL_ERROR "sparkscope-demo ${ARGS} printed no elapsed_ns:\n${out}")
endif()
# The check reads the trace with TBB, which Debian does not build with ThreadSanitizer: under the
# tsan preset TSan cannot see TBB's synchronisation and reports races in core that are not there.
# The runtime is what the tsan run is for, so the check step runs with TSan's reports off (the demo
# above keeps them on); in other builds the variable is ignored.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TSAN_OPTIONS=report_bugs=0 ${CLI} check ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sparkscope-cli check ${OUT} failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${out}")
