# PyPI's torch carries no +label: its nvidia-* pins say which CUDA it was built with. A CUDA 12.4
# driver runs the 2.9.0 cu128 build by minor-version compatibility; the metadata is read to know.
target   cuda=12.4 python=3.12 platform=manylinux_2_28_x86_64
file     torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl
file     torch-2.9.0-cp312-cp312-win_amd64.whl
file     nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
dep      torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and platform_machine == "x86_64"
dep      torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl filelock
file     filelock-3.16.1-py3-none-any.whl
request  torch
expect   torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl
expect   nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
expect   filelock-3.16.1-py3-none-any.whl
reason   torch cu128 is the newest CUDA the driver runs by NVIDIA's minor-version compatibility
reason   torch its METADATA's nvidia-* pins say which CUDA
