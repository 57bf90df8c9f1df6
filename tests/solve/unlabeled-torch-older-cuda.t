# A CUDA 11.8 driver cannot run PyPI's torch 2.9.0 (a cu128 build, another major): the solver
# reads the metadata of the newer releases and takes the newest that runs, 2.0.1 (cu117).
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     torch-2.9.0-cp310-cp310-manylinux_2_28_x86_64.whl
file     torch-2.1.0-cp310-cp310-manylinux1_x86_64.whl
file     torch-2.0.1-cp310-cp310-manylinux1_x86_64.whl
dep      torch-2.9.0-cp310-cp310-manylinux_2_28_x86_64.whl nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and platform_machine == "x86_64"
dep      torch-2.1.0-cp310-cp310-manylinux1_x86_64.whl nvidia-cuda-runtime-cu12==12.1.105; platform_system == "Linux" and platform_machine == "x86_64"
dep      torch-2.0.1-cp310-cp310-manylinux1_x86_64.whl nvidia-cuda-runtime-cu11==11.7.99; platform_system == "Linux" and platform_machine == "x86_64"
file     nvidia_cuda_runtime_cu11-11.7.99-py3-none-manylinux1_x86_64.whl
request  torch
expect   torch-2.0.1-cp310-cp310-manylinux1_x86_64.whl
expect   nvidia_cuda_runtime_cu11-11.7.99-py3-none-manylinux1_x86_64.whl
reason   torch skipped 2.9.0: cu128
