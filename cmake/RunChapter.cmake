# Runs one chapter executable (cmake -P), keeps its whole output, and compares its shape lines
# (every line that contains " -> [") with the checked-in expected file.
#   -DEXE=<path> -DARGS=<;-list> -DEXPECTED=<file> [-DOUTPUT=<file>] [-DUPDATE=ON]
# With UPDATE=ON (or the environment variable TFM_UPDATE_EXPECTED=1) the expected file is
# rewritten instead: review the change with git diff before committing it.
execute_process(COMMAND ${EXE} ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(OUTPUT)
  file(WRITE ${OUTPUT} "${out}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}\n${err}")
endif()

# Walk the output line by line with string(FIND): a CMake list would mis-split lines that hold an
# unmatched '['.
set(shape_lines "")
set(rest "${out}")
while(NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" newline)
  if(newline EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${newline} line)
    math(EXPR next "${newline} + 1")
    string(SUBSTRING "${rest}" ${next} -1 rest)
  endif()
  string(FIND "${line}" " -> [" arrow)
  if(NOT arrow EQUAL -1)
    string(APPEND shape_lines "${line}\n")
  endif()
endwhile()

if(NOT EXPECTED)
  return()
endif()
if(UPDATE OR "$ENV{TFM_UPDATE_EXPECTED}" STREQUAL "1")
  file(WRITE ${EXPECTED} "${shape_lines}")
  message(STATUS "updated ${EXPECTED}")
  return()
endif()
if(NOT EXISTS ${EXPECTED})
  message(FATAL_ERROR "missing ${EXPECTED}; create it with TFM_UPDATE_EXPECTED=1 ctest -R chapter")
endif()
file(READ ${EXPECTED} expected)
if(NOT shape_lines STREQUAL expected)
  message(FATAL_ERROR "The printed shapes of ${EXE} differ from ${EXPECTED}.\n"
    "--- expected\n${expected}--- got\n${shape_lines}"
    "If the change is intended: TFM_UPDATE_EXPECTED=1 ctest -R chapter, then review git diff.")
endif()
