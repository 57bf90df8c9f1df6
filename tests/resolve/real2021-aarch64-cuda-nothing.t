# CUDA on aarch64: nothing; the message says so instead of handing over a CPU build.
target    cuda=11.2 python=3.8 platform=manylinux_2_28_aarch64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    none
message   none runs on CUDA 11.2
