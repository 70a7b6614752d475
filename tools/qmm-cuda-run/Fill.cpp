//===- Fill.cpp - the host data of a plan's buffers -----------------------===//
//
// Random values come straight from the 64-bit words of std::mt19937_64
// (fully specified by the standard), not from std::*_distribution (whose
// algorithms are up to the library), so a seed gives the same bytes with
// any compiler.
//
//===----------------------------------------------------------------------===//

#include "Fill.h"

#include <cmath>
#include <cstring>

namespace qmmcuda {

namespace {

/// Eight random bytes per draw.
class ByteSource {
public:
  explicit ByteSource(std::mt19937_64 &random) : random(random) {}
  unsigned char next() {
    if (left == 0) {
      word = random();
      left = 8;
    }
    auto byte = static_cast<unsigned char>(word & 0xff);
    word >>= 8;
    --left;
    return byte;
  }

private:
  std::mt19937_64 &random;
  uint64_t word = 0;
  unsigned left = 0;
};

/// OCP E4M3FN: 0x7F and 0xFF are the NaNs; every other code is finite.
bool isFiniteE4M3(unsigned char code) { return (code & 0x7f) != 0x7f; }

/// E5M2: exponent bits 6..2 all ones are inf and NaN.
bool isFiniteE5M2(unsigned char code) { return ((code >> 2) & 0x1f) != 0x1f; }

void storeFloat(unsigned char *out, float value) {
  std::memcpy(out, &value, 4); // little-endian hosts only (see Validate.cpp)
}

} // namespace

bool isHostFill(Fill fill) { return fill != Fill::Zero && fill != Fill::Poison; }

Status makeHostFill(const PlanBuffer &buffer, std::mt19937_64 &random,
                    HostBytes &bytes) {
  if (!bytes.allocate(buffer.bytes))
    return Status::error(formatString(
        "cannot allocate %llu bytes of host memory for the buffer of line %u",
        static_cast<unsigned long long>(buffer.bytes), buffer.line));
  unsigned char *out = bytes.data();
  switch (buffer.fill) {
  case Fill::File:
    return readFileBytes(buffer.path, buffer.file, buffer.bytes, out);
  case Fill::Fp8E4M3:
  case Fill::Fp8E5M2: {
    // Rejection keeps the finite codes uniformly likely.
    bool (*isFinite)(unsigned char) =
        buffer.fill == Fill::Fp8E4M3 ? isFiniteE4M3 : isFiniteE5M2;
    ByteSource source(random);
    for (uint64_t i = 0; i < buffer.bytes; ++i) {
      unsigned char code;
      do
        code = source.next();
      while (!isFinite(code));
      out[i] = code;
    }
    return Status::ok();
  }
  case Fill::Scale:
    for (uint64_t i = 0; i < buffer.bytes / 4; ++i) {
      double unit = static_cast<double>(random() >> 11) * 0x1.0p-53;
      auto value = static_cast<float>(0.5 + 1.5 * unit);
      if (value >= 2.0f) // rounding to float can reach the open end
        value = std::nextafter(2.0f, 0.0f);
      storeFloat(out + 4 * i, value);
    }
    return Status::ok();
  case Fill::Bf16:
    for (uint64_t i = 0; i < buffer.bytes / 2; ++i) {
      // 24 random bits make a float in [-1, 1) exactly; dropping the low
      // half (bf16 = the high 16 bits) rounds toward zero, staying inside.
      float value =
          static_cast<float>(random() >> 40) * 0x1.0p-23f - 1.0f;
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      out[2 * i] = static_cast<unsigned char>((bits >> 16) & 0xff);
      out[2 * i + 1] = static_cast<unsigned char>(bits >> 24);
    }
    return Status::ok();
  case Fill::Zero:
  case Fill::Poison:
    break;
  }
  return Status::error("internal error: a device fill has no host data");
}

} // namespace qmmcuda
