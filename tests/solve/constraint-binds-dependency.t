# pip's -c: a constraint binds a project that a dependency pulls in. torchvision 0.16 needs
# torch 2.1 and 0.15 needs 2.0; "torch<2.1" makes the newest torchvision that fits 0.15.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
dep      cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.1.0
dep      cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.0.0
constraint torch<2.1
request  torchvision
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
reason   torchvision newer versions were given up: 0.16.0
