# A K80 (sm_37): PyTorch built its cu121 wheels without Kepler kernels (CUDA 12 dropped it), so a
# new driver still gets the cu118 build.
target   cuda=12.2 python=3.10 platform=manylinux_2_28_x86_64 gpu=sm_37
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl
request  torch==2.1.0
expect   cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
rejected cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl no kernels for sm_37
