# A newer CUDA major never runs: a 12.9 driver cannot run cu130, even with compatibility.
target   cuda=12.9 python=3.12 platform=manylinux_2_28_x86_64
file     cu129/torch-2.8.0%2Bcu129-cp312-cp312-manylinux_2_28_x86_64.whl
file     cu130/torch-2.9.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl
file     cu128/torch-2.9.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
option   no_deps
request  torch
expect   cu128/torch-2.9.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
