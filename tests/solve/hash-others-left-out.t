# The listed file does not run on the target (cu118 on a CUDA 11.2 driver, no minor-version
# compatibility under strict): the message says what was left out for its hash.
target   cuda=11.2 python=3.10 platform=manylinux_2_28_x86_64 strict
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl sha256=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
file     cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl sha256=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
file     cpu/torch-2.0.0%2Bcpu-cp310-cp310-linux_x86_64.whl sha256=cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
hash     torch aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
request  torch
exit     nomatch
message  2 other file(s) of torch were left out: their sha256 is not among its --hash values
