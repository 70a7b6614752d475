// Which multiprocessor runs which block of a persistent grid, and which
// multiprocessors share a GPC, on the GPU machine (needs nvcc; not part of
// the build or of CI):
//
//   nvcc -O2 -arch=sm_90a -o placement benchmarks/nvidia_block_placement.cu
//   ./placement [SHARED_BYTES]     # default 165888, the wgmma kernel's
//
// CUDA documents neither assignment. The wgmma kernel's static schedule
// gives block b the tiles of row b mod 8 of each raster group, so where
// its blocks land decides which multiprocessors read the same A and B
// tiles (README, "The dynamic schedule, measured", run T). Blocks of one
// thread-block cluster always share a GPC, so clusters of 16 (the largest
// a GPC of 16 or more multiprocessors holds) and of 2 (a TPC's pair) tell
// the multiprocessors of a GPC apart.
//
// Prints, for grids of 128 and 132 blocks of 384 threads (one block per
// multiprocessor, as the kernel launches), each block's %smid, then the
// groups of multiprocessors found to share a GPC, and each block's group.
// Exit codes: 0 done, 2 a launch without clusters failed, 3 no CUDA device.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <vector>

namespace {

__global__ void recordMultiprocessor(unsigned *smOfBlock, long long spinCycles) {
  extern __shared__ unsigned char shared[];
  if (threadIdx.x != 0)
    return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  shared[0] = 1;
  // Keep every block resident until the whole grid has started, so that
  // no multiprocessor runs two blocks of one launch.
  long long start = clock64();
  while (clock64() - start < spinCycles) {
  }
  smOfBlock[blockIdx.x] = sm;
}

bool launch(int blocks, int clusterBlocks, size_t sharedBytes, unsigned *device,
            std::vector<unsigned> &smOfBlock) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(384);
  config.dynamicSmemBytes = sharedBytes;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = clusterBlocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = clusterBlocks > 1 ? 1 : 0;
  cudaError_t error =
      cudaLaunchKernelEx(&config, recordMultiprocessor, device, 2000000LL);
  if (error == cudaSuccess)
    error = cudaDeviceSynchronize();
  if (error != cudaSuccess) {
    std::printf("# grid %d, clusters of %d: %s\n", blocks, clusterBlocks,
                cudaGetErrorString(error));
    cudaGetLastError();
    return false;
  }
  smOfBlock.resize(blocks);
  cudaMemcpy(smOfBlock.data(), device, blocks * sizeof(unsigned),
             cudaMemcpyDeviceToHost);
  return true;
}

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

} // namespace

int main(int argc, char **argv) {
  size_t sharedBytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 165888;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp properties;
  cudaGetDeviceProperties(&properties, 0);
  std::printf("# %s, %d multiprocessors, %zu bytes of shared memory a block\n",
              properties.name, properties.multiProcessorCount, sharedBytes);
  cudaFuncSetAttribute(recordMultiprocessor,
                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(sharedBytes));
  cudaFuncSetAttribute(recordMultiprocessor,
                       cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int sms = properties.multiProcessorCount;
  unsigned *device = nullptr;
  cudaMalloc(&device, 4 * sms * sizeof(unsigned));
  std::vector<unsigned> smOfBlock;
  std::vector<unsigned> persistent128;
  for (int blocks : {128, sms})
    for (int repeat = 0; repeat < 3; ++repeat) {
      if (!launch(blocks, 1, sharedBytes, device, smOfBlock))
        return 2;
      if (blocks == 128 && repeat == 0)
        persistent128 = smOfBlock;
      std::printf("grid %d, launch %d, SM of each block:", blocks, repeat);
      for (unsigned sm : smOfBlock)
        std::printf(" %u", sm);
      std::printf("\n");
    }
  // Multiprocessors that ran blocks of one cluster share a GPC.
  UnionFind gpc(sms);
  for (int clusterBlocks : {16, 8, 2})
    for (int repeat = 0; repeat < 3; ++repeat) {
      int blocks = (sms / clusterBlocks) * clusterBlocks;
      if (!launch(blocks, clusterBlocks, sharedBytes, device, smOfBlock))
        continue;
      for (int b = 0; b < blocks; ++b)
        gpc.join(smOfBlock[b], smOfBlock[b - b % clusterBlocks]);
    }
  std::map<int, std::vector<int>> groups;
  for (int sm = 0; sm < sms; ++sm)
    groups[gpc.find(sm)].push_back(sm);
  std::map<int, int> groupIndex;
  for (auto &[root, members] : groups) {
    int index = groupIndex.size();
    groupIndex[root] = index;
    std::printf("group %d (%zu multiprocessors):", index, members.size());
    for (int sm : members)
      std::printf(" %d", sm);
    std::printf("\n");
  }
  std::printf("grid 128, group of each block:");
  for (unsigned sm : persistent128)
    std::printf(" %d", groupIndex[gpc.find(sm)]);
  std::printf("\n");
  cudaFree(device);
  return 0;
}
