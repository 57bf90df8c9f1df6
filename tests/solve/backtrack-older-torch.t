# torch 2.1.0 needs a triton no index has; the solver gives it up, takes torch 2.0.0, and then the
# torchvision that pins it. The reason says which newer version was given up and why.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     triton-2.0.0-1-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
dep      cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl triton==2.1.0
dep      cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl triton==2.0.0
dep      cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.1.0
dep      cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.0.0
request  torch
request  torchvision
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   triton-2.0.0-1-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
reason   torch newer versions were given up: 2.1.0 (its dependencies cannot be met)
reason   torchvision newer versions were given up: 0.16.0 (it conflicts with an earlier pick)
