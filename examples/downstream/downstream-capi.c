/*===- downstream-capi.c - a C client of qmm's C API ----------------------===//
//
//   downstream-capi FILE
// Registers upstream's and qmm's dialects and passes, parses FILE, a
// frontend's linalg program with one scaled FP8 matmul (blockwise.mlir),
// raises it with qmm-linalg-to-qmm, reads the raised qmm.matmul's scale
// encodings, builds scale encodings itself, and lowers the program to AMD
// code objects. Each step prints a line; any failure prints the reason and
// exits with 1.
//
//===----------------------------------------------------------------------===*/

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "qmm-c/Dialects.h"
#include "qmm-c/Registration.h"
#include "qmm-c/ScaleEncoding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable string the printing callbacks append to. */
typedef struct {
  char *data;
  size_t size;
} Buffer;

static void appendToBuffer(MlirStringRef text, void *userData) {
  Buffer *buffer = (Buffer *)userData;
  char *grown = (char *)realloc(buffer->data, buffer->size + text.length + 1);
  if (!grown) {
    fprintf(stderr, "error: out of memory\n");
    exit(1);
  }
  memcpy(grown + buffer->size, text.data, text.length);
  buffer->size += text.length;
  grown[buffer->size] = '\0';
  buffer->data = grown;
}

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static int fail(const char *message) {
  fflush(stdout);
  fprintf(stderr, "error: %s\n", message);
  return 1;
}

