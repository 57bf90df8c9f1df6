target    cuda=11.2 python=3.8 platform=win_amd64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cu111/torch-1.8.0%2Bcu111-cp38-cp38-win_amd64.whl
