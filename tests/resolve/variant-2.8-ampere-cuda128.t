# torch 2.8 (unversioned wheelnext schema): cu128 needs CUDA 12.8, the newest lower bound the driver meets
target   cuda=12.8 gpu=sm_86 python=3.13 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.8__torch-2.8.0-variants.json
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-00000000.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu126.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu129.whl
request  torch==2.8.0
expect   variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl
reason   nvidia :: cuda_version_lower_bound :: 12.8 before 12.0
rejected variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu129.whl 12.9
