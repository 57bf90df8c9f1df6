# A runaway dependency graph stops at the project limit.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-1.0-py3-none-any.whl
file     b-1.0-py3-none-any.whl
file     c-1.0-py3-none-any.whl
dep      a-1.0-py3-none-any.whl b
dep      b-1.0-py3-none-any.whl c
option   max_projects=2
request  a
exit     limit
message  more than 2 projects in one resolution
