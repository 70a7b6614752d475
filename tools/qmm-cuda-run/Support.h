//===- Support.h - status, formatting and files for qmm-cuda-run -*- C++ -*-===//
//
// qmm-cuda-run is built without exceptions and RTTI (it may inherit LLVM's
// flags) and without LLVM itself: errors travel as Status values, host
// memory comes from malloc so that an impossible size is an error, not an
// abort.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CUDA_RUN_SUPPORT_H
#define QMM_CUDA_RUN_SUPPORT_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace qmmcuda {

/// The outcome of a step: ok, an error (exit 2) or a reason to skip (exit 3).
/// The message is complete except for the "qmm-cuda-run: error: " prefix.
class Status {
public:
  enum class Kind { Ok, Error, Skipped };

  static Status ok() { return Status(); }
  static Status error(std::string message) {
    return Status(Kind::Error, std::move(message));
  }
  static Status skipped(std::string message) {
    return Status(Kind::Skipped, std::move(message));
  }

  bool isOk() const { return kind == Kind::Ok; }
  bool isSkipped() const { return kind == Kind::Skipped; }
  Kind getKind() const { return kind; }
  const std::string &getMessage() const { return message; }

private:
  Status() = default;
  Status(Kind kind, std::string message)
      : kind(kind), message(std::move(message)) {}

  Kind kind = Kind::Ok;
  std::string message;
};

/// printf into a std::string.
std::string formatString(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// %g-like text of a double that also spells inf and nan plainly.
std::string formatDouble(double value, int precision = 6);

/// A malloc'd byte array: allocation failure is reported, not fatal.
class HostBytes {
public:
  /// Allocates \p size bytes (at least one, so that data() is never null).
  bool allocate(uint64_t size);
  unsigned char *data() const { return bytes.get(); }
  uint64_t size() const { return length; }

private:
  struct Free {
    void operator()(unsigned char *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<unsigned char[], Free> bytes;
  uint64_t length = 0;
};

/// The size of a regular file, or an error naming \p displayName.
Status getFileSize(const std::string &path, const std::string &displayName,
                   uint64_t &size);

/// Reads exactly \p size bytes of \p path into \p out (already allocated).
Status readFileBytes(const std::string &path, const std::string &displayName,
                     uint64_t size, unsigned char *out);

/// Reads a whole text file (bounded by \p limit bytes).
Status readTextFile(const std::string &path, const std::string &displayName,
                    uint64_t limit, std::string &out);

/// Parses a whole token as a decimal unsigned integer no larger than \p max
/// (no sign, no spaces, no overflow).
bool parseUnsigned(const std::string &token, uint64_t max, uint64_t &value);

/// Parses a whole token as a finite double.
bool parseFiniteDouble(const std::string &token, double &value);

} // namespace qmmcuda

#endif // QMM_CUDA_RUN_SUPPORT_H
