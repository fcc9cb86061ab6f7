# Every C++ file of the tree formatted as .clang-format says (ctest format_check): clang-format
# --dry-run --Werror over src, include, tests (but its data) and examples. Fix with
#   clang-format -i $(git ls-files '*.cpp' '*.hpp' | grep -v ^tests/data)
find_program(CLANG_FORMAT NAMES clang-format-14 clang-format)
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "clang-format is missing (Debian package clang-format; bash scripts/setup.sh test installs it)")
endif()
file(GLOB_RECURSE files ${SOURCE}/src/*.cpp ${SOURCE}/src/*.hpp ${SOURCE}/include/*.hpp ${SOURCE}/tests/*.cpp
     ${SOURCE}/tests/*.hpp ${SOURCE}/examples/*.cpp)
list(FILTER files EXCLUDE REGEX "/tests/data/")
execute_process(COMMAND ${CLANG_FORMAT} --style=file --dry-run --Werror ${files}
                WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "not formatted as .clang-format says:\n${err}")
endif()
list(LENGTH files n)
message(STATUS "${n} files formatted as .clang-format says")
