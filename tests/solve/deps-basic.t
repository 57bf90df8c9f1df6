# A pick brings its dependencies, each resolved for the same target.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
file     numpy-2.0.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
file     sympy-1.12-py3-none-any.whl
file     mpmath-1.3.0-py3-none-any.whl
dep      cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl numpy<2
dep      cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl sympy
dep      sympy-1.12-py3-none-any.whl mpmath>=0.19
request  torch
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
expect   sympy-1.12-py3-none-any.whl
expect   mpmath-1.3.0-py3-none-any.whl
