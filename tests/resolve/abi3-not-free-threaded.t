# A free-threaded 3.14t cannot load an abi3-only module: nothing fits.
target   cuda=cpu python=3.14t platform=manylinux_2_28_x86_64
file     ft/onlyabi3-1.0-cp312-abi3-manylinux_2_17_x86_64.whl
request  onlyabi3==1.0
expect   none
