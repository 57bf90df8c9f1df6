# Version first: 1.8.0 has a build the driver runs (cu102), so it beats 1.7.1+cu110; 1.9.0 has only
# cu113, which a CUDA 11.0 driver (450.36.06, below 11.x's minor-version compatibility floor of
# 450.80.02) cannot run.
target   cuda=11.0 python=3.8 platform=linux_x86_64
file     cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl
file     cu102/torch-1.8.0%2Bcu102-cp38-cp38-linux_x86_64.whl
file     cu113/torch-1.9.0%2Bcu113-cp38-cp38-linux_x86_64.whl
request  torch
expect   cu102/torch-1.8.0%2Bcu102-cp38-cp38-linux_x86_64.whl
reason   skipped 1.9.0: cu113: CUDA 11.3 needs driver
rejected cu113/torch-1.9.0%2Bcu113-cp38-cp38-linux_x86_64.whl 450.80.02 for minor-version compatibility
