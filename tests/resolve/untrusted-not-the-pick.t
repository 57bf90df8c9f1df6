# A conflicting file that would not be the pick anyway (an older CUDA) stops nothing.
target   cuda=12.4 python=3.11 platform=linux_x86_64
file     torch-2.5.1%2Bcu118-cp311-cp311-linux_x86_64.whl conflict
file     torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl
request  torch
expect   torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl
