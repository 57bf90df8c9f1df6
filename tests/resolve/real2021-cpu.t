target    cuda=cpu python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl
