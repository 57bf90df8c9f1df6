# Nothing can be satisfied: the message names the conflict that started the backtracking (the
# newest torch's missing triton), not the last one tried.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     triton-2.0.0-1-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
dep      cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl triton==2.1.0
dep      cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl triton==1.0.0
request  torch
exit     nomatch
message  no triton release matches '==2.1.0'
message  torch 2.1.0 needs triton==2.1.0
