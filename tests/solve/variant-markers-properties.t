# variant_properties holds only what the target supports (PEP 825's sm_arch example): cuda13.0
# carries 120_real, which an sm_86 machine does not support, so its dependency stays out
target   cuda=13.0 gpu=sm_86 python=3.12 platform=manylinux_2_28_x86_64
variants variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-null.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl
file     variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl
file     nvidia_cublas-13.0.0.19-py3-none-manylinux_2_28_x86_64.whl
file     nvidia_cudnn-9.13.0.50-py3-none-manylinux_2_28_x86_64.whl
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl nvidia-cublas ; 'nvidia :: sm_arch :: 86_real' in variant_properties
dep      variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl nvidia-cudnn ; 'nvidia::sm_arch::120_real' in variant_properties
request  torch
expect   variant/torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda13.0.whl
expect   nvidia_cublas-13.0.0.19-py3-none-manylinux_2_28_x86_64.whl
