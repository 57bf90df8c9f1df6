target    cuda=11.2 python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.7.1
expect    cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl
