//===- QMMModule.cpp - Python bindings of the qmm compiler ----------------===//
//
// The C++ pieces behind the `qmm` Python package: GEMM IR builders, the
// embedding API's compile(), the devices' run(), the performance model's
// model() (MODELED figures, no execution), and the host quantizer.
// Arrays cross the boundary as they are stored in fp8-run's .npy files:
// f32 (and f16/bf16 values) as float32, 8-bit formats as uint8 bit
// patterns, FP4/FP6 packed along the last dimension into uint8, i32 as
// int32. Every error is raised as a Python exception carrying the
// compiler's message.
//
//===----------------------------------------------------------------------===//

#include "qmm/API/Compiler.h"
#include "qmm/Conversion/Passes.h"
#include "qmm/Dialect/QMM/IR/QMMFormats.h"
#include "qmm/PerfModel/PerfModel.h"
#include "qmm/Pipelines/Pipelines.h"
#include "qmm/Runtime/Device.h"
#include "qmm/Runtime/GemmLimits.h"
#include "qmm/Runtime/GemmProgram.h"
#include "qmm/Runtime/HostQuantizer.h"
#include "qmm/Runtime/HostTensor.h"
#include "qmm/Runtime/LaunchPlan.h"
#include "qmm/Support/NestingLimit.h"
#include "qmm/Target/Chip.h"
#include "qmm/Target/NvidiaChip.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstring>
#include <optional>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::qmm;

//===----------------------------------------------------------------------===//
// Context, errors, arrays
//===----------------------------------------------------------------------===//

/// One context for every IR the module builds or parses.
static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    api::registerDialects(registry);
    auto *ctx = new MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    api::registerPasses();
    return ctx;
  }();
  return *context;
}

[[noreturn]] static void raiseValueError(const std::string &message) {
  throw py::value_error(message);
}

template <typename T> static T orRaise(llvm::Expected<T> value) {
  if (!value)
    throw std::runtime_error(llvm::toString(value.takeError()));
  return std::move(*value);
}

/// Collects error diagnostics while it lives.
struct DiagnosticCapture {
  std::string text;
  ScopedDiagnosticHandler handler{&getContext(), [this](Diagnostic &diag) {
                                    if (diag.getSeverity() ==
                                        DiagnosticSeverity::Error) {
                                      llvm::raw_string_ostream os(text);
                                      os << diag.str() << "\n";
                                    }
                                    return success();
                                  }};
};

/// A missed-optimization remark: where, in which function, and why.
struct MissedRemark {
  std::string function;
  unsigned line = 0, column = 0;
  std::string reason;
};

/// Collects the remarks a pass emits (a remark streamer of its own: the
/// remarks reach Python as data, not as printed diagnostics).
class RemarkCollector : public remark::detail::MLIRRemarkStreamerBase {
public:
  explicit RemarkCollector(std::vector<MissedRemark> &remarks)
      : remarks(remarks) {}

  void streamOptimizationRemark(const remark::detail::Remark &remark) override {
    MissedRemark missed;
    missed.function = remark.getFunction().str();
    if (auto position = dyn_cast<FileLineColLoc>(remark.getLocation())) {
      missed.line = position.getLine();
      missed.column = position.getColumn();
    }
    for (const remark::detail::Remark::Arg &arg : remark.getArgs())
      if (arg.key == "Remark")
        missed.reason += arg.val;
    remarks.push_back(std::move(missed));
  }

private:
  std::vector<MissedRemark> &remarks;
};

static Type parseTypeName(const std::string &name, const char *what) {
  DiagnosticCapture capture;
  Type type;
  if (succeeded(checkNestingDepth(name, what, &getContext())))
    type = parseType(name, &getContext(), nullptr,
                     /*isKnownNullTerminated=*/false);
  if (!type)
    raiseValueError(std::string(what) + ": '" + name + "' is not an MLIR type");
  return type;
}

static Type parseQuantizedType(const std::string &name, const char *what) {
  Type type = parseTypeName(name, what);
  if (!isQuantizedElementType(type))
    raiseValueError(std::string(what) + ": " + name +
                    " is not a quantized type (expected " +
                    getQuantizedElementTypeList() + ")");
  return type;
}

/// The runtime's element type of a program's argument or result.
static ElementType getRuntimeElementType(Type type, const std::string &what) {
  std::optional<ElementType> elementType = getElementType(type);
  if (!elementType)
    raiseValueError(what + ": element type " + getTypeName(type) +
                    " is not supported by the runtime");
  return *elementType;
}

