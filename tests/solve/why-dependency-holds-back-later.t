# The same with torchvision asked first: torch is never tried at 2.1.0, and its why-line still
# names the requirement that held it to 2.0.x (issue 36).
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.1%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
dep      cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch<2.1,>=2.0
request  torchvision
request  torch
expect   cu118/torch-2.0.1%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
reason   torch torchvision 0.15.0 requires torch<2.1,>=2.0, which rules out newer versions
