# --cuda-compat strict keeps the earlier rule: nothing newer than the driver's own CUDA.
target   cuda=12.4 strict python=3.12 platform=manylinux_2_28_x86_64
file     cu124/torch-2.6.0%2Bcu124-cp312-cp312-manylinux_2_28_x86_64.whl
file     cu128/torch-2.7.1%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
option   no_deps
request  torch
expect   cu124/torch-2.6.0%2Bcu124-cp312-cp312-manylinux_2_28_x86_64.whl