/* Diagnostics on the context: printed, with a count of the errors. */
static MlirLogicalResult handleDiagnostic(MlirDiagnostic diagnostic,
                                          void *userData) {
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++*(int *)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* Counts the operations named in the walk's OpCounts. */
typedef struct {
  MlirStringRef name;
  int count;
  MlirOperation first;
} OpCount;

static MlirWalkResult countOps(MlirOperation op, void *userData) {
  OpCount *counted = (OpCount *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(name, counted->name)) {
    if (counted->count++ == 0)
      counted->first = op;
  }
  return MlirWalkResultAdvance;
}

static OpCount count(MlirModule module, const char *name) {
  OpCount counted = {mlirStringRefCreateFromCString(name), 0, {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(module), countOps, &counted,
                    MlirWalkPreOrder);
  return counted;
}

static void printAttribute(const char *label, MlirAttribute attr) {
  printf("%s: ", label);
  mlirAttributePrint(attr, printToStdout, NULL);
  printf("\n");
}

/* Runs `pipeline` (textual) on `module`. */
static int runPipeline(MlirContext ctx, MlirModule module,
                       const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printToStderr, NULL);
  int ok = mlirLogicalResultIsSuccess(parsed) &&
           mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(
               pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  if (!ok)
    fprintf(stderr, "\nerror: pipeline failed: %s\n", pipeline);
  return ok;
}

/* Reads the raised matmul's encodings through the C API's accessors. */
static int describeEncoding(const char *label, MlirAttribute encoding) {
  if (mlirAttributeIsNull(encoding) || !qmmAttributeIsAScaleEncoding(encoding))
    return fail("the qmm.matmul has no scale encoding");
  printf("%s: kind=%d block=%lldx%lld mn_major=%d scale type=", label,
         (int)qmmScaleEncodingAttrGetKind(encoding),
         (long long)qmmScaleEncodingAttrGetBlockRows(encoding),
         (long long)qmmScaleEncodingAttrGetBlockK(encoding),
         (int)qmmScaleEncodingAttrIsMNMajor(encoding));
  mlirTypePrint(qmmScaleEncodingAttrGetScaleType(encoding), printToStdout,
                NULL);
  printf("\n");
  return 0;
}

/* Builds each kind of encoding and checks its predicates and its text. */
static int buildEncodings(MlirContext ctx, int *errors) {
  MlirAttribute perTensor = qmmScaleEncodingAttrGetPerTensor(ctx);
  MlirAttribute perRow = qmmScaleEncodingAttrGetPerRow(ctx, true);
  MlirAttribute block = qmmScaleEncodingAttrGetBlock(ctx, 128, 128, false);
  MlirAttribute mx = qmmScaleEncodingAttrGetMX(ctx, false);
  printAttribute("built per_tensor", perTensor);
  printAttribute("built per_row", perRow);
  printAttribute("built block", block);
  printAttribute("built mx", mx);
  if (!qmmScaleEncodingAttrIsPerTensor(perTensor) ||
      !qmmScaleEncodingAttrIsPerRow(perRow) ||
      !qmmScaleEncodingAttrIsMNMajor(perRow) ||
      !qmmScaleEncodingAttrIsBlock(block) || !qmmScaleEncodingAttrIsMX(mx) ||
      qmmScaleEncodingAttrIsMX(block) ||
      qmmScaleEncodingAttrGetBlockK(mx) != 32)
    return fail("a built scale encoding answers its predicates wrongly");
  if (qmmAttributeIsAScaleEncoding(mlirUnitAttrGet(ctx)))
    return fail("a unit attribute taken for a scale encoding");
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString("#qmm.scale<block 128x128>"));
  if (!mlirAttributeEqual(parsed, block))
    return fail("the built block encoding differs from the parsed one");
  printf("built block equals parsed #qmm.scale<block 128x128>\n");

  /* A bad shape: a diagnostic on the context and a null attribute. */
  int before = *errors;
  MlirAttribute bad = qmmScaleEncodingAttrGetBlock(ctx, 0, 128, false);
  if (!mlirAttributeIsNull(bad) || *errors != before + 1)
    return fail("a 0x128 block was not rejected with a diagnostic");
  printf("block 0x128 rejected\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE.mlir\n", argv[0]);
    return 2;
  }
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  qmmRegisterRequiredDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__qmm__(), ctx);
  mlirRegisterAllPasses();
  qmmRegisterPasses();
  int errors = 0;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, handleDiagnostic, &errors, NULL);

  int status = 1;
  MlirModule module = mlirModuleCreateParseFromFile(
      ctx, mlirStringRefCreateFromCString(argv[1]));
  if (mlirModuleIsNull(module)) {
    fail("the linalg program did not parse");
    goto done;
  }
  printf("parsed: %d linalg.matmul\n", count(module, "linalg.matmul").count);

  if (!runPipeline(ctx, module, "builtin.module(qmm-linalg-to-qmm)"))
    goto done;
  OpCount matmuls = count(module, "qmm.matmul");
  printf("raised: %d qmm.matmul, %d linalg.matmul\n", matmuls.count,
         count(module, "linalg.matmul").count);
  if (matmuls.count != 1) {
    fail("qmm-linalg-to-qmm did not raise the matmul");
    goto done;
  }
  if (describeEncoding("a encoding", mlirOperationGetAttributeByName(
                                         matmuls.first,
                                         mlirStringRefCreateFromCString(
                                             "a_encoding"))) ||
      describeEncoding("b encoding", mlirOperationGetAttributeByName(
                                         matmuls.first,
                                         mlirStringRefCreateFromCString(
                                             "b_encoding"))) ||
      buildEncodings(ctx, &errors))
    goto done;

  printf("toolkit: ");
  qmmGetROCMToolkitPath(printToStdout, NULL);
  printf("\n");
  if (!runPipeline(ctx, module,
                   "builtin.module(qmm-to-amdgpu-pipeline{chip=gfx942 "
                   "format=bin})"))
    goto done;
  /* Every gpu.binary (one per kernel) must hold an ELF code object. */
  Buffer text = {NULL, 0};
  mlirOperationPrint(mlirModuleGetOperation(module), appendToBuffer, &text);
  int binaries = count(module, "gpu.binary").count, objects = 0;
  for (const char *at = text.data; at && (at = strstr(at, "bin = \"\\7FELF"));
       ++at)
    ++objects;
  free(text.data);
  printf("lowered: %d gpu.binary, %d ELF code objects\n", binaries, objects);
  if (binaries == 0 || objects != binaries) {
    fail("the AMD pipeline did not make a code object for every kernel");
    goto done;
  }
  status = errors == 1 ? 0 : 1; /* the one error: block 0x128 */
  if (status)
    fail("unexpected error diagnostics");

done:
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDetachDiagnosticHandler(ctx, handler);
  mlirContextDestroy(ctx);
  return status;
}