static ScaleEncodingAttr parseScale(const std::string &text, bool mnMajor,
                                    const char *what) {
  llvm::Expected<ScaleEncodingAttr> encoding =
      parseScaleSpec(&getContext(), text, mnMajor);
  if (!encoding)
    raiseValueError(std::string(what) + ": " +
                    llvm::toString(encoding.takeError()));
  return *encoding;
}

static OperandLayout parseLayout(const std::string &text) {
  if (text == "nk")
    return OperandLayout::NK;
  if (text == "kn")
    return OperandLayout::KN;
  raiseValueError("layout: expected 'nk' or 'kn', got '" + text + "'");
}

static ScaleRounding parseRounding(const std::optional<std::string> &text,
                                   ScaleEncodingAttr encoding) {
  if (!text)
    return getDefaultScaleRounding(encoding);
  std::optional<ScaleRounding> rounding = symbolizeScaleRounding(*text);
  if (!rounding)
    raiseValueError("rounding: expected none, pow2_floor or pow2_ceil, got '" +
                    *text + "'");
  if (*rounding == ScaleRounding::None &&
      isa<Float8E8M0FNUType>(encoding.getScaleType()))
    raiseValueError("rounding none cannot produce E8M0 (mx32) scales");
  return *rounding;
}

static float defaultMinAmax(ScaleRounding rounding,
                            std::optional<float> minAmax) {
  if (minAmax) {
    if (!(*minAmax >= 0.0f) || !std::isfinite(*minAmax))
      raiseValueError("min_amax must be finite and non-negative");
    if (*minAmax == 0.0f && rounding != ScaleRounding::Pow2Floor)
      raiseValueError("min_amax 0 needs rounding pow2_floor");
    return *minAmax;
  }
  return getDefaultMinAmax(rounding);
}

/// A numpy array as a .npy payload (C order, its own dtype).
static host::NpyArray toNpyArray(const py::array &input) {
  py::array array = py::array::ensure(input, py::array::c_style);
  if (!array)
    raiseValueError("expected a numpy array");
  host::NpyArray npy;
  npy.descr = py::str(array.dtype().attr("str")).cast<std::string>();
  for (py::ssize_t d = 0; d < array.ndim(); ++d)
    npy.shape.push_back(array.shape(d));
  const auto *data = static_cast<const uint8_t *>(array.data());
  npy.bytes.assign(data, data + array.nbytes());
  return npy;
}

static py::array toNumpy(const host::HostTensor &tensor) {
  host::NpyArray npy = host::toNpyArray(tensor);
  std::vector<py::ssize_t> shape(npy.shape.begin(), npy.shape.end());
  py::array array(py::dtype(npy.descr), shape);
  std::memcpy(array.mutable_data(), npy.bytes.data(), npy.bytes.size());
  return array;
}

