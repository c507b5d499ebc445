# find_package(CloudABIRun): builds CloudABI programs against an installed
# cloudabi-run (its guest runtime and headers), with
#   add_cloudabi_program(NAME SOURCES a.c [DEFINES X=1])
# (see CloudABI.cmake).  CLOUDABI_RUN is the installed cloudabi-run.
get_filename_component(_cloudabi_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.."
                       ABSOLUTE)
set(CLOUDABI_INCLUDE_DIR ${_cloudabi_prefix}/include/cloudabi-run)
set(CLOUDABI_RT_OBJECT ${_cloudabi_prefix}/lib/cloudabi-run/cloudabi-rt.o)
set(CLOUDABI_RUN ${_cloudabi_prefix}/bin/cloudabi-run)
include(${CMAKE_CURRENT_LIST_DIR}/CloudABI.cmake)
set(CloudABIRun_FOUND TRUE)
