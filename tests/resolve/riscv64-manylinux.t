# PEP 600's tag for an arch outside the 2014 set: a riscv64 glibc 2.39 machine takes the
# manylinux_2_39_riscv64 build over linux_riscv64 and refuses the x86_64 one.
target   cuda=cpu python=3.12 platform=manylinux_2_39_riscv64
file     rv/numpy-2.3.0-cp312-cp312-manylinux_2_39_riscv64.whl
file     rv/numpy-2.3.0-cp312-cp312-linux_riscv64.whl
file     rv/numpy-2.3.0-cp312-cp312-manylinux_2_28_x86_64.whl
request  numpy==2.3.0
expect   rv/numpy-2.3.0-cp312-cp312-manylinux_2_39_riscv64.whl
