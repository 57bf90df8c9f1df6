# torch 2.8 on a CPU machine: the label with no properties (00000000)
target   cuda=cpu python=3.13 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.8__torch-2.8.0-variants.json
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-00000000.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu126.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl
file     variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-cu129.whl
request  torch==2.8.0
expect   variant/torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-00000000.whl
