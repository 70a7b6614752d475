//===- HostTensor.cpp - dense host buffers and .npy files -----------------===//

#include "qmm/Runtime/HostTensor.h"
#include "qmm/Runtime/HostFormats.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir::qmm;
using namespace mlir::qmm::host;
using llvm::StringRef;

HostTensor::HostTensor(ElementType elementType, llvm::ArrayRef<int64_t> shape)
    : elementType(elementType), shape(shape.begin(), shape.end()) {
  bytes.assign(getNumElements() * getElementBytes(), 0);
}

int64_t HostTensor::getNumElements() const {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

unsigned HostTensor::getElementBytes() const {
  // Sub-byte formats unpacked: one element's storage, a byte.
  return getStorageBytes(1, elementType);
}

uint32_t HostTensor::getBits(int64_t i) const {
  uint32_t bits = 0;
  std::memcpy(&bits, bytes.data() + i * getElementBytes(), getElementBytes());
  return bits;
}

void HostTensor::setBits(int64_t i, uint32_t bits) {
  std::memcpy(bytes.data() + i * getElementBytes(), &bits, getElementBytes());
}

double HostTensor::getValue(int64_t i) const {
  if (elementType == ElementType::F32) {
    float value;
    std::memcpy(&value, bytes.data() + i * 4, 4);
    return value;
  }
  return decode(*lookupFormat(elementType), getBits(i));
}

std::vector<int64_t> mlir::qmm::host::getNpyShape(ElementType elementType,
                                                  llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> npyShape(shape.begin(), shape.end());
  if (getElementBitWidth(elementType) < 8 && !npyShape.empty())
    npyShape.back() = getStorageBytes(npyShape.back(), elementType);
  return npyShape;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static std::string formatShapeTuple(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (int64_t dim : shape)
    text += std::to_string(dim) + ", ";
  if (shape.size() > 1)
    text.resize(text.size() - 2);
  else if (shape.size() == 1)
    text.resize(text.size() - 1);
  return text + ")";
}

/// Packs rows of `width`-bit elements into a little-endian bit stream per
/// row.
static std::vector<uint8_t> packRows(const HostTensor &tensor) {
  unsigned width = getElementBitWidth(tensor.elementType);
  int64_t cols = tensor.shape.empty() ? 1 : tensor.shape.back();
  int64_t rows = tensor.getNumElements() / std::max<int64_t>(cols, 1);
  int64_t rowBytes = getStorageBytes(cols, tensor.elementType);
  std::vector<uint8_t> packed(rows * rowBytes, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      uint32_t bits = tensor.getBits(r * cols + c) & ((1u << width) - 1);
      for (unsigned b = 0; b < width; ++b) {
        int64_t bit = c * width + b;
        if (bits & (1u << b))
          packed[r * rowBytes + bit / 8] |= uint8_t(1u << (bit % 8));
      }
    }
  return packed;
}

/// The inverse of packRows: rows of `rowBytes` bytes into `tensor`.
static void unpackRows(llvm::ArrayRef<uint8_t> packed, int64_t rowBytes,
                       HostTensor &tensor) {
  unsigned width = getElementBitWidth(tensor.elementType);
  int64_t cols = tensor.shape.empty() ? 1 : tensor.shape.back();
  int64_t rows = tensor.getNumElements() / std::max<int64_t>(cols, 1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      uint32_t bits = 0;
      for (unsigned b = 0; b < width; ++b) {
        int64_t bit = c * width + b;
        if (packed[r * rowBytes + bit / 8] & (1u << (bit % 8)))
          bits |= 1u << b;
      }
      tensor.setBits(r * cols + c, bits);
    }
}

std::vector<uint8_t> mlir::qmm::host::getDeviceBytes(const HostTensor &tensor) {
  return getElementBitWidth(tensor.elementType) < 8 ? packRows(tensor)
                                                    : tensor.bytes;
}

llvm::Expected<HostTensor>
mlir::qmm::host::fromDeviceBytes(ElementType elementType,
                                 llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<uint8_t> bytes) {
  HostTensor tensor(elementType, shape);
  bool packed = getElementBitWidth(elementType) < 8;
  int64_t cols = shape.empty() ? 1 : shape.back();
  int64_t rowBytes = getStorageBytes(cols, elementType);
  size_t expected =
      packed ? size_t(tensor.getNumElements() / std::max<int64_t>(cols, 1) *
                      rowBytes)
             : tensor.bytes.size();
  if (bytes.size() != expected)
    return llvm::createStringError("a result has %zu bytes, expected %zu",
                                   bytes.size(), expected);
  if (packed)
    unpackRows(bytes, rowBytes, tensor);
  else
    tensor.bytes.assign(bytes.begin(), bytes.end());
  return tensor;
}

NpyArray mlir::qmm::host::toNpyArray(const HostTensor &tensor) {
  unsigned width = getElementBitWidth(tensor.elementType);
  std::string descr;
  std::vector<uint8_t> payload;
  if (tensor.elementType == ElementType::F32 ||
      tensor.elementType == ElementType::I32) {
    descr = "<f4";
    payload = tensor.bytes;
  } else if (width == 16) {
    descr = "<f4";
    for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
      float value = float(tensor.getValue(i)); // exact: f16/bf16 fit in f32
      uint8_t raw[4];
      std::memcpy(raw, &value, 4);
      payload.insert(payload.end(), raw, raw + 4);
    }
  } else if (width == 8) {
    descr = "|u1";
    payload = tensor.bytes;
  } else {
    descr = "|u1";
    payload = packRows(tensor);
  }

  if (tensor.elementType == ElementType::I32)
    descr = "<i4";
  if (tensor.elementType == ElementType::I8)
    descr = "|i1";
  return {descr, getNpyShape(tensor.elementType, tensor.shape), payload};
}

llvm::Error mlir::qmm::host::writeNpy(StringRef path, const HostTensor &tensor) {
  return writeNpyArray(path, toNpyArray(tensor));
}

llvm::Error mlir::qmm::host::writeNpyArray(StringRef path,
                                           const NpyArray &array) {
  std::string header =
      llvm::formatv("{{'descr': '{0}', 'fortran_order': False, 'shape': {1}, }",
                    array.descr, formatShapeTuple(array.shape))
          .str();
  // Magic (6) + version (2) + length (2) + header, padded to 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  os << "\x93NUMPY" << char(1) << char(0);
  os << char(header.size() & 0xFF) << char((header.size() >> 8) & 0xFF);
  os << header;
  os.write(reinterpret_cast<const char *>(array.bytes.data()),
           array.bytes.size());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// The value of `key` in a numpy header dict, as raw text.
static std::optional<std::string> findHeaderValue(StringRef header,
                                                  StringRef key) {
  std::string quoted = "'" + key.str() + "'";
  size_t pos = header.find(quoted);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t end = rest.find(')');
    if (end == StringRef::npos)
      return std::nullopt;
    return rest.take_front(end + 1).str();
  }
  size_t end = rest.find_first_of(",}");
  return rest.take_front(end).trim().str();
}

static llvm::Expected<std::vector<int64_t>> parseShapeTuple(StringRef path,
                                                            StringRef text) {
  text = text.trim();
  if (!text.consume_front("(") || !text.consume_back(")"))
    return llvm::createStringError("'%s': malformed shape in .npy header",
                                   path.str().c_str());
  std::vector<int64_t> shape;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return llvm::createStringError("'%s': malformed shape in .npy header",
                                     path.str().c_str());
    shape.push_back(dim);
  }
  return shape;
}

