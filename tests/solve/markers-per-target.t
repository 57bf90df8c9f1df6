# Dependencies are evaluated for each target's markers: the Windows target brings its
# Windows-only dependency, the Linux target its Linux-only ones.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
target   cuda=cpu python=3.11 platform=win_amd64
file     cpu/torch-2.1.0%2Bcpu-cp311-cp311-linux_x86_64.whl
file     cpu/torch-2.1.0%2Bcpu-cp311-cp311-win_amd64.whl
file     colorama-0.4.6-py2.py3-none-any.whl
file     triton-2.1.0-0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
dep      cpu/torch-2.1.0%2Bcpu-cp311-cp311-linux_x86_64.whl triton==2.1.0; platform_system == "Linux" and platform_machine == "x86_64"
dep      cpu/torch-2.1.0%2Bcpu-cp311-cp311-win_amd64.whl colorama; sys_platform == "win32"
request  torch
expect   @0 cpu/torch-2.1.0%2Bcpu-cp311-cp311-linux_x86_64.whl
expect   @0 triton-2.1.0-0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
expect   @1 cpu/torch-2.1.0%2Bcpu-cp311-cp311-win_amd64.whl
expect   @1 colorama-0.4.6-py2.py3-none-any.whl