static host::HostTensor toHostTensor(const py::array &array,
                                     ElementType elementType,
                                     llvm::ArrayRef<int64_t> shape,
                                     const std::string &what) {
  llvm::Expected<host::HostTensor> tensor =
      host::fromNpyArray(toNpyArray(array), elementType, shape);
  if (!tensor)
    raiseValueError(what + ": " + llvm::toString(tensor.takeError()));
  return std::move(*tensor);
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Quantizer
//===----------------------------------------------------------------------===//

static OperandSpec makeOperand(const std::string &type, const std::string &scale,
                               const std::string &layout, bool mnMajor) {
  return {parseQuantizedType(type, "element_type"),
          parseScale(scale, mnMajor, "scale"), parseLayout(layout)};
}

/// (rows, K) of an operand stored with `shape` in `layout`.
static std::pair<int64_t, int64_t> logicalExtents(const OperandSpec &operand,
                                                  llvm::ArrayRef<int64_t> shape) {
  if (shape.size() != 2)
    raiseValueError("expected a 2-D array");
  return operand.layout == OperandLayout::NK
             ? std::make_pair(shape[0], shape[1])
             : std::make_pair(shape[1], shape[0]);
}

static py::tuple quantize(const py::array_t<float, py::array::c_style |
                                                       py::array::forcecast> &x,
                          const std::string &elementType,
                          const std::string &scale, const std::string &layout,
                          std::optional<std::string> rounding,
                          std::optional<float> minAmax, bool mnMajor) {
  OperandSpec operand = makeOperand(elementType, scale, layout, mnMajor);
  std::vector<int64_t> shape(x.shape(), x.shape() + x.ndim());
  auto [rows, k] = logicalExtents(operand, shape);
  ScaleRounding rule = parseRounding(rounding, operand.encoding);
  float floor = defaultMinAmax(rule, minAmax);
  if (operand.encoding.isMX() && k % 32 != 0)
    raiseValueError("mx32 scales need K to be a multiple of 32, got " +
                    std::to_string(k));
  llvm::ArrayRef<float> values(x.data(), x.size());
  host::QuantizedOperand quantized =
      host::quantize(values, operand, rows, k, rule, floor);
  return py::make_tuple(toNumpy(quantized.data), toNumpy(quantized.scales));
}

static py::array dequantize(const py::array &codes, const py::array &scales,
                            const std::string &elementType,
                            const std::string &scale, int64_t rows, int64_t k,
                            const std::string &layout, bool mnMajor) {
  OperandSpec operand = makeOperand(elementType, scale, layout, mnMajor);
  host::HostTensor data =
      toHostTensor(codes, toElementType(operand.elementType),
                   operand.getDataShape(rows, k), "codes");
  host::HostTensor scaleTensor =
      toHostTensor(scales, toElementType(operand.encoding.getScaleType()),
                   operand.getScaleShape(rows, k), "scales");
  std::vector<double> values =
      host::dequantize(data, scaleTensor, operand, rows, k);
  py::array_t<double> result({rows, k});
  std::memcpy(result.mutable_data(), values.data(),
              values.size() * sizeof(double));
  return result;
}

static py::array decode(const py::array &codes, const std::string &elementType,
                        std::vector<int64_t> shape) {
  Type type = parseQuantizedType(elementType, "element_type");
  host::HostTensor data =
      toHostTensor(codes, toElementType(type), shape, "codes");
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array_t<double> result(dims);
  double *out = result.mutable_data();
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    out[i] = data.getValue(i);
  return result;
}

//===----------------------------------------------------------------------===//
// GEMM IR
//===----------------------------------------------------------------------===//

static Type parseFloatName(const std::optional<std::string> &name,
                           const char *what) {
  if (!name)
    return {};
  Type type = parseTypeName(*name, what);
  if (!type.isF32() && !type.isBF16() && !type.isF16())
    raiseValueError(std::string(what) + ": expected f32, bf16 or f16, got " +
                    *name);
  return type;
}

static GemmSpec makeGemmSpec(int64_t m, int64_t n, int64_t k,
                             const std::string &aType, const std::string &bType,
                             const std::string &aScale,
                             const std::string &bScale,
                             const std::string &outType,
                             const std::string &bLayout, bool accumulate,
                             const std::optional<std::string> &bias,
                             const std::optional<std::string> &activation,
                             const std::optional<std::string> &aux,
                             const std::optional<std::string> &outScale,
                             const std::optional<std::string> &outRounding,
                             const std::string &function) {
  // m = -1: a dynamic M (one program for every M).
  if ((m <= 0 && m != -1) || n <= 0 || k <= 0)
    raiseValueError("m, n and k must be positive (m = None: dynamic)");
  GemmSpec spec;
  spec.m = m == -1 ? ShapedType::kDynamic : m;
  spec.n = n;
  spec.k = k;
  spec.a = {parseQuantizedType(aType, "a_type"),
            parseScale(aScale, false, "a_scale"), OperandLayout::NK};
  spec.b = {parseQuantizedType(bType, "b_type"),
            parseScale(bScale, false, "b_scale"), parseLayout(bLayout)};
  spec.outputType = parseTypeName(outType, "out_type");
  spec.accumulate = accumulate;
  spec.biasType = parseFloatName(bias, "bias");
  if (activation) {
    std::optional<Activation> kind = symbolizeActivation(*activation);
    if (!kind)
      raiseValueError("activation: expected gelu_tanh or gelu_erf, got '" +
                      *activation + "'");
    spec.activation = *kind;
  }
  spec.auxType = parseFloatName(aux, "aux");
  if (outScale) {
    spec.outEncoding = parseScale(*outScale, false, "out_scale");
    spec.outRounding = parseRounding(outRounding, spec.outEncoding);
    spec.outMinAmax = defaultMinAmax(spec.outRounding, std::nullopt);
  }
  spec.functionName = function;
  return spec;
}

/// Verifies a built module; raises with the verifier's diagnostics.
static void verifyOrRaise(ModuleOp module, DiagnosticCapture &capture) {
  if (failed(verify(module)))
    raiseValueError("invalid GEMM: " +
                    llvm::StringRef(capture.text).rtrim().str());
}

//===----------------------------------------------------------------------===//
// Compile and run
//===----------------------------------------------------------------------===//

static py::dict compile(const std::string &ir, const std::string &chip,
                        const std::string &config) {
  api::CompileOptions options;
  options.chip = chip;
  options.config = config;
  api::CompiledProgram program =
      orRaise(api::compile(ir, options, "<python>"));
  py::list kernels;
  for (const api::Kernel &kernel : program.kernels) {
    py::dict entry;
    entry["module"] = kernel.module;
    entry["name"] = kernel.name;
    entry["arguments"] = kernel.argumentTypes;
    entry["code_object"] =
        py::bytes(reinterpret_cast<const char *>(kernel.codeObject.data()),
                  kernel.codeObject.size());
    const api::KernelResourceUsage &r = kernel.resources;
    py::dict resources;
    resources["vgprs"] = r.vgprs;
    resources["agprs"] = r.agprs;
    resources["sgprs"] = r.sgprs;
    resources["vgpr_spills"] = r.vgprSpills;
    resources["sgpr_spills"] = r.sgprSpills;
    resources["lds_bytes"] = r.ldsBytes;
    resources["scratch_bytes"] = r.scratchBytes;
    resources["occupancy"] = r.occupancy;
    entry["resources"] = resources;
    kernels.append(entry);
  }
  py::list functions;
  for (const api::HostFunction &function : program.functions) {
    py::list launches;
    for (const api::Launch &launch : function.launches) {
      py::dict entry;
      entry["kernel"] = program.kernels[launch.kernel].name;
      entry["module"] = program.kernels[launch.kernel].module;
      entry["grid"] = py::make_tuple(launch.grid[0], launch.grid[1],
                                     launch.grid[2]);
      entry["grid_expressions"] =
          py::make_tuple(launch.gridExpressions[0], launch.gridExpressions[1],
                         launch.gridExpressions[2]);
      entry["block"] = py::make_tuple(launch.block[0], launch.block[1],
                                      launch.block[2]);
      entry["arguments"] = launch.arguments;
      entry["conditions"] = launch.conditions;
      launches.append(entry);
    }
    py::dict entry;
    entry["name"] = function.name;
    entry["arguments"] = function.argumentTypes;
    entry["results"] = function.resultTypes;
    py::list temporaries;
    for (const api::Temporary &temporary : function.temporaries) {
      py::dict t;
      t["type"] = temporary.type;
      t["zeroed"] = temporary.zeroed;
      temporaries.append(t);
    }
    entry["temporaries"] = temporaries;
    entry["launches"] = launches;
    functions.append(entry);
  }
  py::dict result;
  result["chip"] = program.chip;
  result["kernels"] = kernels;
  result["functions"] = functions;
  result["gpu_ir"] = program.gpuIR;
  return result;
}

/// Parses a qmm program; ValueError with the parser's message otherwise.
static OwningOpRef<ModuleOp> parseProgram(const std::string &ir) {
  DiagnosticCapture capture;
  OwningOpRef<ModuleOp> module =
      parseModuleWithinLimits(ir, &getContext(), "<python>");
  if (!module)
    raiseValueError("cannot parse the program: " +
                    llvm::StringRef(capture.text).rtrim().str());
  return module;
}

/// The extents of argument `i` of `type` for `array`: a dynamic extent is
/// the array's (not the last of packed FP4/FP6 rows, whose arrays hold
/// bytes there).
static std::vector<int64_t> resolveExtents(ShapedType type,
                                           const py::array &array,
                                           const std::string &what) {
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  bool packed = type.getElementType().getIntOrFloatBitWidth() < 8;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    if ((packed && d + 1 == shape.size()) ||
        size_t(array.ndim()) != shape.size())
      raiseValueError(what + ": the array must have the tensor's rank (and "
                             "packed FP4/FP6 rows a static length)");
    shape[d] = array.shape(d);
  }
  return shape;
}

