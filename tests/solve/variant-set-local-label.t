# a set whose torch is a PEP 825 variant wheel (cuda12.8) takes torchvision from an index of
# local-label builds: +cu128 is the same build
target   cuda=12.8 gpu=sm_86 python=3.12 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl
file     cu126/torchvision-0.25.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl
file     cu128/torchvision-0.25.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
request  torch
request  torchvision
expect   variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl
expect   cu128/torchvision-0.25.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl
