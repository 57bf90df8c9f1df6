# H100 (sm_90) on a CUDA 13.0 driver with torch 2.9 (schema 0.0.2)
target   cuda=13.0 gpu=H100 python=3.13 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.9__torch-2.9.0-variants.json
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.6.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda12.8.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-xpu.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-rocm6.3.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-rocm6.4.whl
request  torch==2.9.0
expect   variant/torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda13.0.whl
reason   nvidia :: cuda_version_lower_bound :: 13.0 before 12.0
