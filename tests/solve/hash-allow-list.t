# pip's --hash: torch may come only from a file whose sha256 is listed, here the cu117 build,
# although cu118 is newer and runs. numpy, with no hashes given, is picked as usual.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl sha256=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
file     cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl sha256=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
file     numpy-1.26.4-py3-none-any.whl sha256=cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
dep      cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl numpy
hash     torch BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
request  torch==2.0.0
expect   cu117/torch-2.0.0%2Bcu117-cp310-cp310-linux_x86_64.whl
expect   numpy-1.26.4-py3-none-any.whl
