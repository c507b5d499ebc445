# Building CloudABI guest programs with clang's x86_64-unknown-cloudabi
# target and lld, as static PIEs, against the runtime in abi/rt.
#
#   add_cloudabi_program(NAME SOURCES a.c b.c [DEFINES X=1 ...])
#
# makes two executables in ${CLOUDABI_GUEST_DIR}: NAME, linked with lld's
# default packed layout, and NAME.sep, linked with
# -z separate-loadable-segments (page-aligned segments).  Real binaries
# come in both layouts, so every program is built in both.  The target
# `guest-NAME` builds them; `guests` builds them all.
#
# Works in this tree and out of it: paths come from this file's place
# (CMAKE_CURRENT_LIST_DIR), not the including project's.  The installed
# package (find_package(CloudABIRun), CloudABIRunConfig.cmake) sets
# CLOUDABI_INCLUDE_DIR and CLOUDABI_RT_OBJECT to the installed headers and
# runtime before including this file, and then no runtime is built.

find_program(CLOUDABI_CLANG NAMES clang clang-14 REQUIRED)
find_program(CLOUDABI_LLD NAMES ld.lld ld.lld-14 REQUIRED)

set(CLOUDABI_GUEST_DIR ${CMAKE_BINARY_DIR}/guest)
file(MAKE_DIRECTORY ${CLOUDABI_GUEST_DIR})
if(NOT CLOUDABI_INCLUDE_DIR)
  # The source tree: abi/ beside cmake/.
  get_filename_component(_cloudabi_abi ${CMAKE_CURRENT_LIST_DIR}/../abi ABSOLUTE)
  set(CLOUDABI_INCLUDE_DIR ${_cloudabi_abi} ${_cloudabi_abi}/rt)
endif()
set(_cloudabi_includes)
foreach(dir ${CLOUDABI_INCLUDE_DIR})
  list(APPEND _cloudabi_includes -I${dir})
endforeach()
set(CLOUDABI_GUEST_CFLAGS
    --target=x86_64-unknown-cloudabi -std=c11 -O2 -g -ffreestanding
    -fno-stack-protector -fno-sanitize=safe-stack -fPIE -Wall -Wextra -Werror
    ${_cloudabi_includes})

# Compiles one guest source to an object; returns the object's path.
function(_cloudabi_compile SRC OUTDIR DEFINES RESULT)
  get_filename_component(abs ${SRC} ABSOLUTE)
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${abs})
  string(REPLACE "/" "_" flat ${rel})
  string(REPLACE ".." "up" flat ${flat})
  set(obj ${OUTDIR}/${flat}.o)
  set(defs)
  foreach(d ${DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${CLOUDABI_CLANG} ${CLOUDABI_GUEST_CFLAGS} ${defs} -MD -MF
            ${obj}.d -c ${abs} -o ${obj}
    DEPENDS ${abs}
    DEPFILE ${obj}.d
    COMMENT "CloudABI cc ${rel}"
    VERBATIM)
  set(${RESULT} ${obj} PARENT_SCOPE)
endfunction()

# The runtime, as one relocatable object that programs link against:
# built here in the source tree, installed with the package.
if(CLOUDABI_RT_OBJECT)
  add_custom_target(cloudabi-rt)
else()
  set(_rt_dir ${CMAKE_BINARY_DIR}/guest-obj/rt)
  file(MAKE_DIRECTORY ${_rt_dir})
  set(_rt_objs)
  foreach(src crt0.c syscalls.c argdata.c string.c format.c thread.c errno.c)
    _cloudabi_compile(${CMAKE_CURRENT_LIST_DIR}/../abi/rt/${src} ${_rt_dir} ""
                      obj)
    list(APPEND _rt_objs ${obj})
  endforeach()
  set(CLOUDABI_RT_OBJECT ${CMAKE_BINARY_DIR}/guest-obj/cloudabi-rt.o)
  add_custom_command(
    OUTPUT ${CLOUDABI_RT_OBJECT}
    COMMAND ${CLOUDABI_LLD} -r -o ${CLOUDABI_RT_OBJECT} ${_rt_objs}
    DEPENDS ${_rt_objs}
    COMMENT "CloudABI runtime object"
    VERBATIM)
  add_custom_target(cloudabi-rt DEPENDS ${CLOUDABI_RT_OBJECT})
endif()
add_custom_target(guests ALL)
set_property(GLOBAL PROPERTY CLOUDABI_PROGRAMS "")

function(add_cloudabi_program NAME)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEFINES" ${ARGN})
  set(objdir ${CMAKE_BINARY_DIR}/guest-obj/${NAME})
  file(MAKE_DIRECTORY ${objdir})
  set(objs)
  foreach(src ${ARG_SOURCES})
    _cloudabi_compile(${src} ${objdir} "${ARG_DEFINES}" obj)
    list(APPEND objs ${obj})
  endforeach()
  set(outputs)
  foreach(layout packed sep)
    if(layout STREQUAL "sep")
      set(out ${CLOUDABI_GUEST_DIR}/${NAME}.sep)
      set(extra -Wl,-z,separate-loadable-segments)
    else()
      set(out ${CLOUDABI_GUEST_DIR}/${NAME})
      set(extra)
    endif()
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CLOUDABI_CLANG} --target=x86_64-unknown-cloudabi -nostdlib
              -fuse-ld=lld -Wl,-z,nostart-stop-gc ${extra} -o ${out} ${objs}
              ${CLOUDABI_RT_OBJECT}
      DEPENDS ${objs} ${CLOUDABI_RT_OBJECT}
      COMMENT "CloudABI link ${NAME} (${layout})"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  add_custom_target(guest-${NAME} DEPENDS ${outputs})
  add_dependencies(guest-${NAME} cloudabi-rt)
  add_dependencies(guests guest-${NAME})
  set_property(GLOBAL APPEND PROPERTY CLOUDABI_PROGRAMS ${outputs})
endfunction()
