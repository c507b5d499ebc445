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

find_program(CLOUDABI_CLANG NAMES clang clang-14 REQUIRED)
find_program(CLOUDABI_LLD NAMES ld.lld ld.lld-14 REQUIRED)

set(CLOUDABI_GUEST_DIR ${CMAKE_BINARY_DIR}/guest)
file(MAKE_DIRECTORY ${CLOUDABI_GUEST_DIR})
set(CLOUDABI_GUEST_CFLAGS
    --target=x86_64-unknown-cloudabi -std=c11 -O2 -g -ffreestanding
    -fno-stack-protector -fno-sanitize=safe-stack -fPIE -Wall -Wextra -Werror
    -I${PROJECT_SOURCE_DIR}/abi -I${PROJECT_SOURCE_DIR}/abi/rt)

# Compiles one guest source to an object; returns the object's path.
function(_cloudabi_compile SRC OUTDIR DEFINES RESULT)
  get_filename_component(abs ${SRC} ABSOLUTE)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
  string(REPLACE "/" "_" flat ${rel})
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

# The runtime, as one relocatable object that programs link against.
set(_rt_dir ${CMAKE_BINARY_DIR}/guest-obj/rt)
file(MAKE_DIRECTORY ${_rt_dir})
set(_rt_objs)
foreach(src crt0.c syscalls.c argdata.c string.c format.c thread.c)
  _cloudabi_compile(${PROJECT_SOURCE_DIR}/abi/rt/${src} ${_rt_dir} "" obj)
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
