# --driver 450.36.06 (CUDA 11.0's own) is below 11.x's minor-version compatibility floor
# (450.80.02): cu111 does not run there, cu110 does.
target   driver=450.36.06 python=3.8 platform=linux_x86_64
file     cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
option   no_deps
request  torch
expect   cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl
