# A graph that needs more choices than allowed stops with a limit (exit 1), saying how to help.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-3.0-py3-none-any.whl
file     a-2.0-py3-none-any.whl
file     a-1.0-py3-none-any.whl
file     b-1.0-py3-none-any.whl
dep      a-3.0-py3-none-any.whl b>=3
dep      a-2.0-py3-none-any.whl b>=2
dep      a-1.0-py3-none-any.whl b>=1
option   max_steps=3
request  a
exit     limit
message  more than 3 choices; pin versions
