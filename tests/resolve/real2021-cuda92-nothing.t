target    cuda=9.2 python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    none
message   torch 1.8.0 has
message   none runs on CUDA 9.2
message   is 1.7.1 (cu92)
