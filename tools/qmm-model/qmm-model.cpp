//===- qmm-model.cpp - the performance model on any code object -----------===//
//
// Models a kernel of an AMDGPU code object (from this compiler, llvm-mc or
// anywhere else) for a launch the command line gives: the tool for
// checking the model on hand-written assembly and for calibrating its
// parameters against hardware. fp8-run --model does the same for the
// kernels of a qmm program, with the workload read from the IR.
//
// Exit codes: 0 modeled, 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "qmm/PerfModel/PerfModel.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir::qmm;
namespace cl = llvm::cl;

static cl::OptionCategory category("qmm-model options");
static cl::opt<bool> listDevices(
    "devices", cl::init(false),
    cl::desc("print every device's facts and peak TFLOP/s, then stop"),
    cl::cat(category));
static cl::opt<std::string> inputFile(cl::Positional, cl::init(""),
                                      cl::desc("<code object>"),
                                      cl::cat(category));
static cl::opt<std::string> deviceName(
    "device", cl::init("mi300x"),
    cl::desc("mi300x, mi325x or mi355x (the code object's chip must match)"),
    cl::cat(category));
static cl::opt<std::string> kernelName(
    "kernel", cl::init(""),
    cl::desc("the kernel to model (default: the only one)"),
    cl::cat(category));
static cl::opt<std::string> gridText("grid", cl::init("1,1,1"),
                                     cl::desc("workgroups X,Y,Z"),
                                     cl::cat(category));
static cl::opt<std::string> blockText("block", cl::init("64,1,1"),
                                      cl::desc("threads per workgroup X,Y,Z"),
                                      cl::cat(category));
static cl::opt<int64_t> trips("trips", cl::init(0),
                              cl::desc("trips of the main loop per workgroup"),
                              cl::cat(category));
static cl::opt<double> share(
    "conditional-share", cl::init(1.0),
    cl::desc("share of trips that run the loop's conditional blocks"),
    cl::cat(category));
static cl::opt<double> flops("flops", cl::init(0),
                             cl::desc("useful FLOP of the launch (default: "
                                      "the MFMAs' FLOP)"),
                             cl::cat(category));
static cl::opt<int64_t> bytes("bytes", cl::init(0),
                              cl::desc("compulsory bytes the launch reads "
                                       "and writes"),
                              cl::cat(category));
static cl::opt<std::string> problem(
    "problem", cl::init(""),
    cl::desc("the GEMM M,N,K the launch computes: useful FLOP, compulsory "
             "bytes (bf16 output) and each workgroup's A/B panels, for L1 "
             "and L2 reuse (tiles from the grid: N/gx x M/gy, or square when "
             "the grid is 1-D)"),
    cl::cat(category));
static cl::opt<std::string> tiles(
    "tiles", cl::init(""),
    cl::desc("a workgroup's tile M,N and its A and B panel bytes (K "
             "included): M,N,A,B (instead of what --problem derives)"),
    cl::cat(category));
static cl::opt<double> ldsConflicts(
    "lds-conflicts", cl::init(0),
    cl::desc("LDS bank-conflict cycles per wave and IR trip where the "
             "code's addresses are not known (fp8-run passes the compiler's "
             "estimate)"),
    cl::cat(category));
static cl::opt<int64_t> mfmasPerTrip(
    "mfmas-per-trip", cl::init(0),
    cl::desc("MFMAs one IR trip issues per wave (with --trips as IR trips: "
             "the disassembled loop's trips follow when LLVM unrolled it)"),
    cl::cat(category));
static cl::opt<std::string> bits("operand-bits", cl::init("8,8"),
                                 cl::desc("A,B operand widths for the peak"),
                                 cl::cat(category));
static cl::list<std::string> params(
    "model-param", cl::desc("override a model parameter: NAME=VALUE"),
    cl::cat(category));
static cl::list<std::string> sweeps(
    "sweep",
    cl::desc("with --json: also model the kernel at each value of a "
             "parameter, the others as given: NAME=V1,V2,... (repeatable; "
             "one process for a whole sweep)"),
    cl::cat(category));
static cl::opt<bool> json("json", cl::init(false),
                          cl::desc("print the prediction as JSON"),
                          cl::cat(category));
static cl::opt<bool> listInstructions(
    "list", cl::init(false),
    cl::desc("print the kernel's instructions with their class"),
    cl::cat(category));

[[noreturn]] static void fail(const llvm::Twine &message) {
  llvm::errs() << "qmm-model: error: " << message << "\n";
  exit(2);
}

/// A double option's value as the user would have written it (nan, inf, 2).
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

