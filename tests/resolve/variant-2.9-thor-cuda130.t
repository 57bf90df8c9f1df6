# Jetson Thor with torch 2.9: no sm_110 code either
target   cuda=13.0 gpu=Thor python=3.13 platform=manylinux_2_28_aarch64
variants variants/variant-repack__torch-2.9__torch-2.9.0-variants.json
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-null.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-cuda12.6.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-cuda12.8.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-cuda13.0.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-xpu.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-rocm6.3.whl
file     variant/torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64-rocm6.4.whl
request  torch==2.9.0
expect   none
message  only the CPU build (null) fits
