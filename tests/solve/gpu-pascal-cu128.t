# A Pascal GPU (sm_61) with a 12.8 driver: 2.7.1's cu128 wheels have no Pascal kernels (PyTorch
# dropped sm_50/60/61 there), so the cu126 build of the same version is taken.
target   cuda=12.8 python=3.12 platform=manylinux_2_28_x86_64 gpu=sm_61
file     cu128/torch-2.7.1%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
file     cu126/torch-2.7.1%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl
option   no_deps
request  torch
expect   cu126/torch-2.7.1%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl
reason   torch skipped cu128: no kernels for sm_61