static std::array<int64_t, 3> parseTriple(llvm::StringRef flag,
                                          llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 3> parts;
  text.split(parts, ',');
  std::array<int64_t, 3> result = {1, 1, 1};
  if (parts.empty() || parts.size() > 3)
    fail("--" + flag + ": expected X[,Y[,Z]], got '" + text + "'");
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(10, result[i]) || result[i] <= 0)
      fail("--" + flag + ": expected positive integers, got '" + text + "'");
  return result;
}

static const char *className(perf::InstructionClass kind) {
  using perf::InstructionClass;
  switch (kind) {
  case InstructionClass::MFMA: return "mfma";
  case InstructionClass::VALU: return "valu";
  case InstructionClass::SALU: return "salu";
  case InstructionClass::LDS: return "lds";
  case InstructionClass::GlobalLoad: return "gload";
  case InstructionClass::GlobalStore: return "gstore";
  case InstructionClass::ScalarLoad: return "sload";
  case InstructionClass::WaitCount: return "wait";
  case InstructionClass::Barrier: return "barrier";
  case InstructionClass::Branch: return "branch";
  case InstructionClass::Nop: return "nop";
  case InstructionClass::Other: return "other";
  }
  return "?";
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "qmm-model: the performance model (MODELED figures) of a kernel in an "
      "AMDGPU code object\n");
  if (listDevices) {
    // Peak = FLOP per CU and clock of the best MFMA (4 SIMDs busy) x CUs x
    // peak clock, for the operand widths each chip's MFMAs read.
    for (const DeviceInfo &d : getSupportedDevices()) {
      llvm::outs() << llvm::formatv("{0} ({1}, {2}): {3} CUs, {4} XCDs, "
                                    "{5:f1} GHz peak",
                                    d.name, d.product, d.chip, d.computeUnits,
                                    d.xcds, d.peakClockGHz);
      for (auto [label, bitsA, bitsB] :
           {std::tuple("FP8", 8, 8), std::tuple("FP6", 6, 6),
            std::tuple("FP4", 4, 4), std::tuple("BF16", 16, 16)}) {
        int64_t perClock = d.getChip().getPeakFlopsPerClock(bitsA, bitsB);
        if (perClock)
          llvm::outs() << llvm::formatv(", {0} {1} FLOP/CU/clk = {2:f0} "
                                        "TFLOP/s",
                                        label, perClock,
                                        d.getPeakTflops(bitsA, bitsB));
      }
      llvm::outs() << "\n";
    }
    return 0;
  }
  if (inputFile.empty())
    fail("no code object given (or --devices)");
  const DeviceInfo *device = lookupDevice(deviceName);
  if (!device)
    fail("--device: unknown device '" + deviceName + "' (expected " +
         getSupportedDeviceNames() + ")");
  perf::ModelParameters parameters = perf::getDefaultParameters(*device);
  for (const std::string &assignment : params)
    if (llvm::Error error = perf::setParameter(parameters, assignment))
      fail("--model-param: " + llvm::toString(std::move(error)));
  // The parser takes "nan" and "inf" (and 1e400 as inf) for a double: the
  // comparisons are written so that NaN fails them (a NaN share kept the
  // loop simulator from ever finishing).
  if (!(share >= 0 && share <= 1))
    fail("--conditional-share: expected a share in [0, 1], got " +
         formatNumber(share));
  if (!(flops >= 0) || !std::isfinite(flops))
    fail("--flops: expected a finite number >= 0, got " + formatNumber(flops));
  if (trips < 0 || bytes < 0)
    fail("--trips and --bytes must not be negative");

  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    fail("cannot read '" + inputFile + "': " + file.getError().message());
  auto kernels =
      perf::disassembleCodeObject((*file)->getBuffer(), device->getChip());
  if (!kernels)
    fail(inputFile + ": " + llvm::toString(kernels.takeError()));
  const perf::DisassembledKernel *kernel = nullptr;
  for (const perf::DisassembledKernel &k : *kernels)
    if (kernelName.empty() ? kernels->size() == 1 : k.name == kernelName)
      kernel = &k;
  if (!kernel) {
    std::string names;
    for (const perf::DisassembledKernel &k : *kernels)
      names += " " + k.name;
    fail("--kernel: name one of the kernels:" + names);
  }

  if (listInstructions)
    for (const perf::Instruction &inst : kernel->instructions)
      llvm::outs() << llvm::format("%6llx %-7s ", inst.address,
                                   className(inst.kind))
                   << inst.text << "\n";

  perf::KernelWorkload workload;
  workload.grid = parseTriple("grid", gridText);
  workload.block = parseTriple("block", blockText);
  workload.loopTrips = trips;
  workload.conditionalShare = share;
  workload.usefulFlops = flops;
  workload.compulsoryBytes = bytes;
  auto widths = parseTriple("operand-bits", bits);
  // Narrowed to int below: a width past 64 bits is no operand's.
  if (widths[0] > 64 || widths[1] > 64)
    fail("--operand-bits: expected widths of at most 64 bits, got '" + bits +
         "'");
  workload.aBits = int(widths[0]);
  workload.bBits = int(widths[1]);
  if (!(ldsConflicts >= 0) || !std::isfinite(ldsConflicts))
    fail("--lds-conflicts: expected a finite number >= 0, got " +
         formatNumber(ldsConflicts));
  if (mfmasPerTrip < 0)
    fail("--mfmas-per-trip must not be negative");
  workload.ldsConflictCyclesPerTrip = ldsConflicts;
  workload.mfmasPerTrip = mfmasPerTrip;
  if (!problem.empty()) {
    if (llvm::count(problem.getValue(), ',') != 2)
      fail("--problem: expected M,N,K, got '" + problem + "'");
    auto mnk = parseTriple("problem", problem);
    int64_t m = mnk[0], n = mnk[1], k = mnk[2];
    int64_t workgroups = workload.grid[0] * workload.grid[1] *
                         workload.grid[2];
    if (workload.grid[1] > 1 || workload.grid[0] == 1) {
      workload.tileN = (n + workload.grid[0] - 1) / workload.grid[0];
      workload.tileM = (m + workload.grid[1] - 1) / workload.grid[1];
    } else {
      // A 1-D grid over the tiles: square tiles of the same area.
      double side = std::sqrt(double(m) * double(n) / double(workgroups));
      workload.tileM = workload.tileN = std::max<int64_t>(1, std::llround(side));
    }
    workload.aPanelBytes = workload.tileM * k * workload.aBits / 8;
    workload.bPanelBytes = workload.tileN * k * workload.bBits / 8;
    if (workload.usefulFlops == 0)
      workload.usefulFlops = 2.0 * double(m) * double(n) * double(k);
    if (workload.compulsoryBytes == 0)
      workload.compulsoryBytes = m * k * workload.aBits / 8 +
                                 n * k * workload.bBits / 8 + 2 * m * n;
  }
  if (!tiles.empty()) {
    llvm::SmallVector<llvm::StringRef, 4> parts;
    llvm::StringRef(tiles).split(parts, ',');
    int64_t values[4];
    if (parts.size() != 4 ||
        llvm::any_of(llvm::seq<size_t>(0, 4), [&](size_t i) {
          return parts[i].trim().getAsInteger(10, values[i]) || values[i] <= 0;
        }))
      fail("--tiles: expected four positive integers M,N,A,B, got '" + tiles +
           "'");
    workload.tileM = values[0];
    workload.tileN = values[1];
    workload.aPanelBytes = values[2];
    workload.bPanelBytes = values[3];
  }
  auto prediction =
      perf::modelKernel(*kernel, workload, *device, parameters);
  if (!prediction)
    fail(llvm::toString(prediction.takeError()));
  if (!sweeps.empty()) {
    if (!json)
      fail("--sweep needs --json");
    // {"defaults": the prediction as given, "sweeps": one per value}.
    llvm::json::Array points;
    for (llvm::StringRef sweep : sweeps) {
      auto [name, values] = sweep.split('=');
      if (name.empty() || values.empty())
        fail("--sweep: expected NAME=V1,V2,..., got '" + sweep + "'");
      llvm::SmallVector<llvm::StringRef, 8> list;
      values.split(list, ',');
      for (llvm::StringRef value : list) {
        perf::ModelParameters swept = parameters;
        if (llvm::Error error =
                perf::setParameter(swept, (name + "=" + value).str()))
          fail("--sweep: " + llvm::toString(std::move(error)));
        auto point = perf::modelKernel(*kernel, workload, *device, swept);
        if (!point)
          fail(llvm::toString(point.takeError()));
        points.push_back(llvm::json::Object{{"parameter", name},
                                            {"value", value},
                                            {"prediction", point->toJson()}});
      }
    }
    llvm::outs() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"defaults", prediction->toJson()},
                       {"sweeps", std::move(points)}}));
    return 0;
  }
  if (json)
    llvm::outs() << llvm::formatv("{0:2}\n", llvm::json::Value(
                                                prediction->toJson()));
  else
    llvm::outs() << prediction->format();
  return 0;
}
