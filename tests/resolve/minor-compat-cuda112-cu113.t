# NVIDIA's minor-version compatibility: a CUDA 11.2 driver (460.27.03) runs 11.x builds newer than
# 11.2, so the newer torch's cu113 build is taken, and the reason says why it runs.
target   cuda=11.2 python=3.8 platform=linux_x86_64
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
file     cu113/torch-1.10.0%2Bcu113-cp38-cp38-linux_x86_64.whl
request  torch
expect   cu113/torch-1.10.0%2Bcu113-cp38-cp38-linux_x86_64.whl
reason   by NVIDIA's minor-version compatibility
