# The founding case: PyTorch never shipped cu112; pip hands out rocm4.0.1 here.
target   cuda=11.2 python=3.8 platform=linux_x86_64
file     cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
file     rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp38-cp38-linux_x86_64.whl
request  torch==1.8.0
expect   cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
reason   cu111 is the newest CUDA the driver runs
rejected rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp38-cp38-linux_x86_64.whl a ROCm build
