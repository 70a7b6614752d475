//===- TensorMap.cpp - the TMA tensor maps of a launch plan ---------------===//
//
// The limits are cuTensorMapEncodeTiled's for a tiled map without
// interleave: a 16-byte aligned global address, byte strides that are
// multiples of 16 below 2^40, dimensions up to 2^32, boxes of 1 to 256
// elements a side whose innermost side is a multiple of 16 bytes and, with
// a swizzle, no wider than the swizzle.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include <cstdint>

namespace qmmcuda {

namespace {

constexpr uint64_t kMaxGlobalDim = uint64_t(1) << 32;
constexpr uint64_t kMaxGlobalStride = (uint64_t(1) << 40) - 1;
constexpr uint64_t kMaxBoxDim = 256;
// No buffer is larger (Plan.cpp's limit), so neither is a useful offset.
constexpr uint64_t kMaxOffset = uint64_t(1) << 40;
// Of the global address, the strides and the innermost box side.
constexpr uint64_t kAlignment = 16;

struct ElementInfo {
  TensorMapElement element;
  const char *name;
  unsigned bytes;
  int dataType; // CUtensorMapDataType
};

const ElementInfo kElements[] = {
    {TensorMapElement::U8, "u8", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {TensorMapElement::U16, "u16", 2, CU_TENSOR_MAP_DATA_TYPE_UINT16},
    {TensorMapElement::U32, "u32", 4, CU_TENSOR_MAP_DATA_TYPE_UINT32},
    {TensorMapElement::F16, "f16", 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
    {TensorMapElement::Bf16, "bf16", 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
    {TensorMapElement::F32, "f32", 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
};

const ElementInfo &getElementInfo(TensorMapElement element) {
  for (const ElementInfo &info : kElements)
    if (info.element == element)
      return info;
  return kElements[0];
}

struct SwizzleInfo {
  TensorMapSwizzle swizzle;
  const char *name;
  unsigned bytes; // the widest innermost box side; 0 for none
  int value;      // CUtensorMapSwizzle
};

const SwizzleInfo kSwizzles[] = {
    {TensorMapSwizzle::None, "none", 0, CU_TENSOR_MAP_SWIZZLE_NONE},
    {TensorMapSwizzle::B32, "32", 32, CU_TENSOR_MAP_SWIZZLE_32B},
    {TensorMapSwizzle::B64, "64", 64, CU_TENSOR_MAP_SWIZZLE_64B},
    {TensorMapSwizzle::B128, "128", 128, CU_TENSOR_MAP_SWIZZLE_128B},
};

const SwizzleInfo &getSwizzleInfo(TensorMapSwizzle swizzle) {
  for (const SwizzleInfo &info : kSwizzles)
    if (info.swizzle == swizzle)
      return info;
  return kSwizzles[0];
}

/// Builds the statement's diagnostics, all of which name the tensor map.
class FieldParser {
public:
  explicit FieldParser(unsigned index) : index(index) {}

  Status error(const std::string &message) const {
    return Status::error(
        formatString("tensormap %u: %s", index, message.c_str()));
  }

  /// An unsigned integer field in [min, max], or an error naming it.
  Status parse(const std::string &token, const std::string &what,
               uint64_t min, uint64_t max, uint64_t &value) const {
    if (!parseUnsigned(token, max, value) || value < min)
      return error(formatString(
          "%s: expected an integer from %llu to %llu, got '%s'", what.c_str(),
          static_cast<unsigned long long>(min),
          static_cast<unsigned long long>(max), token.c_str()));
    return Status::ok();
  }

private:
  unsigned index;
};

/// The tokens of a statement of \p rank: the keyword, index, buffer, offset,
/// element and rank, the dims, strides and box, and the swizzle.
size_t getTokenCount(unsigned rank) { return 6 + 3 * size_t(rank); }

} // namespace

Status parseTensorMapFields(const std::vector<std::string> &tokens,
                            unsigned index, uint64_t bufferBytes,
                            PlanTensorMap &map) {
  FieldParser fields(index);
  if (Status status =
          fields.parse(tokens[3], "byte offset", 0, kMaxOffset, map.offset);
      !status.isOk())
    return status;
  if (map.offset % kAlignment != 0)
    return fields.error(formatString(
        "byte offset %llu is not a multiple of 16 (TMA needs a 16-byte "
        "aligned global address)",
        static_cast<unsigned long long>(map.offset)));

  bool known = false;
  for (const ElementInfo &info : kElements)
    if (tokens[4] == info.name) {
      map.element = info.element;
      known = true;
    }
  if (!known)
    return fields.error(formatString("unknown element '%s' (expected u8, u16, "
                                     "u32, f16, bf16 or f32)",
                                     tokens[4].c_str()));
  const unsigned elementBytes = getElementInfo(map.element).bytes;
  const char *elementName = getElementInfo(map.element).name;

  uint64_t rank = 0;
  if (Status status =
          fields.parse(tokens[5], "rank", 1, kMaxTensorMapRank, rank);
      !status.isOk())
    return status;
  map.rank = static_cast<unsigned>(rank);
  if (tokens.size() != getTokenCount(map.rank))
    return fields.error(formatString(
        "rank %u takes %u global dims, %u global strides, %u box dims and a "
        "swizzle (%zu tokens in all), got %zu tokens",
        map.rank, map.rank, map.rank - 1, map.rank, getTokenCount(map.rank),
        tokens.size()));

  size_t next = 6;
  for (unsigned i = 0; i < map.rank; ++i)
    if (Status status =
            fields.parse(tokens[next++], formatString("global dim %u", i), 1,
                         kMaxGlobalDim, map.dims[i]);
        !status.isOk())
      return status;
  // Dimension 0 is dense; a row of it is the least stride of dimension 1.
  const uint64_t rowBytes = map.dims[0] * elementBytes; // < 2^35
  for (unsigned i = 1; i < map.rank; ++i) {
    uint64_t &stride = map.strides[i - 1];
    if (Status status =
            fields.parse(tokens[next++], formatString("global stride %u", i),
                         kAlignment, kMaxGlobalStride, stride);
        !status.isOk())
      return status;
    if (stride % kAlignment != 0)
      return fields.error(formatString(
          "global stride %u is %llu bytes, not a multiple of 16", i,
          static_cast<unsigned long long>(stride)));
    // Only dimension 1 is held to this (its rows must not overlap); the
    // outer dimensions may come in any order, so their strides need not
    // grow.
    if (i == 1 && stride < rowBytes)
      return fields.error(formatString(
          "global stride 1 is %llu bytes, less than a row of global dim 0 "
          "(%llu %s elements, %llu bytes)",
          static_cast<unsigned long long>(stride),
          static_cast<unsigned long long>(map.dims[0]), elementName,
          static_cast<unsigned long long>(rowBytes)));
  }
  for (unsigned i = 0; i < map.rank; ++i) {
    uint64_t box = 0;
    if (Status status = fields.parse(tokens[next++],
                                     formatString("box dim %u", i), 1,
                                     kMaxBoxDim, box);
        !status.isOk())
      return status;
    map.box[i] = static_cast<uint32_t>(box);
  }
  const uint64_t innerBoxBytes = uint64_t(map.box[0]) * elementBytes;
  if (innerBoxBytes % kAlignment != 0)
    return fields.error(formatString(
        "box dim 0 is %llu bytes (%u %s elements), not a multiple of 16",
        static_cast<unsigned long long>(innerBoxBytes), map.box[0],
        elementName));

  known = false;
  for (const SwizzleInfo &info : kSwizzles)
    if (tokens[next] == info.name) {
      map.swizzle = info.swizzle;
      known = true;
    }
  if (!known)
    return fields.error(formatString(
        "unknown swizzle '%s' (expected none, 32, 64 or 128)",
        tokens[next].c_str()));
  const unsigned swizzleBytes = getSwizzleInfo(map.swizzle).bytes;
  if (swizzleBytes && innerBoxBytes > swizzleBytes)
    return fields.error(formatString(
        "box dim 0 is %llu bytes (%u %s elements), wider than the %u-byte "
        "swizzle",
        static_cast<unsigned long long>(innerBoxBytes), map.box[0],
        elementName, swizzleBytes));

  // The last byte addressed: dims up to 2^32 times strides up to 2^40 can
  // overflow 64 bits, which is past the end of any buffer.
  uint64_t end = map.offset + rowBytes;
  bool overflow = false;
  for (unsigned i = 1; i < map.rank && !overflow; ++i) {
    uint64_t extent = 0;
    overflow = __builtin_mul_overflow(map.dims[i] - 1, map.strides[i - 1],
                                      &extent) ||
               __builtin_add_overflow(end, extent, &end);
  }
  if (overflow)
    return fields.error(formatString(
        "the tensor spans more than 2^64 bytes, past the end of buffer %u "
        "(%llu bytes)",
        map.buffer, static_cast<unsigned long long>(bufferBytes)));
  if (end > bufferBytes)
    return fields.error(formatString(
        "the tensor spans bytes [%llu, %llu) of buffer %u, which has %llu "
        "bytes",
        static_cast<unsigned long long>(map.offset),
        static_cast<unsigned long long>(end), map.buffer,
        static_cast<unsigned long long>(bufferBytes)));
  return Status::ok();
}

const char *getTensorMapElementName(TensorMapElement element) {
  return getElementInfo(element).name;
}

unsigned getTensorMapElementBytes(TensorMapElement element) {
  return getElementInfo(element).bytes;
}

const char *getTensorMapSwizzleName(TensorMapSwizzle swizzle) {
  return getSwizzleInfo(swizzle).name;
}

std::string describeTensorMap(const PlanTensorMap &map) {
  std::string dims, strides, box;
  for (unsigned i = 0; i < map.rank; ++i) {
    dims += formatString("%s%llu", i ? "x" : "",
                         static_cast<unsigned long long>(map.dims[i]));
    box += formatString("%s%u", i ? "x" : "", map.box[i]);
  }
  for (unsigned i = 1; i < map.rank; ++i)
    strides += formatString("%s%llu", i > 1 ? "," : "",
                            static_cast<unsigned long long>(map.strides[i - 1]));
  return formatString("buffer %u +%llu %s rank %u dims %s strides %s box %s "
                      "swizzle %s",
                      map.buffer, static_cast<unsigned long long>(map.offset),
                      getTensorMapElementName(map.element), map.rank,
                      dims.c_str(), strides.empty() ? "none" : strides.c_str(),
                      box.c_str(), getTensorMapSwizzleName(map.swizzle));
}

CUresult encodeTensorMap(const CudaDriver &driver, const PlanTensorMap &map,
                         CUdeviceptr bufferAddress, CUtensorMap &tensorMap) {
  static const uint32_t elementStrides[kMaxTensorMapRank] = {1, 1, 1, 1, 1};
  void *globalAddress =
      reinterpret_cast<void *>(static_cast<uintptr_t>(bufferAddress + map.offset));
  return driver.cuTensorMapEncodeTiled(
      &tensorMap, getElementInfo(map.element).dataType, map.rank,
      globalAddress, map.dims, map.strides, map.box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, getSwizzleInfo(map.swizzle).value,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

} // namespace qmmcuda
