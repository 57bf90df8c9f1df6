# No file of torch has a listed sha256 (one has another, one has none the index gave): nothing
# fits, and the message says why rather than that the catalog has no torch.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl sha256=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
file     cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl
hash     torch cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
request  torch
exit     nomatch
message  no file of torch has a sha256 among the --hash values given for it (2 file(s)
