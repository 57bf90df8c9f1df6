# Hopper on a CUDA 11.8 driver: every CUDA build needs 12.0; only null is left, and a GPU target never silently gets the CPU build
target   cuda=11.8 gpu=sm_90 python=3.13 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.6.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-xpu.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-rocm7.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-rocm7.1.whl
request  torch==2.10.0
expect   none
message  only the CPU build (null) fits; ask for it with a CPU target
rejected variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl the CPU build
