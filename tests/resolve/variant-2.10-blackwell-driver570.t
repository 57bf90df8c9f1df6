# RTX 5090 (sm_120) with driver 570.86.10 (CUDA 12.8)
target   driver=570.86.10 gpu=sm_120 python=3.13 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.6.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-xpu.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-rocm7.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-rocm7.1.whl
request  torch==2.10.0
expect   variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl
