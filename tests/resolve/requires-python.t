target   cuda=cpu python=3.8 platform=linux_x86_64
file     cpu/torch-2.1.0%2Bcpu-cp38-cp38-linux_x86_64.whl requires_python=>=3.9
file     cpu/torch-2.0.1%2Bcpu-cp38-cp38-linux_x86_64.whl requires_python=>=3.8
request  torch
expect   cpu/torch-2.0.1%2Bcpu-cp38-cp38-linux_x86_64.whl
rejected cpu/torch-2.1.0%2Bcpu-cp38-cp38-linux_x86_64.whl requires Python >=3.9
