# add_qmm_library(name ...): add_mlir_library for the libraries the qmm
# package exports. add_mlir_library would install each into MLIR's own export
# set (MLIRTargets); these go into QMMTargets instead (cmake/modules/
# CMakeLists.txt installs the set), exported as QMM::<name without the QMM
# prefix> (QMMDialect -> QMM::Dialect).
function(add_qmm_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  qmm_export_library(${name})
endfunction()

# Adds an existing library target (an INTERFACE library, the C API's shared
# library) to the exported set.
function(qmm_export_library name)
  string(REGEX REPLACE "^QMM" "" export_name "${name}")
  set_target_properties(${name} PROPERTIES EXPORT_NAME "${export_name}")
  set_property(GLOBAL APPEND PROPERTY QMM_EXPORTED_LIBRARIES ${name})
endfunction()

# Tools installed into bin/ and exported as QMM::<tool>.
function(qmm_export_tool name)
  set_property(GLOBAL APPEND PROPERTY QMM_EXPORTED_TOOLS ${name})
  qmm_set_install_rpath(${name})
endfunction()

# An installed binary finds libMLIR.so in LLVM's library directory (Debian
# puts only libLLVM.so on the loader's path) and qmm's own shared libraries
# in ../lib.
function(qmm_set_install_rpath name)
  set_target_properties(${name} PROPERTIES
    INSTALL_RPATH "\$ORIGIN/../lib;${LLVM_LIBRARY_DIR}")
endfunction()
