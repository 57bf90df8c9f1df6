# 11.0 cannot run cu111: the unlabeled cu102/ build is the answer.
target    cuda=11.0 python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
rejected  cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl CUDA 11.1 is newer than the target's 11.0
