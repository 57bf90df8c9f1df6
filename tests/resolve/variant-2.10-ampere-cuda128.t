# Ampere (sm_86) on a CUDA 12.8 driver: cuda12.6 and cuda12.8 tie on nvidia, the static priority decides
target   cuda=12.8 gpu=sm_86 python=3.13 platform=manylinux_2_28_x86_64
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
reason   priority :: order :: 2 before 3 puts it before cuda12.6
rejected variant/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl nvidia :: cuda_version_lower_bound :: 13.0
