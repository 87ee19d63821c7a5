# sparkscope_warnings(target): the project's warning set, applied per target (no global flags).
function(sparkscope_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()
