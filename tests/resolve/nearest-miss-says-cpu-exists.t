# Issue 27: a CUDA target nothing runs on is told that a CPU build exists, and how to ask for it.
target   cuda=9.2 python=3.8 platform=linux_x86_64
file     cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl
file     cu101/torch-1.8.0%2Bcu101-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
request  torch==1.8.0
expect   none
message  (cu101: CUDA 10.1 needs driver 418.39 or newer; driver 396.26 supports CUDA 9.2); a CPU build is there (a CPU target)
