# A file whose metadata cannot be read stops the resolution (exit 3) rather than skipping it.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
brokenmeta cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
request  torch
exit     net
message  HTTP 500