/// Function `function` of `module`, defined, of ranked tensor arguments;
/// ValueError otherwise.
static func::FuncOp lookupFunction(ModuleOp module,
                                   const std::string &function) {
  auto func = module.lookupSymbol<func::FuncOp>(function);
  if (!func || func.isExternal())
    raiseValueError("the program has no function @" + function);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!isa<RankedTensorType>(type))
      raiseValueError("argument " + std::to_string(i) +
                      " is not a ranked tensor");
  return func;
}

/// A function of a program, compiled once for a device, called many times
/// (with any M where the program's M is dynamic).
class Program {
public:
  Program(const std::string &ir, const std::string &function,
          const std::string &deviceName, const std::string &chip,
          const std::string &config)
      : function(function) {
    if (!lookupChip(chip))
      raiseValueError("unknown chip '" + chip + "' (expected " +
                      getSupportedChipNames() + ")");
    module = parseProgram(ir);
    func = lookupFunction(*module, function);
    device = orRaise(createDevice(deviceName, chip, config));
    py::gil_scoped_release release;
    llvm::Expected<std::unique_ptr<CompiledProgram>> compiled =
        device->compile(*module, function, func.getNumArguments(),
                        func.getNumResults());
    if (!compiled) {
      py::gil_scoped_acquire acquire;
      throw std::runtime_error(llvm::toString(compiled.takeError()));
    }
    program = std::move(*compiled);
  }

