# Issue 27: "nothing fits" names the nearest miss. An RTX 30xx (sm_86) on driver 450.36 (CUDA
# 11.0): cu101 and cu102 have no sm_86 kernels, cu111 has them and only the driver stops it. The
# message names cu111 and the driver it needs (the upgrade that fixes it), not the oldest build.
target   cuda=11.0 python=3.8 platform=linux_x86_64 gpu=sm_86
file     cu101/torch-1.8.0%2Bcu101-cp38-cp38-linux_x86_64.whl
file     cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
file     cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl
request  torch==1.8.0
expect   none
message  (cu111: CUDA 11.1 needs driver 455.23 or newer
