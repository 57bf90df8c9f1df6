# When the only version's metadata is invalid, nothing can be installed from it: an integrity
# failure (exit 4) naming the file's version and the line, not a silent install without it.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-1.0-py3-none-any.whl
file     b-1.0-py3-none-any.whl
dep      a-1.0-py3-none-any.whl b>=1; python_version >= "3
request  a
exit     integrity
message  a 1.0 (a-1.0-py3-none-any.whl) has invalid metadata: Requires-Dist 'b>=1; python_version >= "3' is not PEP 508
