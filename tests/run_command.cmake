# Runs one command (cmake -P) and checks its exit code and what it printed: for the tests of a
# chapter's command line, where both matter (PASS_REGULAR_EXPRESSION alone ignores the code).
#   -DEXE=<path> -DARGS=<;-list, empty elements kept> -DEXPECTED_CODE=<n>
#   [-DSTDERR_REGEX=<regex>] [-DSTDOUT_REGEX=<regex>] [-DFORBIDDEN_REGEX=<regex on stdout+stderr>]
#   (a regex that is absent or empty is not checked)
#   [-DCORPUS=<file>]  writes a small English text there first (for --corpus; "" for none)
# A crash shows as a signal name ("Segmentation fault", "Child aborted"), never as the code.
if(NOT "${CORPUS}" STREQUAL "")
  set(paragraph "The old man walked down to the harbour every morning before the sun was up. He liked to watch the boats go out and to listen to the gulls above the water. When the wind was cold he wore the grey coat his daughter had made for him. ")
  string(REPEAT "${paragraph}" 12 text)
  file(WRITE "${CORPUS}" "${text}\n")
endif()

# Each argument bracket-quoted, so that an empty one ("") reaches the program as an argument.
set(command "execute_process(COMMAND [==[${EXE}]==]")
foreach(arg IN LISTS ARGS)
  string(APPEND command " [==[${arg}]==]")
endforeach()
string(APPEND command " OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)")
cmake_language(EVAL CODE "${command}")

set(shown "command: ${EXE} ${ARGS}\nexit: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT "${rc}" STREQUAL "${EXPECTED_CODE}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_CODE}\n${shown}")
endif()
if(NOT "${STDERR_REGEX}" STREQUAL "" AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match '${STDERR_REGEX}'\n${shown}")
endif()
if(NOT "${STDOUT_REGEX}" STREQUAL "" AND NOT out MATCHES "${STDOUT_REGEX}")
  message(FATAL_ERROR "stdout does not match '${STDOUT_REGEX}'\n${shown}")
endif()
if(NOT "${FORBIDDEN_REGEX}" STREQUAL "" AND "${out}${err}" MATCHES "${FORBIDDEN_REGEX}")
  message(FATAL_ERROR "the output matches '${FORBIDDEN_REGEX}', which it must not\n${shown}")
endif()
if(NOT "${CORPUS}" STREQUAL "")
  file(REMOVE "${CORPUS}")
endif()
