# Jetson Thor given by its driver (580.65.06, CUDA 13.0): still no build with sm_110 code
target   driver=580.65.06 gpu=Thor python=3.13 platform=manylinux_2_28_aarch64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-null.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-cuda12.6.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-cuda12.8.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-cuda13.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-xpu.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-rocm7.0.whl
file     variant/torch-2.10.0-cp313-cp313-manylinux_2_28_aarch64-rocm7.1.whl
request  torch==2.10.0
expect   none
message  only the CPU build (null) fits; ask for it with a CPU target
