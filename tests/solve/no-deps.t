# --no-deps: only what was asked for, and no metadata is read.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
brokenmeta cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
option   no_deps
request  torch
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
