# driver 535 (CUDA 12.2): both 12.x builds need CUDA >= 12.0, the priority picks cuda12.8
target   driver=535.104.05 gpu=sm_80 python=3.13 platform=manylinux_2_28_x86_64
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
