# The shipped libraries are built with -DFUNC_VISIBILITY -fvisibility=hidden,
# so a public function is exported only if its declaration carries
# visibility("default") in that mode. This preprocesses every public header
# as the library does and fails on any function declaration without it.
#
#   cmake -DCOMPILER=<c++> -DINCLUDE_DIR=<include> -DHEADERS=<h1|h2>
#         -DWORK_DIR=<dir> -DMIN_FUNCTIONS=<n> -P check_export_visibility.cmake
foreach(var COMPILER INCLUDE_DIR HEADERS WORK_DIR MIN_FUNCTIONS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_export_visibility.cmake: ${var} not set")
  endif()
endforeach()
string(REPLACE "|" ";" headers "${HEADERS}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(source "${WORK_DIR}/all_public_headers.cpp")
set(text "")
foreach(header IN LISTS headers)
  string(APPEND text "#include \"${header}\"\n")
endforeach()
file(WRITE "${source}" "${text}")

execute_process(
  COMMAND "${COMPILER}" -std=c++11 -DFUNC_VISIBILITY -E "-I${INCLUDE_DIR}"
          "-I${INCLUDE_DIR}/aclnn" "${source}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE preprocessed ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "preprocessing failed:\n${errors}")
endif()

# Make the text safe for CMake lists: ';' ends statements, '[' ']' would
# group list items. Neither is needed for the check.
string(REPLACE ";" "@" preprocessed "${preprocessed}")
string(REPLACE "[" "<" preprocessed "${preprocessed}")
string(REPLACE "]" ">" preprocessed "${preprocessed}")
string(REPLACE "\n" ";" lines "${preprocessed}")

# Keep only the lines that come from our public headers (line markers tell).
set(ours "")
set(in_public_header FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^# [0-9]+ \"([^\"]*)\"")
    string(FIND "${CMAKE_MATCH_1}" "${INCLUDE_DIR}/" position)
    if(position EQUAL 0)
      set(in_public_header TRUE)
    else()
      set(in_public_header FALSE)
    endif()
  elseif(in_public_header)
    string(APPEND ours " ${line}")
  endif()
endforeach()

# Statements are separated by ';' (now '@'), '{' or '}'. A function
# declaration is a statement whose text ends in ')'.
string(REGEX MATCHALL "[^@{}]+@" statements "${ours}")
set(functions 0)
set(hidden "")
foreach(statement IN LISTS statements)
  if(statement MATCHES "\\)[ \t]*@$" AND NOT statement MATCHES "^[ \t]*typedef")
    math(EXPR functions "${functions} + 1")
    if(NOT statement MATCHES "visibility\\(\"default\"\\)")
      string(REGEX REPLACE "[ \t]+" " " statement "${statement}")
      list(APPEND hidden "${statement}")
    endif()
  endif()
endforeach()

if(functions LESS MIN_FUNCTIONS)
  message(FATAL_ERROR "found only ${functions} function declarations (expected >= "
                      "${MIN_FUNCTIONS}); the parser no longer sees the headers")
endif()
if(hidden)
  string(REPLACE ";" "\n  " hidden_text "${hidden}")
  message(FATAL_ERROR "declarations that would be hidden in the library build:\n  ${hidden_text}")
endif()
message(STATUS "${functions} public function declarations, all default-visible")
