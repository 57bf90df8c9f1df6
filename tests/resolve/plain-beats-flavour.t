# cxx11.abi and pypi.cudnn builds are opt-in flavours: the plain build wins at the same CUDA.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu117/torch-2.0.1%2Bcu117.with.pypi.cudnn-cp310-cp310-linux_x86_64.whl
file     cu117/torch-2.0.1%2Bcu117-cp310-cp310-linux_x86_64.whl
request  torch==2.0.1
expect   cu117/torch-2.0.1%2Bcu117-cp310-cp310-linux_x86_64.whl
