# A constraint's marker is evaluated per target: numpy<2 binds only the Python 3.9 target.
target   cuda=11.8 python=3.9 platform=manylinux_2_28_x86_64
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     numpy-1.26.4-py3-none-any.whl
file     numpy-2.0.0-py3-none-any.whl
constraint numpy<2; python_version < "3.10"
request  numpy
expect   @0 numpy-1.26.4-py3-none-any.whl
expect   @1 numpy-2.0.0-py3-none-any.whl
