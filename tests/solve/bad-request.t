# A request that is not PEP 508 is a usage error.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
file     demo-1.0-py3-none-any.whl
request  demo (>=1
exit     usage
message  is not PEP 508
