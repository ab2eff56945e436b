# bench/commit.cmake: writes the header that names the commit the benchmarks were built from (SNACK_GIT_COMMIT), run
# at every build by bench/CMakeLists.txt's bench_commit target. A build tree is reused across commits, so a commit read
# when it was configured goes stale; "-dirty" marks a build with changes to tracked files. The header is rewritten
# only when the name changes, so an unchanged commit rebuilds nothing.
# Usage: cmake -DSOURCE=<source dir> -DOUT=<header> -P commit.cmake
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE ${OUT}.new "#define SNACK_GIT_COMMIT \"${commit}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
file(REMOVE ${OUT}.new)
