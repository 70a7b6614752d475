// The translation unit that builds the precompiled MLIR headers
// (CMakeLists.txt, QMM_PRECOMPILED_HEADERS); it has no code of its own.
