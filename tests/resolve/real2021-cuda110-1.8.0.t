# 11.0's own driver (450.36.06) is below 11.x's minor-version compatibility floor, so it cannot
# run cu111: the unlabeled cu102/ build is the answer.
target    cuda=11.0 python=3.8 platform=linux_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl
rejected  cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl 450.80.02 for minor-version compatibility; driver 450.36.06 supports CUDA 11.0
