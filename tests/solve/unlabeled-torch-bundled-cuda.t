# torch 1.8.0 on PyPI bundled CUDA 10.2 and pinned nothing: PyPI's known default says cu102, so a
# CUDA 11.2 target takes it only when no labeled build is better; a sm_86 GPU cannot use it.
target   cuda=11.2 python=3.8 platform=manylinux_2_17_x86_64 gpu=sm_86
file     torch-1.8.0-cp38-cp38-manylinux1_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
option   no_deps
request  torch==1.8.0
expect   cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