  /// (results, device name, seconds per call over `iterations`). `names`
  /// (the caller's names of the arguments, or none) go into the messages
  /// about them.
  py::tuple call(const std::vector<py::array> &args, int iterations,
                 const std::vector<std::string> &names) {
    if (iterations < 0)
      raiseValueError("iterations must be non-negative");
    if (func.getNumArguments() != args.size())
      raiseValueError("@" + function + " takes " +
                      std::to_string(func.getNumArguments()) +
                      " arguments, got " + std::to_string(args.size()));
    if (!names.empty() && names.size() != args.size())
      raiseValueError("expected a name for each of the " +
                      std::to_string(args.size()) + " arguments");
    std::vector<host::HostTensor> tensors;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto shaped = cast<ShapedType>(type);
      std::string what =
          "argument " + std::to_string(i) + " (" + getTypeName(type) + ")";
      if (!names.empty())
        what = names[i] + ", " + what;
      tensors.push_back(toHostTensor(
          args[i], getRuntimeElementType(shaped.getElementType(), what),
          resolveExtents(shaped, args[i], what), what));
    }
    // Dynamic result extents are the program's (the host program knows).
    std::vector<TensorSpec> results;
    for (Type type : func.getResultTypes()) {
      auto shaped = cast<ShapedType>(type);
      results.push_back({getRuntimeElementType(shaped.getElementType(),
                                               "result (" + getTypeName(type) +
                                                   ")"),
                         std::vector<int64_t>(shaped.getShape().begin(),
                                              shaped.getShape().end())});
    }
    llvm::SmallVector<const host::HostTensor *> pointers;
    for (const host::HostTensor &tensor : tensors)
      pointers.push_back(&tensor);
    RunResult result;
    {
      // The devices run the compiled code without the GIL.
      py::gil_scoped_release release;
      llvm::Expected<RunResult> ran =
          program->run(pointers, results, iterations);
      if (!ran) {
        py::gil_scoped_acquire acquire;
        throw std::runtime_error(llvm::toString(ran.takeError()));
      }
      result = std::move(*ran);
    }
    py::list outputs;
    for (const host::HostTensor &tensor : result.results)
      outputs.append(toNumpy(tensor));
    return py::make_tuple(outputs, device->getName().str(),
                          result.secondsPerIteration);
  }

private:
  std::string function;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::unique_ptr<Device> device;
  std::unique_ptr<CompiledProgram> program;
};

static py::tuple run(const std::string &ir, const std::string &function,
                     const std::vector<py::array> &args,
                     const std::string &deviceName, const std::string &chip,
                     const std::string &config, int iterations) {
  if (iterations < 0)
    raiseValueError("iterations must be non-negative");
  return Program(ir, function, deviceName, chip, config)
      .call(args, iterations, {});
}

//===----------------------------------------------------------------------===//
// Performance model
//===----------------------------------------------------------------------===//

/// "name=value" assignments from a dict {name: number} or a sequence of
/// "name=value" strings (None: none).
static std::vector<std::string> parameterAssignments(const py::object &params) {
  std::vector<std::string> assignments;
  if (params.is_none())
    return assignments;
  if (py::isinstance<py::dict>(params)) {
    for (auto [name, value] : params.cast<py::dict>()) {
      if (!py::isinstance<py::str>(name))
        raiseValueError("params: parameter names must be strings");
      double number;
      try {
        number = py::float_(py::reinterpret_borrow<py::object>(value));
      } catch (py::error_already_set &) {
        raiseValueError("params: the value of '" + name.cast<std::string>() +
                        "' is not a number");
      }
      char text[64];
      std::snprintf(text, sizeof(text), "%.17g", number);
      assignments.push_back(name.cast<std::string>() + "=" + text);
    }
    return assignments;
  }
  if (py::isinstance<py::str>(params))
    return {params.cast<std::string>()};
  try {
    return params.cast<std::vector<std::string>>();
  } catch (py::cast_error &) {
    raiseValueError("params: expected a dict {name: number} or a list of "
                    "'name=value' strings");
  }
}

