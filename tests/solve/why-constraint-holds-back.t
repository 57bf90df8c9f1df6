# pip's -c holds torch below 2.1 while 2.1.0 runs here: torch's why-line says the constraints
# chose its version (issue 36).
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
constraint torch<2.1
request  torch
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
reason   torch the constraints (-c) hold torch to <2.1, which rules out newer versions
