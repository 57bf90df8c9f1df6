# The same file listed twice, once with the trusted bytes: the trusted copy is the pick.
target   cuda=12.4 python=3.11 platform=linux_x86_64
file     v2/torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl conflict
file     torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl
file     torch-2.5.1%2Bcu118-cp311-cp311-linux_x86_64.whl
request  torch
expect   torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl
