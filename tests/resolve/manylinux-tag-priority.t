# The most specific tag the target accepts wins among files of one version and variant.
target   cuda=12.1 python=3.11 platform=manylinux_2_28_x86_64
file     cu121/torch-2.2.0%2Bcu121-cp311-cp311-linux_x86_64.whl
file     cu121/torch-2.2.0%2Bcu121-cp311-cp311-manylinux_2_28_x86_64.whl
request  torch==2.2.0
expect   cu121/torch-2.2.0%2Bcu121-cp311-cp311-manylinux_2_28_x86_64.whl
