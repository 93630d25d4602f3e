# add_project(<name> [BOOK_ARGS <arg>...]) builds projects/<name>/, a real task beyond the
# outline: its task code (every .cpp of the folder but main.cpp) into the static library
# tfm_<name>, which links the shared library and is included as "<name>/<file>.hpp", and main.cpp
# into build/bin/<name>. With BOOK_ARGS the book runs the program with them (no values: without
# arguments) and keeps its output as <name>.txt for the project's page.
# `cmake --build build --target projects` builds every project.
function(add_project name)
  cmake_parse_arguments(ARG "" "" "BOOK_ARGS" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR}/${name})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  list(REMOVE_ITEM sources ${dir}/main.cpp)
  add_library(tfm_${name} STATIC ${sources})
  target_include_directories(tfm_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(tfm_${name} PUBLIC transformer::common)
  add_executable(${name} ${dir}/main.cpp)
  target_link_libraries(${name} PRIVATE tfm_${name})
  if(NOT TARGET projects)
    add_custom_target(projects)
  endif()
  add_dependencies(projects ${name})
  if(DEFINED ARG_BOOK_ARGS OR "BOOK_ARGS" IN_LIST ARG_KEYWORDS_MISSING_VALUES)
    add_book_program(${name} ${ARG_BOOK_ARGS})
  endif()
endfunction()

# add_book_program(<name> [<arg>...]): the book runs build/bin/<name> with these arguments after
# the chapters and keeps its output as <name>.txt (docs/CMakeLists.txt).
function(add_book_program name)
  set_property(GLOBAL APPEND PROPERTY TFM_BOOK_PROGRAMS ${name})
  set_property(GLOBAL PROPERTY TFM_BOOK_PROGRAM_ARGS_${name} "${ARGN}")
endfunction()
