//===- ConfigSpace.h - the legal #qmm.config of a matmul, tuning tables ---===//
//
// What a qmm.matmul or qmm.grouped_matmul requires of its configuration
// (ConfigQuery), the legal configurations for a chip (enumerateConfigs: the
// space `fp8-run --tune` ranks with the performance model), and tuning
// tables: JSON files mapping (chip, formats, scales, shape bucket) to the
// configuration a tuning run found best, which qmm-select-config reads.
//
//===----------------------------------------------------------------------===//

#ifndef QMM_CONVERSION_AMDGPU_CONFIGSPACE_H
#define QMM_CONVERSION_AMDGPU_CONFIGSPACE_H

#include "qmm/Conversion/AMDGPU/KernelLayout.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
namespace qmm {

/// Everything the configuration of one matmul depends on.
struct ConfigQuery {
  int64_t m = 0, n = 0, k = 0;
  OperandTypes operands;
  /// The shorter of A's and B's scale blocks along K (K for per-tensor and
  /// per-row scales): a K tile must not straddle one.
  int64_t scaleBlockK = 0;
  /// Columns of an FP8 output's scale blocks (0: no FP8 output).
  int64_t outputBlockN = 0;
  /// A grouped matmul (no split-K); contiguous: tile M must divide the M
  /// alignment.
  bool grouped = false, contiguousGroups = false;
  /// M is dynamic: `m` is the M the config is chosen for (a bucket), and
  /// split-K (whose workspace the grid sizes) is not chosen unless M has an
  /// upper bound `maxM` (the `qmm.max_m` attribute: the small-M version of
  /// a versioned matmul), which then sizes the workspace.
  bool dynamicM = false;
  int64_t maxM = 0;
  /// How the tuning table names the formats: element types, scale
  /// encodings, output type.
  std::string aType, bType, aScales, bScales, outType;
};

/// The discardable attribute bounding a dynamic M from above (i64): set by
/// qmm-select-config on the small-M version of a matmul it versions by M,
/// read by qmm-tile-matmul to size split-K's workspace.
constexpr llvm::StringLiteral kMaxMAttrName = "qmm.max_m";

/// The largest M of the small-M version of a matmul with a dynamic M
/// (qmm-select-config versions it by M: decode and small batches get a
/// kernel of their own, with split-K).
constexpr int64_t kSmallDynamicMBound = 64;

/// The M a matmul with a dynamic M is configured for when nothing else is
/// said (qmm-select-config's `dynamic-m`): a serving batch of prefill or
/// many decode tokens, where 128-row tiles keep the MFMAs busy and a
/// single token wastes rows but not weight bandwidth.
constexpr int64_t kDefaultDynamicMBucket = 256;

/// The query of a qmm.matmul or qmm.grouped_matmul, a dynamic M taken as
/// `dynamicM`; a diagnostic for a dynamic N or K, a grouped matmul with a
/// dynamic M, or another op.
FailureOr<ConfigQuery>
getConfigQuery(Operation *op, int64_t dynamicM = kDefaultDynamicMBucket);

/// Checks `config` against the chip (verifyConfigForChip) and the matmul:
/// an FP8 output's blocks within one wave, a contiguous group's alignment.
LogicalResult verifyConfigForMatmul(ConfigAttr config, const ChipInfo &chip,
                                    const ConfigQuery &query,
                                    function_ref<InFlightDiagnostic()> emitError);

/// The rule's choice (selectConfig in KernelLayout.h, split-K for small
/// grids) for the query: what qmm-select-config chooses when no tuning
/// table has the matmul or a shape near it; null when no instruction reads
/// the operands.
ConfigAttr selectConfig(MLIRContext *ctx, const ChipInfo &chip,
                        const ConfigQuery &query);

/// A tuning table's config (chosen for a bucket of shapes, or a nearby
/// one) made to fit `query`: split-K ranges depend on the exact K, so the
/// entry's config with fewer ranges where its own do not fit (or leave
/// double buffering less than two K tiles per range); null when none passes
/// verifyConfigForMatmul.
ConfigAttr fitTableEntry(ConfigAttr entry, const ChipInfo &chip,
                         const ConfigQuery &query);

/// The legal configurations worth modeling, in a fixed order: every
/// instruction shape that reads the operands (gfx950's fp8 forms for 8-bit
/// data only when the f8f6f4 ones cannot tile K), power-of-two tiles from
/// 64 (or the MFMA, for extents below 64) to 256 and no larger than the
/// extent needs, tile K 64/128/256 (also K itself below 256, and the scale
/// block and gcd(block, 128) for blocks shorter than K) inside the scale
/// blocks; where 64x64 tiles would make fewer than 256 workgroups (decode,
/// small M), tiles down to the MFMA's and tile K 512 (K >= 1024) too; 4 or
/// 8 waves
/// (fewer only for tiles of fewer MFMA tiles) whose sub-tiles hold at most
/// 128 accumulator registers, 1 or 2 stages
/// (2 when K spans two tiles), tiles copied through registers or (gfx950)
/// directly. Each passes verifyConfigForMatmul.
std::vector<ConfigAttr> enumerateConfigs(MLIRContext *ctx,
                                         const ChipInfo &chip,
                                         const ConfigQuery &query);

/// A tuning table: the best configuration found per (chip, A type, B
/// type, A scales, B scales, output type, M/N/K bucket), where a bucket is
/// the extent rounded up to a power of two and a grouped matmul's output
/// type carries its layout ("bf16 (grouped contiguous)"). Stored as JSON:
///   {"entries": [{"chip": "gfx950", "a": ...,
///    "b": ..., "a_scales": ..., "b_scales": ..., "out": ..., "m": 8192,
///    "n": 8192, "k": 8192, "config": "#qmm.config<...>",
///    "modeled_us": 571.4, "device": "mi355x"}, ...],
///    "qmm_tuning_table": 1}
class TuningTable {
public:
  struct Entry {
    std::string config;
    double modeledMicroseconds = 0;
    /// The device the entry was chosen for (the model's, or the one timed).
    std::string device;
    /// Time measured on `device` (0: chosen by the model alone).
    double measuredMicroseconds = 0;
  };

