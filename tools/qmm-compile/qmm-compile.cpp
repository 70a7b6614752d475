//===- qmm-compile.cpp - the embedding API from the command line ----------===//
//
// Compiles a qmm program for a chip through qmm::api::compile and writes
// each kernel's code object and a JSON description of the kernels and
// their launches. Every error comes from the API as a value; this tool
// prints it on one "qmm-compile: error:" line (plus the diagnostics it
// carries) and exits 1.
//
//===----------------------------------------------------------------------===//

#include "qmm/API/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::qmm;
namespace cl = llvm::cl;

static cl::OptionCategory category("qmm-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> chip("chip", cl::init("gfx942"),
                                 cl::desc("target chip: gfx942, gfx950"),
                                 cl::cat(category));
static cl::opt<std::string> config("config", cl::init(""),
                                   cl::desc("a #qmm.config<...> forced on "
                                            "every matmul"),
                                   cl::cat(category));
static cl::opt<std::string> outDir(
    "o", cl::init(""),
    cl::desc("write <kernel>.hsaco for every kernel into this directory"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "qmm-compile: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "qmm-compile: qmm program -> code objects and "
                              "launch metadata (JSON on stdout)\n");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    return fail("cannot read '" + inputFile + "': " + file.getError().message());

  api::CompileOptions options;
  options.chip = chip;
  options.config = config;
  llvm::Expected<api::CompiledProgram> program =
      api::compile((*file)->getBuffer(), options, inputFile);
  if (!program)
    return fail(llvm::toString(program.takeError()));

  llvm::json::Array kernels;
  for (const api::Kernel &kernel : program->kernels) {
    const api::KernelResourceUsage &r = kernel.resources;
    llvm::json::Array arguments;
    for (const std::string &type : kernel.argumentTypes)
      arguments.push_back(type);
    kernels.push_back(llvm::json::Object{
        {"module", kernel.module},
        {"name", kernel.name},
        {"arguments", std::move(arguments)},
        {"code_object_bytes", int64_t(kernel.codeObject.size())},
        {"vgprs", r.vgprs},
        {"agprs", r.agprs},
        {"sgprs", r.sgprs},
        {"vgpr_spills", r.vgprSpills},
        {"lds_bytes", r.ldsBytes},
        {"scratch_bytes", r.scratchBytes},
        {"occupancy", r.occupancy}});
    if (!outDir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
        return fail("cannot create '" + outDir + "': " + ec.message());
      llvm::SmallString<128> path(outDir);
      llvm::sys::path::append(path, kernel.name + ".hsaco");
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return fail("cannot write '" + path + "': " + ec.message());
      os.write(reinterpret_cast<const char *>(kernel.codeObject.data()),
               kernel.codeObject.size());
    }
  }
  llvm::json::Array functions;
  for (const api::HostFunction &function : program->functions) {
    llvm::json::Array launches;
    for (const api::Launch &launch : function.launches) {
      llvm::json::Array arguments;
      for (const std::string &source : launch.arguments)
        arguments.push_back(source);
      launches.push_back(llvm::json::Object{
          {"kernel", program->kernels[launch.kernel].name},
          {"module", program->kernels[launch.kernel].module},
          {"grid", llvm::json::Array{launch.grid[0], launch.grid[1],
                                     launch.grid[2]}},
          {"grid_expressions",
           llvm::json::Array{launch.gridExpressions[0],
                             launch.gridExpressions[1],
                             launch.gridExpressions[2]}},
          {"block", llvm::json::Array{launch.block[0], launch.block[1],
                                      launch.block[2]}},
          {"arguments", std::move(arguments)},
          {"conditions", llvm::json::Array(launch.conditions)}});
    }
    llvm::json::Array args, results, temporaries;
    for (const api::Temporary &temporary : function.temporaries)
      temporaries.push_back(llvm::json::Object{
          {"type", temporary.type}, {"zeroed", temporary.zeroed}});
    for (const std::string &type : function.argumentTypes)
      args.push_back(type);
    for (const std::string &type : function.resultTypes)
      results.push_back(type);
    functions.push_back(llvm::json::Object{{"name", function.name},
                                           {"arguments", std::move(args)},
                                           {"results", std::move(results)},
                                           {"temporaries",
                                            std::move(temporaries)},
                                           {"launches", std::move(launches)}});
  }
  llvm::outs() << llvm::formatv(
                      "{0:2}",
                      llvm::json::Value(llvm::json::Object{
                          {"chip", program->chip},
                          {"kernels", std::move(kernels)},
                          {"functions", std::move(functions)}}))
               << "\n";
  return 0;
}
