# Runs sparkscope-demo ARGS --engines 2 --trace OUT, then sparkscope-cli check OUT; fails on either.
execute_process(COMMAND ${DEMO} ${ARGS} --engines 2 --trace ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sparkscope-demo ${ARGS} failed (${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "elapsed_ns=[0-9]+")
  message(FATAL_ERROR "sparkscope-demo ${ARGS} printed no elapsed_ns:\n${out}")
endif()
execute_process(COMMAND ${CLI} check ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sparkscope-cli check ${OUT} failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${out}")
