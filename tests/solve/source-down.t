# A dependency whose page cannot be read stops the resolution with that failure (exit 3), never
# a silently older torch.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-1.13.1%2Bcu117-cp310-cp310-linux_x86_64.whl
dep      cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl sympy
broken   sympy
request  torch
exit     net
message  sympy/': HTTP 503
