# macOS: the files sit in cpu/ and carry no label; macosx_10_9 fits a macOS 11 Intel machine.
target    cuda=cpu python=3.8 platform=macosx_11_0_x86_64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    cpu/torch-1.8.0-cp38-none-macosx_10_9_x86_64.whl
