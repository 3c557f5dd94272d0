# Compiles every given public header on its own (included twice, to exercise
# the include guard) with -fsyntax-only, and fails listing every header that
# does not compile warning-free.
#
#   cmake -DCOMPILER=<cc> -DLANGUAGE=C|CXX -DFLAGS=<f1|f2> -DINCLUDE_DIRS=<d1|d2>
#         -DHEADERS=<h1|h2> -DWORK_DIR=<dir> -P compile_headers.cmake
# Lists use '|' because ctest would split ';'.
foreach(var COMPILER LANGUAGE FLAGS INCLUDE_DIRS HEADERS WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compile_headers.cmake: ${var} not set")
  endif()
endforeach()
string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" headers "${HEADERS}")
string(REPLACE "|" ";" include_dirs "${INCLUDE_DIRS}")
list(TRANSFORM include_dirs PREPEND "-I")
if(LANGUAGE STREQUAL "C")
  set(extension c)
else()
  set(extension cpp)
endif()

list(LENGTH headers count)
if(count EQUAL 0)
  message(FATAL_ERROR "no headers given: the check would be vacuous")
endif()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(failed "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  set(source "${WORK_DIR}/${stem}.${extension}")
  file(WRITE "${source}"
    "#include \"${header}\"\n#include \"${header}\"\nint main(void) { return 0; }\n")
  execute_process(
    COMMAND "${COMPILER}" ${flags} ${include_dirs} -fsyntax-only "${source}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "")
    list(APPEND failed "${header}")
    message("---- ${header} (${LANGUAGE}, ${FLAGS}):\n${out}")
  endif()
endforeach()

if(failed)
  list(JOIN failed ", " failed_text)
  message(FATAL_ERROR "headers that do not compile cleanly as ${LANGUAGE}: ${failed_text}")
endif()
message(STATUS "${count} headers compile cleanly as ${LANGUAGE} with ${FLAGS}")
