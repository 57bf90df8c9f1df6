# A constraint on a project nothing needs adds nothing to the set (pip's -c never installs).
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
constraint numpy<2
constraint pillow>=9
request  torch
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
