target   rocm=4.0 python=3.8 platform=linux_x86_64
file     cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
file     rocm3.10/torch-1.8.0%2Brocm3.10-cp38-cp38-linux_x86_64.whl
file     rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp38-cp38-linux_x86_64.whl
request  torch==1.8.0
expect   rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp38-cp38-linux_x86_64.whl
