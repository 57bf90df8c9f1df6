# torch and torchvision share one variant. torchvision 0.15.0 was built for cu117 only, so cu118
# (the newer CUDA, tried first) cannot complete the set: the solver says so and takes cu117.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl
file     cu117/torchvision-0.15.0%2Bcu117-cp310-cp310-linux_x86_64.whl
dep      cu117/torchvision-0.15.0%2Bcu117-cp310-cp310-linux_x86_64.whl torch==2.0.0
request  torch
request  torchvision
expect   cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl
expect   cu117/torchvision-0.15.0%2Bcu117-cp310-cp310-linux_x86_64.whl
note     cu118 cannot complete the set
note     trying the next build