static std::string formatShapeList(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Bytes per element of a numpy dtype string, or 0 when unsupported.
static unsigned dtypeBytes(StringRef descr) {
  if (descr.size() < 3 || !StringRef("<|=").contains(descr[0]) ||
      !StringRef("fiub").contains(descr[1]))
    return 0;
  unsigned bytes;
  if (descr.drop_front(2).getAsInteger(10, bytes))
    return 0;
  return bytes;
}

llvm::Expected<NpyArray> mlir::qmm::host::readNpyArray(StringRef path) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError("'" + path + "': " + message);
  };
  auto fileOrErr = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
  if (!fileOrErr)
    return fail("cannot read: " + fileOrErr.getError().message());
  StringRef content = (*fileOrErr)->getBuffer();
  if (content.size() < 10 || !content.starts_with("\x93NUMPY"))
    return fail("not a .npy file");
  uint8_t major = content[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(content[8]) | (uint8_t(content[9]) << 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && content.size() >= 12) {
    headerLength = uint8_t(content[8]) | (uint8_t(content[9]) << 8) |
                   (uint8_t(content[10]) << 16) |
                   (size_t(uint8_t(content[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + llvm::Twine(int(major)));
  }
  if (content.size() < headerStart + headerLength)
    return fail("truncated .npy header");
  StringRef header = content.substr(headerStart, headerLength);
  std::optional<std::string> descr = findHeaderValue(header, "descr");
  std::optional<std::string> fortran = findHeaderValue(header, "fortran_order");
  std::optional<std::string> shapeText = findHeaderValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("malformed .npy header");
  if (*fortran != "False")
    return fail("Fortran-order arrays are not supported");
  NpyArray array;
  array.descr = StringRef(*descr).trim("'\"").str();
  unsigned bytes = dtypeBytes(array.descr);
  if (!bytes)
    return fail("unsupported dtype " + array.descr);
  if (bytes > 1 && array.descr[0] == '>')
    return fail("big-endian arrays are not supported");
  auto shape = parseShapeTuple(path, *shapeText);
  if (!shape)
    return shape.takeError();
  array.shape = *shape;
  int64_t count = 1;
  for (int64_t dim : array.shape)
    count *= dim;
  StringRef payload = content.drop_front(headerStart + headerLength);
  if (payload.size() != size_t(count) * bytes)
    return fail("holds " + llvm::Twine(payload.size()) + " data bytes, " +
                "expected " + llvm::Twine(count * bytes));
  array.bytes.assign(payload.bytes_begin(), payload.bytes_end());
  return array;
}

llvm::Expected<HostTensor>
mlir::qmm::host::readNpy(StringRef path, ElementType elementType,
                         llvm::ArrayRef<int64_t> shape) {
  auto arrayOrErr = readNpyArray(path);
  if (!arrayOrErr)
    return arrayOrErr.takeError();
  auto tensor = fromNpyArray(*arrayOrErr, elementType, shape);
  if (!tensor)
    return llvm::createStringError("'" + path +
                                   "': " + llvm::toString(tensor.takeError()));
  return tensor;
}

llvm::Expected<HostTensor>
mlir::qmm::host::fromNpyArray(const NpyArray &array, ElementType elementType,
                              llvm::ArrayRef<int64_t> shape) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(message);
  };
  StringRef dtype = array.descr;
  StringRef payload(reinterpret_cast<const char *>(array.bytes.data()),
                    array.bytes.size());
  unsigned width = getElementBitWidth(elementType);
  StringRef typeName = getElementTypeName(elementType);
  if (elementType == ElementType::I32) {
    if (dtype != "<i4")
      return fail("dtype " + dtype + " does not match i32 (expected int32, "
                  "'<i4')");
  } else {
    bool wantsFloat = elementType == ElementType::F32 || width == 16;
    if (wantsFloat && dtype != "<f4")
      return fail("dtype " + dtype + " does not match " + typeName +
                  " (expected float32, '<f4')");
    if (!wantsFloat && dtype != "|u1" && dtype != "<u1" &&
        !(width == 8 && (dtype == "|i1" || dtype == "<i1")))
      return fail("dtype " + dtype + " does not match " + typeName +
                  " (expected uint8 bit patterns, '|u1')");
  }
  std::vector<int64_t> expected = getNpyShape(elementType, shape);
  if (array.shape != expected)
    return fail("shape " + formatShapeList(array.shape) +
                " does not match " +
                typeName + " " + formatShapeList(shape) +
                (expected != std::vector<int64_t>(shape.begin(), shape.end())
                     ? " (packed: " + formatShapeList(expected) + ")"
                     : std::string()));

  size_t payloadBytes = payload.size();

  HostTensor tensor(elementType, shape);
  if (payload.size() != tensor.bytes.size() && (width == 8 || width == 32))
    return fail("payload of " + llvm::Twine(payload.size()) +
                " bytes, expected " + llvm::Twine(tensor.bytes.size()));
  if (elementType == ElementType::F32 || elementType == ElementType::I32 ||
      width == 8) {
    std::memcpy(tensor.bytes.data(), payload.data(), payloadBytes);
  } else if (width == 16) {
    const FormatSpec &format = *lookupFormat(elementType);
    for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
      float value;
      std::memcpy(&value, payload.data() + 4 * i, 4);
      double rounded = roundToFormat(format, value);
      if (rounded != value && !std::isnan(value))
        return fail("element " + llvm::Twine(i) + " is not a " + typeName +
                    " value");
      // Re-encode exactly: f16/bf16 bit patterns from the f32 value.
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      if (elementType == ElementType::BF16)
        tensor.setBits(i, bits >> 16);
      else if (std::isinf(value)) // IEEE f16 infinities, signed
        tensor.setBits(i, value < 0 ? 0xFC00 : 0x7C00);
      else // an f16 value or NaN (checked above): its code, exactly
        tensor.setBits(i, encodeSaturating(format, value));
    }
  } else {
    unpackRows(array.bytes, expected.back(), tensor);
  }
  return tensor;
}
