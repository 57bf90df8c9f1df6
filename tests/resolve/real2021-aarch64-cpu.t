# aarch64 had CPU builds only (unlabeled, in cpu/); manylinux2014 fits a glibc 2.28 machine.
target    cuda=cpu python=3.8 platform=manylinux_2_28_aarch64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cpu/torch-1.8.0-cp38-cp38-manylinux2014_aarch64.whl
