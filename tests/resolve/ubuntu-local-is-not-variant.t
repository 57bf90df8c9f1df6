# A local label that names no variant is a plain PEP 440 local version.
target   cuda=11.2 python=3.8 platform=linux_x86_64
file     mypkg-1.0%2Bubuntu.1-py3-none-any.whl
request  mypkg
expect   mypkg-1.0%2Bubuntu.1-py3-none-any.whl
