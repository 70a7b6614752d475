//===- Support.cpp - status, formatting and files for qmm-cuda-run --------===//

#include "Support.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace qmmcuda {

std::string formatString(const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text;
  if (length > 0) {
    text.resize(static_cast<size_t>(length) + 1);
    std::vsnprintf(&text[0], text.size(), format, args);
    text.resize(static_cast<size_t>(length));
  }
  va_end(args);
  return text;
}

std::string formatDouble(double value, int precision) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return formatString("%.*g", precision, value);
}

bool HostBytes::allocate(uint64_t size) {
  bytes.reset();
  length = 0;
  if (size > SIZE_MAX)
    return false;
  auto *pointer = static_cast<unsigned char *>(
      std::malloc(size == 0 ? 1 : static_cast<size_t>(size)));
  if (!pointer)
    return false;
  bytes.reset(pointer);
  length = size;
  return true;
}

Status getFileSize(const std::string &path, const std::string &displayName,
                   uint64_t &size) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return Status::error(formatString("cannot read '%s': %s",
                                      displayName.c_str(),
                                      std::strerror(errno)));
  if (!S_ISREG(info.st_mode))
    return Status::error(
        formatString("'%s' is not a regular file", displayName.c_str()));
  size = static_cast<uint64_t>(info.st_size);
  return Status::ok();
}

Status readFileBytes(const std::string &path, const std::string &displayName,
                     uint64_t size, unsigned char *out) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return Status::error(formatString("cannot read '%s': %s",
                                      displayName.c_str(),
                                      std::strerror(errno)));
  uint64_t done = 0;
  while (done < size) {
    // Chunks keep each fread's count within size_t on any host.
    size_t chunk = static_cast<size_t>(
        size - done < (uint64_t(1) << 30) ? size - done : uint64_t(1) << 30);
    size_t got = std::fread(out + done, 1, chunk, file);
    done += got;
    if (got != chunk)
      break;
  }
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed)
    return Status::error(
        formatString("cannot read '%s': read error", displayName.c_str()));
  if (done != size)
    return Status::error(formatString(
        "'%s' holds %llu bytes, expected %llu (changed while reading?)",
        displayName.c_str(), static_cast<unsigned long long>(done),
        static_cast<unsigned long long>(size)));
  return Status::ok();
}

Status readTextFile(const std::string &path, const std::string &displayName,
                    uint64_t limit, std::string &out) {
  uint64_t size = 0;
  Status status = getFileSize(path, displayName, size);
  if (!status.isOk())
    return status;
  if (size > limit)
    return Status::error(formatString(
        "'%s' holds %llu bytes, over this runner's limit of %llu",
        displayName.c_str(), static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(limit)));
  out.assign(static_cast<size_t>(size), '\0');
  if (size == 0)
    return Status::ok();
  return readFileBytes(path, displayName, size,
                       reinterpret_cast<unsigned char *>(&out[0]));
}

bool parseUnsigned(const std::string &token, uint64_t max, uint64_t &value) {
  if (token.empty() || token.size() > 20)
    return false;
  uint64_t result = 0;
  for (char c : token) {
    if (c < '0' || c > '9')
      return false;
    unsigned digit = static_cast<unsigned>(c - '0');
    if (result > (UINT64_MAX - digit) / 10)
      return false;
    result = result * 10 + digit;
  }
  if (result > max)
    return false;
  value = result;
  return true;
}

bool parseFiniteDouble(const std::string &token, double &value) {
  if (token.empty() || std::isspace(static_cast<unsigned char>(token[0])))
    return false;
  errno = 0;
  char *end = nullptr;
  double result = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || errno == ERANGE ||
      !std::isfinite(result))
    return false;
  value = result;
  return true;
}

} // namespace qmmcuda