  /// Reads `path`; a missing file is an empty table when `mayBeMissing`.
  static llvm::Expected<TuningTable> load(llvm::StringRef path,
                                          bool mayBeMissing = false);
  /// Parses a table's JSON text (`path` names it in errors).
  static llvm::Expected<TuningTable> parse(llvm::StringRef text,
                                           llvm::StringRef path);
  /// The table compiled into the library
  /// (lib/Conversion/AMDGPU/BuiltinTuningTable.json, written by
  /// benchmarks/tune_table.sh): the model's best for the GEMMs of the
  /// performance table, which qmm-select-config consults by default.
  static const TuningTable &getBuiltin();
  llvm::Error save(llvm::StringRef path) const;

  /// The key of a query on a chip.
  static std::string getKey(const ChipInfo &chip, const ConfigQuery &query);

  const Entry *lookup(const ChipInfo &chip, const ConfigQuery &query) const;
  /// Entries for shapes near the query's, nearest first: the same chip,
  /// operand types, grouped form and class of scales (per-tensor and
  /// per-row alike, scaled once after the K loop; blockwise with the same
  /// scale block along K; MX), any output type, buckets at most
  /// `maxDistance` powers of two apart in total over M, N and K (distance
  /// ties keep the table's order). The config is the caller's to check.
  std::vector<const Entry *> findNear(const ChipInfo &chip,
                                      const ConfigQuery &query,
                                      int maxDistance = 4) const;
  void set(const ChipInfo &chip, const ConfigQuery &query, Entry entry);
  size_t size() const { return entries.size(); }

private:
  /// Key -> (the key's fields as JSON, entry).
  std::map<std::string, std::pair<llvm::json::Object, Entry>> entries;
};

} // namespace qmm
} // namespace mlir

#endif
