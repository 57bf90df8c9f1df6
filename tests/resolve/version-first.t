# Version first: 1.8.0 has cu111 (fits 11.2) so it beats 1.7.1+cu110, and 1.9.0 has only cu113.
target   cuda=11.2 python=3.8 platform=linux_x86_64
file     cu110/torch-1.7.1%2Bcu110-cp38-cp38-linux_x86_64.whl
file     cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
file     cu113/torch-1.9.0%2Bcu113-cp38-cp38-linux_x86_64.whl
request  torch
expect   cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
rejected cu113/torch-1.9.0%2Bcu113-cp38-cp38-linux_x86_64.whl CUDA 11.3 is newer than the target's 11.2
