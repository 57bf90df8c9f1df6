# No pin: the newest version that has a fitting build.
target    cuda=11.2 python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch
expect    cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
