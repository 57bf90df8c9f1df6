# PEP 825 variant markers: the picked label's dependencies, as PyTorch's configs write them
# (nvidia-* guarded by variant_label), over the real torch 2.10 variants.json
target   cuda=12.8 gpu=sm_86 python=3.12 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl
file     nvidia_cublas-12.8.4.1-py3-none-manylinux_2_28_x86_64.whl
file     nvidia_cublas-13.0.0.19-py3-none-manylinux_2_28_x86_64.whl
file     nvidia_cublas_cu12-12.6.4.1-py3-none-manylinux_2_28_x86_64.whl
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl nvidia-cublas==12.8.* ; variant_label == 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl nvidia-cublas==13.* ; variant_label == 'cuda13.0'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl nvidia-cublas-cu12 ; 'nvidia :: cuda_version_lower_bound :: 12.0' in variant_properties and variant_label != 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl nvidia-cublas==12.8.* ; variant_label == 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl nvidia-cublas==13.* ; variant_label == 'cuda13.0'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.6.whl nvidia-cublas-cu12 ; 'nvidia :: cuda_version_lower_bound :: 12.0' in variant_properties and variant_label != 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl nvidia-cublas==12.8.* ; variant_label == 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl nvidia-cublas==13.* ; variant_label == 'cuda13.0'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl nvidia-cublas-cu12 ; 'nvidia :: cuda_version_lower_bound :: 12.0' in variant_properties and variant_label != 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl nvidia-cublas==12.8.* ; variant_label == 'cuda12.8'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl nvidia-cublas==13.* ; variant_label == 'cuda13.0'
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl nvidia-cublas-cu12 ; 'nvidia :: cuda_version_lower_bound :: 12.0' in variant_properties and variant_label != 'cuda12.8'
request  torch
expect   variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl
expect   nvidia_cublas-12.8.4.1-py3-none-manylinux_2_28_x86_64.whl
reason   torch priority :: order :: 2 before 3