/// Models every kernel the program launches; returns the predictions as a
/// JSON array (KernelPrediction::toJson, one object per kernel).
static std::string model(const std::string &ir, const std::string &chipName,
                         const std::string &deviceName,
                         const std::string &config, const py::object &params,
                         std::optional<int64_t> m) {
  if (m && *m <= 0)
    raiseValueError("m must be positive");
  const ChipInfo *chip = lookupChip(chipName);
  if (!chip)
    raiseValueError("unknown chip '" + chipName + "' (expected " +
                    getSupportedChipNames() + ")");
  llvm::Expected<const DeviceInfo *> resolved =
      perf::resolveDevice(*chip, deviceName);
  if (!resolved)
    raiseValueError(llvm::toString(resolved.takeError()));
  const DeviceInfo *device = *resolved;
  perf::ModelParameters parameters = perf::getDefaultParameters(*device);
  for (const std::string &assignment : parameterAssignments(params))
    if (llvm::Error error = perf::setParameter(parameters, assignment))
      raiseValueError("params: " + llvm::toString(std::move(error)));
  OwningOpRef<ModuleOp> module = parseProgram(ir);
  std::vector<perf::KernelPrediction> predictions = orRaise(
      perf::modelQMMProgram(*module, *chip, *device, parameters, config, m));
  llvm::json::Array array;
  for (const perf::KernelPrediction &prediction : predictions)
    array.push_back(prediction.toJson());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(array));
  return text;
}

//===----------------------------------------------------------------------===//
// NVIDIA launch plans
//===----------------------------------------------------------------------===//

/// A function of a program compiled once for an NVIDIA chip (the NVVM
/// pipeline); save() records its launches on given arguments as a launch
/// plan for qmm-cuda-run on a GPU of the chip (no GPU here). A run-time M
/// takes each call's arguments' extents: one compilation, a plan per M.
class NvidiaProgram {
public:
  NvidiaProgram(const std::string &ir, const std::string &function,
                const std::string &chip)
      : function(function) {
    if (!lookupNvidiaChip(chip))
      raiseValueError("unknown NVIDIA chip '" + chip + "' (expected " +
                      getSupportedNvidiaChipNames() + ")");
    module = parseProgram(ir);
    func = lookupFunction(*module, function);
    options.chip = chip;
    options.format = "gpu";
    lowered = module->clone();
    DiagnosticCapture capture;
    if (llvm::Error error = runNVVMPipeline(*lowered, options))
      throw std::runtime_error("compiling for " + chip + " failed: " +
                               llvm::toString(std::move(error)));
    options.format = "ptx";
  }

  /// Records the launches on `args` (with their data, or with
  /// `with_data` false, the runner's random fills of their types) into
  /// `directory`; returns what the plan holds. The function's results are
  /// outputs (poisoned before the run, saved by --save-outputs) unless
  /// `results_read`: then their initial contents travel (C accumulated
  /// into).
  py::dict save(const std::vector<py::array> &args,
                const std::string &directory, bool withData,
                bool resultsRead) {
    if (func.getNumArguments() != args.size())
      raiseValueError("@" + function + " takes " +
                      std::to_string(func.getNumArguments()) +
                      " arguments, got " + std::to_string(args.size()));
    std::vector<host::HostTensor> tensors;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto shaped = cast<ShapedType>(type);
      std::string what =
          "argument " + std::to_string(i) + " (" + getTypeName(type) + ")";
      tensors.push_back(toHostTensor(
          args[i], getRuntimeElementType(shaped.getElementType(), what),
          resolveExtents(shaped, args[i], what), what));
    }
    llvm::SmallVector<const host::HostTensor *> pointers;
    for (const host::HostTensor &tensor : tensors)
      pointers.push_back(&tensor);
    LaunchPlan plan = orRaise(
        recordLaunchPlan(*lowered, function, pointers, options, withData));
    if (!resultsRead)
      for (size_t result : plan.results) {
        plan.buffers[result].fill = "poison";
        plan.buffers[result].data.clear();
      }
    if (llvm::Error error = writeLaunchPlan(plan, directory))
      throw std::runtime_error(llvm::toString(std::move(error)));
    py::list launches;
    for (const LaunchPlan::Launch &launch : plan.launches) {
      py::dict entry;
      entry["kernel"] = plan.kernels[launch.kernel].second;
      entry["grid"] = py::make_tuple(launch.grid[0], launch.grid[1],
                                     launch.grid[2]);
      entry["block"] = py::make_tuple(launch.block[0], launch.block[1],
                                      launch.block[2]);
      entry["dynamic_shared_bytes"] = launch.dynamicSharedBytes;
      launches.append(entry);
    }
    py::dict result;
    result["directory"] = directory;
    result["modules"] = plan.modules.size();
    result["buffers"] = plan.buffers.size();
    result["tensor_maps"] = plan.tensorMaps.size();
    result["launches"] = launches;
    result["results"] = std::vector<size_t>(plan.results.begin(),
                                            plan.results.end());
    return result;
  }

