target   cuda=cpu python=3.8 platform=linux_x86_64
file     cpu/torch-1.8.1%2Bcpu-cp38-cp38-linux_x86_64.whl yanked
file     cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl
request  torch
expect   cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl
rejected cpu/torch-1.8.1%2Bcpu-cp38-cp38-linux_x86_64.whl yanked
