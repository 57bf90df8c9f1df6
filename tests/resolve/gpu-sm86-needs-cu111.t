# An RTX 30xx (sm_86) cannot use a cu102 build even though the driver runs it.
target   cuda=11.0 python=3.8 platform=linux_x86_64 gpu=sm_86
file     cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
request  torch==1.8.0
expect   none
message  none runs on CUDA 11.0 with sm_86
rejected cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl sm_86
