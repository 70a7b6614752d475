// The floor under a memory-bound (decode) matmul on the GPU machine: how
// long an empty kernel and a plain streaming read of the same bytes take,
// timed the way benchmarks/nvidia_peers.py times the libraries (a CUDA graph
// of N launches replayed between two events; the reads rotate through copies
// that together exceed the L2, as a model's layers do). Needs nvcc; not part
// of the build or of CI:
//
//   nvcc -O3 -arch=sm_90a -o read_floor benchmarks/nvidia_read_floor.cu
//   ./read_floor BYTES...        # e.g. 16781312 14694400 (1x4096x4096, ...)
//
// For each size it prints the best of several read kernels (grids of 1-8
// blocks per multiprocessor, 128-bit loads, 2-8 loads in flight per
// thread), in microseconds per launch and TB/s, beside the empty kernel's
// time: what a kernel reading those bytes once can reach on this GPU. The
// vendor's 4.8 TB/s is the bound the peers table quotes; this is the
// achievable one.
// Exit codes: 0 done, 2 bad arguments, 3 no CUDA device or a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "read_floor: %s: %s\n", #call,                      \
                   cudaGetErrorString(err));                                   \
      std::exit(3);                                                            \
    }                                                                          \
  } while (0)

namespace {

__global__ void emptyKernel() {}

// Reads `count` 16-byte words; each thread keeps `Unroll` loads in flight.
// The XOR of everything read is stored only if it equals a value no test
// data produces, so the compiler keeps the loads and the kernel writes
// nothing in practice.
template <int Unroll>
__global__ void streamRead(const int4 *data, long long count, int *sink) {
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (; i + (Unroll - 1) * stride < count; i += Unroll * stride) {
    int4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      v[u] = __ldcs(data + i + u * stride);
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    int4 v = __ldcs(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7f3a9c51)
    *sink = acc;
}

using Launcher = void (*)(const int4 *, long long, int *, int, int,
                          cudaStream_t);

template <int Unroll>
void launchRead(const int4 *data, long long count, int *sink, int blocks,
                int threads, cudaStream_t stream) {
  streamRead<Unroll><<<blocks, threads, 0, stream>>>(data, count, sink);
}

// Microseconds per launch of `body(i)` for launches i = 0..n-1, captured
// in one graph and replayed; the best of `rounds` replays.
template <typename Body>
double timeGraph(cudaStream_t stream, int n, int rounds, Body body) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < n; ++i)
    body(i);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaGraphLaunch(exec, stream)); // warm-up
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, 1e3 * ms / n);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return best;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s BYTES...\n", argv[0]);
    return 2;
  }
  std::vector<long long> sizes;
  for (int i = 1; i < argc; ++i) {
    char *end = nullptr;
    long long bytes = std::strtoll(argv[i], &end, 10);
    if (!end || *end || bytes < 16 || bytes % 16) {
      std::fprintf(stderr,
                   "read_floor: '%s' is not a positive multiple of 16 "
                   "bytes\n",
                   argv[i]);
      return 2;
    }
    sizes.push_back(bytes);
  }
  int deviceCount = 0;
  if (cudaGetDeviceCount(&deviceCount) != cudaSuccess || deviceCount == 0) {
    std::fprintf(stderr, "read_floor: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  std::printf("device: %s, %d multiprocessors, L2 %d MB\n", prop.name, sms,
              prop.l2CacheSize >> 20);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int *sink;
  CHECK(cudaMalloc(&sink, sizeof(int)));

  const int launches = 200, rounds = 5;
  // The empty kernel as the wgmma decode kernels launch: one block of 384
  // threads per multiprocessor.
  double empty = timeGraph(stream, launches, rounds, [&](int) {
    emptyKernel<<<sms, 384, 0, stream>>>();
  });
  std::printf("empty kernel (%d x 384 threads): %.2f us per launch\n", sms,
              empty);

  const Launcher launchers[] = {launchRead<2>, launchRead<4>, launchRead<8>};
  const int unrolls[] = {2, 4, 8};
  for (long long bytes : sizes) {
    // As many copies as make 256 MB (at most 64), read in turn.
    int copies = (int)std::min<long long>(
        64, std::max<long long>(2, (256ll << 20) / bytes));
    std::vector<int4 *> buffers(copies);
    for (int4 *&b : buffers) {
      CHECK(cudaMalloc(&b, bytes));
      CHECK(cudaMemset(b, 0x11, bytes));
    }
    long long count = bytes / 16;
    double best = 1e30;
    int bestBlocks = 0, bestThreads = 0, bestUnroll = 0;
    for (int perSm : {1, 2, 4, 8})
      for (int threads : {256, 512, 1024})
        for (int u = 0; u < 3; ++u) {
          if (perSm * threads > 2048)
            continue;
          int blocks = perSm * sms;
          double us = timeGraph(stream, launches, rounds, [&](int i) {
            launchers[u](buffers[i % copies], count, sink, blocks, threads,
                         stream);
          });
          if (us < best) {
            best = us;
            bestBlocks = blocks;
            bestThreads = threads;
            bestUnroll = unrolls[u];
          }
        }
    std::printf("read %lld bytes (%d copies): %.2f us per launch, %.2f TB/s "
                "(%d blocks x %d threads, %d loads in flight a thread); "
                "vendor bound %.2f us\n",
                bytes, copies, best, bytes / best * 1e-6, bestBlocks,
                bestThreads, bestUnroll, bytes / 4.8e6);
    for (int4 *b : buffers)
      CHECK(cudaFree(b));
  }
  CHECK(cudaFree(sink));
  return 0;
}
