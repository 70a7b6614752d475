//===- ModelMode.cpp - fp8-run --model: the performance model -------------===//
//
// Compiles the program, models each kernel it launches (qmm/PerfModel) and
// prints the prediction: alone with --model-only (no data, no execution),
// or after the run's report. Every figure is MODELED; with --device hip and
// --iters the measured time is printed next to it.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmm;
using namespace mlir::qmm::fp8run;

ModelRequest fp8run::parseModelRequest(const ChipInfo &chip, bool requested,
                                       llvm::StringRef deviceName, bool only,
                                       llvm::ArrayRef<std::string> params) {
  ModelRequest request;
  request.only = only;
  if (!requested && !only) {
    if (!params.empty())
      fail("--model-param needs --model or --model-only");
    return request;
  }
  llvm::Expected<const DeviceInfo *> device =
      perf::resolveDevice(chip, deviceName);
  if (!device)
    fail("--model: " + llvm::toString(device.takeError()));
  request.device = *device;
  request.params = perf::getDefaultParameters(*request.device);
  for (const std::string &assignment : params)
    if (llvm::Error error = perf::setParameter(request.params, assignment))
      fail("--model-param: " + llvm::toString(std::move(error)));
  return request;
}

llvm::json::Array
fp8run::modelJson(llvm::ArrayRef<perf::KernelPrediction> predictions) {
  llvm::json::Array array;
  for (const perf::KernelPrediction &p : predictions)
    array.push_back(p.toJson());
  return array;
}

void fp8run::printModel(llvm::ArrayRef<perf::KernelPrediction> predictions,
                        const RunResult *measured, llvm::StringRef device) {
  llvm::outs() << perf::formatPredictions(predictions);
  if (!measured || device != "hip" || measured->iterations == 0)
    return;
  double modeled = 0;
  for (const perf::KernelPrediction &p : predictions)
    modeled += p.seconds;
  llvm::outs() << llvm::formatv(
      "  measured on this GPU: {0:f1} us per call ({1} iterations) vs "
      "MODELED {2:f1} us (ratio {3:f2})\n",
      measured->secondsPerIteration * 1e6, measured->iterations,
      modeled * 1e6, measured->secondsPerIteration / modeled);
}
