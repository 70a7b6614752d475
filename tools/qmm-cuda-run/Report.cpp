//===- Report.cpp - what a run found, and its JSON form -------------------===//

#include "Report.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace qmmcuda {

namespace {

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20)
        out += formatString("\\u%04x", c);
      else
        out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number(double value) {
  if (!std::isfinite(value))
    return quote(formatDouble(value));
  return formatString("%.17g", value);
}

std::string boolean(bool value) { return value ? "true" : "false"; }

std::string checkJson(const CheckResult &result) {
  const PlanCheck &check = *result.check;
  std::string out = "{";
  out += "\"label\": " + quote(check.label);
  out += ", \"line\": " + formatString("%u", check.line);
  out += ", \"buffer\": " + formatString("%u", check.buffer);
  out += ", \"element\": " + quote(getElementName(check.element));
  out += ", \"count\": " +
         formatString("%llu", static_cast<unsigned long long>(check.count));
  out += ", \"tier\": " + quote(check.tier);
  out += ", \"kind\": " + quote(getCheckKindName(check.kind));
  out += ", \"threshold\": " + number(check.threshold);
  out += ", \"metric\": " + quote(result.metric);
  out += ", \"value\": " + number(result.value);
  out += ", \"criterion\": " + quote(result.criterion);
  out += ", \"nan_count\": " +
         formatString("%llu", static_cast<unsigned long long>(result.nanCount));
  if (check.kind == CheckKind::Bounds) {
    out += ", \"violations\": " +
           formatString("%llu",
                        static_cast<unsigned long long>(result.violations));
    out += ", \"max_mid_distance\": " + number(result.maxMidDistance);
    out += ", \"first_violations\": [";
    for (size_t i = 0; i < result.firstViolations.size(); ++i) {
      const BoundsViolation &violation = result.firstViolations[i];
      out += formatString("%s{\"index\": %llu, ", i ? ", " : "",
                          static_cast<unsigned long long>(violation.index));
      out += "\"d\": " + number(violation.value) + ", \"lo\": " +
             number(violation.lo) + ", \"hi\": " + number(violation.hi) + "}";
    }
    out += "]";
  } else {
    out += ", \"max_abs_error\": " + number(result.maxAbsError);
    out += ", \"max_rel_error\": " + number(result.maxRelError);
  }
  out += ", \"pass\": " + boolean(result.pass) + "}";
  return out;
}

} // namespace

std::string formatDriverVersion(int version) {
  return formatString("%d.%d", version / 1000, (version % 1000) / 10);
}

Status writeJsonReport(const std::string &path, const RunReport &report) {
  std::string out = "{\n";
  out += "  \"tool\": \"qmm-cuda-run\",\n";
  out += "  \"result\": " + quote(report.result) + ",\n";
  if (!report.message.empty())
    out += "  \"message\": " + quote(report.message) + ",\n";
  if (const Plan *plan = report.plan) {
    out += "  \"plan\": {\"dir\": " + quote(plan->dir) +
           ", \"program\": " + quote(plan->program) +
           ", \"chip\": " + quote(plan->chip);
    out += ", \"flops\": " + (plan->hasFlops ? number(plan->flops) : "null");
    out += formatString(", \"modules\": %zu, \"kernels\": %zu, \"buffers\": "
                        "%zu, \"buffer_bytes\": %llu, \"tensor_maps\": %zu, "
                        "\"launches\": %zu, \"checks\": %zu},\n",
                        plan->modules.size(), plan->kernels.size(),
                        plan->buffers.size(),
                        static_cast<unsigned long long>(
                            plan->totalBufferBytes()),
                        plan->tensorMaps.size(), plan->launches.size(),
                        plan->checks.size());
  }
  out += formatString("  \"seed\": %llu,\n", report.seed);
  if (report.haveDevice) {
    out += formatString("  \"device\": {\"index\": %d, \"name\": %s, "
                        "\"compute_capability\": \"%d.%d\", "
                        "\"multiprocessors\": %d, \"driver_version\": %s, "
                        "\"driver_version_code\": %d},\n",
                        report.deviceIndex, quote(report.deviceName).c_str(),
                        report.ccMajor, report.ccMinor,
                        report.multiprocessors,
                        quote(formatDriverVersion(report.driverVersion)).c_str(),
                        report.driverVersion);
  } else {
    out += "  \"device\": null,\n";
  }
  out += "  \"validated\": " + boolean(report.validated) + ",\n";
  out += "  \"checks\": [";
  for (size_t i = 0; i < report.checks.size(); ++i)
    out += (i ? ",\n    " : "\n    ") + checkJson(report.checks[i]);
  out += report.checks.empty() ? "],\n" : "\n  ],\n";
  if (!report.timings.empty()) {
    out += "  \"timing\": {\"warmup_runs\": 3, \"methods\": [";
    for (size_t t = 0; t < report.timings.size(); ++t) {
      const TimingResult &timing = report.timings[t];
      double tflops = 0;
      if (report.plan && report.plan->hasFlops && report.plan->flops > 0 &&
          timing.medianMs > 0)
        tflops = report.plan->flops / (timing.medianMs * 1e-3) / 1e12;
      out += formatString(
          "%s\n    {\"method\": \"%s\", \"runs_per_sample\": %llu, "
          "\"median_ms\": %s, \"min_ms\": %s, \"tflops\": %s, "
          "\"samples_ms\": [",
          t ? "," : "", getTimingMethodName(timing.method),
          timing.runsPerSample, number(timing.medianMs).c_str(),
          number(timing.minMs).c_str(),
          tflops > 0 ? number(tflops).c_str() : "null");
      for (size_t i = 0; i < timing.msPerRun.size(); ++i)
        out += (i ? ", " : "") + number(timing.msPerRun[i]);
      out += "]}";
    }
    out += "\n  ]}\n";
  } else {
    out += "  \"timing\": null\n";
  }
  out += "}\n";

  std::FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return Status::error(formatString("--json: cannot write '%s': %s",
                                      path.c_str(), std::strerror(errno)));
  bool written = std::fwrite(out.data(), 1, out.size(), file) == out.size();
  written = std::fclose(file) == 0 && written;
  if (!written)
    return Status::error(
        formatString("--json: cannot write '%s'", path.c_str()));
  return Status::ok();
}

Status evaluateChecks(const Plan &plan, const BufferReader &read,
                      RunReport &report) {
  for (const PlanCheck &check : plan.checks) {
    HostBytes output, scales;
    if (Status status =
            read(check.buffer, check.count * getElementBytes(check.element),
                 check.line, output);
        !status.isOk())
      return status;
    const PlanScaling *scaling =
        check.scaling >= 0 ? &plan.scalings[check.scaling] : nullptr;
    if (scaling)
      if (Status status =
              read(scaling->scalesBuffer,
                   scaling->rows * scaling->scalesPerRow() *
                       getElementBytes(scaling->scaleElement),
                   check.line, scales);
          !status.isOk())
        return status;
    CheckResult result;
    if (Status status = evaluateCheck(check, output.data(), result, scaling,
                                      scaling ? scales.data() : nullptr);
        !status.isOk())
      return status;
    printCheckResult(result, stdout);
    report.checks.push_back(result);
  }
  report.validated = true;
  return Status::ok();
}

} // namespace qmmcuda