private:
  std::string function;
  OwningOpRef<ModuleOp> module, lowered;
  func::FuncOp func;
  NVVMPipelineOptions options;
};

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

PYBIND11_MODULE(_qmm, m) {
  m.doc() = "Bindings of the qmm compiler (see the qmm package).";

  m.def("chips", [] {
    std::vector<std::string> names;
    for (const ChipInfo &chip : getSupportedChips())
      names.push_back(chip.name.str());
    return names;
  });
  m.def("native_fp8", [](const std::string &name) {
    const ChipInfo *chip = lookupChip(name);
    if (!chip)
      raiseValueError("unknown chip '" + name + "' (expected " +
                      getSupportedChipNames() + ")");
    return std::string(chip->nativeFP8 == FormatFamily::FNUZ ? "f8E4M3FNUZ"
                                                             : "f8E4M3FN");
  });

  m.def("quantize", &quantize, py::arg("x"), py::arg("element_type"),
        py::arg("scale"), py::arg("layout") = "nk",
        py::arg("rounding") = py::none(), py::arg("min_amax") = py::none(),
        py::arg("mn_major") = false);
  m.def("dequantize", &dequantize, py::arg("codes"), py::arg("scales"),
        py::arg("element_type"), py::arg("scale"), py::arg("rows"),
        py::arg("k"), py::arg("layout") = "nk", py::arg("mn_major") = false);
  m.def("decode", &decode, py::arg("codes"), py::arg("element_type"),
        py::arg("shape"));

  m.def(
      "gemm_ir",
      [](int64_t mExtent, int64_t n, int64_t k, const std::string &aType,
         const std::string &bType, const std::string &aScale,
         const std::string &bScale, const std::string &outType,
         const std::string &bLayout, bool accumulate,
         std::optional<std::string> bias,
         std::optional<std::string> activation,
         std::optional<std::string> aux, std::optional<std::string> outScale,
         std::optional<std::string> outRounding, const std::string &function) {
        GemmSpec spec = makeGemmSpec(mExtent, n, k, aType, bType, aScale,
                                     bScale, outType, bLayout, accumulate,
                                     bias, activation, aux, outScale,
                                     outRounding, function);
        DiagnosticCapture capture;
        OwningOpRef<ModuleOp> module = buildGemmModule(&getContext(), spec);
        verifyOrRaise(*module, capture);
        return printModule(*module);
      },
      py::arg("m"), py::arg("n"), py::arg("k"), py::arg("a_type"),
      py::arg("b_type"), py::arg("a_scale"), py::arg("b_scale"),
      py::arg("out_type"), py::arg("b_layout"), py::arg("accumulate"),
      py::arg("bias"), py::arg("activation"), py::arg("aux"),
      py::arg("out_scale"), py::arg("out_rounding"), py::arg("function"));

  m.def(
      "grouped_gemm_ir",
      [](int64_t mExtent, int64_t n, int64_t k, int64_t groups, bool masked,
         const std::string &aType, const std::string &bType,
         const std::string &aScale, const std::string &bScale,
         const std::string &outType, bool accumulate,
         std::optional<std::string> bias,
         std::optional<std::string> activation, std::optional<std::string> aux,
         std::optional<std::string> outScale,
         std::optional<std::string> outRounding,
         const std::string &function) {
        if (groups <= 0)
          raiseValueError("groups must be positive");
        GemmSpec spec = makeGemmSpec(
            mExtent, n, k, aType, bType, aScale, bScale, outType, "nk",
            accumulate, bias, activation, aux, outScale, outRounding,
            function);
        DiagnosticCapture capture;
        OwningOpRef<ModuleOp> module = buildGroupedGemmModule(
            &getContext(), spec, groups,
            masked ? GroupedLayout::Masked : GroupedLayout::Contiguous);
        verifyOrRaise(*module, capture);
        return printModule(*module);
      },
      py::arg("m"), py::arg("n"), py::arg("k"), py::arg("groups"),
      py::arg("masked"), py::arg("a_type"), py::arg("b_type"),
      py::arg("a_scale"), py::arg("b_scale"), py::arg("out_type"),
      py::arg("accumulate"), py::arg("bias"), py::arg("activation"),
      py::arg("aux"), py::arg("out_scale"), py::arg("out_rounding"),
      py::arg("function"));

  m.def(
      "linalg_to_qmm",
      [](const std::string &ir, bool explain) -> py::object {
        OwningOpRef<ModuleOp> module = parseProgram(ir);
        DiagnosticCapture capture;
        // The explain mode: the pass's missed-optimization remarks (one
        // per contraction left alone), collected while it runs.
        std::vector<MissedRemark> missed;
        if (explain) {
          remark::RemarkCategories categories;
          categories.missed = "qmm-linalg-to-qmm";
          if (failed(remark::enableOptimizationRemarks(
                  getContext(), std::make_unique<RemarkCollector>(missed),
                  std::make_unique<remark::RemarkEmittingPolicyAll>(),
                  categories)))
            throw std::runtime_error("cannot enable remarks");
        }
        auto disable = llvm::make_scope_exit([&] {
          if (explain)
            getContext().setRemarkEngine(nullptr);
        });
        PassManager pm(&getContext());
        pm.addPass(createQMMLinalgToQMM());
        if (failed(pm.run(*module)))
          throw std::runtime_error("qmm-linalg-to-qmm failed: " +
                                   llvm::StringRef(capture.text).rtrim().str());
        py::str text(printModule(*module));
        if (!explain)
          return std::move(text);
        py::list reasons;
        for (const MissedRemark &remark : missed) {
          py::dict entry;
          entry["function"] = remark.function;
          entry["line"] = remark.line;
          entry["column"] = remark.column;
          entry["reason"] = remark.reason;
          reasons.append(entry);
        }
        return py::make_tuple(text, reasons);
      },
      py::arg("ir"), py::arg("explain") = false);

  m.def("grouped_matmul_m_alignment", [] { return getGroupedMatmulMAlignment(); });
  // fp8-run's limits on the GEMMs whose operands it allocates.
  m.def(
      "check_gemm_size",
      [](int64_t mExtent, int64_t n, int64_t k) {
        if (llvm::Error error = checkGemmSizeLimits(mExtent, n, k))
          raiseValueError(llvm::toString(std::move(error)));
      },
      py::arg("m"), py::arg("n"), py::arg("k"));

  m.def("compile", &compile, py::arg("ir"), py::arg("chip") = "gfx942",
        py::arg("config") = "");
  py::class_<Program>(m, "Program")
      .def(py::init<const std::string &, const std::string &,
                    const std::string &, const std::string &,
                    const std::string &>(),
           py::arg("ir"), py::arg("function"), py::arg("device") = "emu",
           py::arg("chip") = "gfx942", py::arg("config") = "")
      .def("call", &Program::call, py::arg("args"), py::arg("iterations") = 0,
           py::arg("names") = std::vector<std::string>());
  py::class_<NvidiaProgram>(m, "NvidiaProgram")
      .def(py::init<const std::string &, const std::string &,
                    const std::string &>(),
           py::arg("ir"), py::arg("function"), py::arg("chip") = "sm_90a")
      .def("save", &NvidiaProgram::save, py::arg("args"),
           py::arg("directory"), py::arg("with_data") = true,
           py::arg("results_read") = false);
  m.def("run", &run, py::arg("ir"), py::arg("function"), py::arg("args"),
        py::arg("device") = "emu", py::arg("chip") = "gfx942",
        py::arg("config") = "", py::arg("iterations") = 0);
  m.def("model", &model, py::arg("ir"), py::arg("chip") = "gfx942",
        py::arg("device") = "", py::arg("config") = "",
        py::arg("params") = py::none(), py::arg("m") = py::none());
}
