# A CPU target gets no CUDA build, even an unlabeled one: PyPI's Linux x86_64 torch is a CUDA build
# (its pins say so), and nothing else fits; the message says what the build is.
target   cuda=cpu python=3.12 platform=manylinux_2_28_x86_64
file     torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl
dep      torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and platform_machine == "x86_64"
request  torch
exit     nomatch
message  torch 2.9.0 has cu128; none is a CPU build
