# A constraint that is no requirement is a usage error naming it.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     numpy-2.0.0-py3-none-any.whl
constraint numpy=<<2
request  numpy
exit     usage
message  constraint 'numpy=<<2' is not PEP 508
